//! The fakes reach their scenario whatever environment the adapter gives agy.
//!
//! fake-agy and fake-agy-acp learn their script, journal, state folder and sandbox
//! marker from `FAKE_AGY_*` variables and the marker variable. Adapters that start agy
//! with an environment of their own (an allow-list of variables, or none) drop them: the
//! fake then answers unscripted, journals nothing, and is not swept with the sandbox.
//! So once a scenario's environment is complete, `bin/agy` (and `bin/agy_acp_server`)
//! become a small `/bin/sh` launcher that gives each of those variables its value when
//! the caller did not pass one, then `exec`s the fake through a link named like the
//! program (`libexec/agy`), so the process keeps its pid and its name.

use agy_process::MARKER_ENV;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Whether a variable of the scenario's environment is one the fakes need.
fn baked(name: &str) -> bool {
    name.starts_with("FAKE_AGY_") || name == MARKER_ENV
}

/// `text` as one single-quoted `sh` word.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The launcher's text: each needed variable defaulted, then the fake `exec`ed.
fn script(target: &Path, env: &[(String, String)]) -> String {
    let mut out = String::from(
        "#!/bin/sh\n# This scenario's fake agy. A caller that passes agy an environment of its own\n# still reaches the scenario: each setting below applies when the caller did not pass it.\n",
    );
    for (name, value) in env.iter().filter(|(k, _)| baked(k)) {
        out.push_str(&format!(
            "[ -n \"${{{name}+x}}\" ] || {{ {name}={}; export {name}; }}\n",
            quoted(value)
        ));
    }
    out.push_str(&format!(
        "exec {} \"$@\"\n",
        quoted(&target.display().to_string())
    ));
    out
}

/// Turns `bin/<name>` of the sandbox at `root`, when it is a link to a fake, into the
/// launcher for `env`; anything else (no file, a stand-in script) is left as it is.
pub(super) fn bake(root: &Path, name: &str, env: &[(String, String)]) -> io::Result<()> {
    let entry = root.join("bin").join(name);
    let Ok(fake) = std::fs::read_link(&entry) else {
        return Ok(());
    };
    let libexec = root.join("libexec");
    std::fs::create_dir_all(&libexec)?;
    let target = libexec.join(name);
    let _ = std::fs::remove_file(&target);
    std::os::unix::fs::symlink(&fake, &target)?;
    let staged = root.join("bin").join(format!(".{name}.launcher"));
    let mut file = std::fs::File::create(&staged)?;
    file.write_all(script(&target, env).as_bytes())?;
    file.set_permissions(std::fs::Permissions::from_mode(0o755))?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&staged, &entry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::process::Command;

    /// A sandbox-like folder whose `bin/agy` links to `env` (it prints its environment).
    fn linked_to_env() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::create_dir_all(dir.path().join("bin")).expect("bin");
        std::os::unix::fs::symlink("/usr/bin/env", dir.path().join("bin/agy")).expect("link");
        dir
    }

    fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        (pairs.iter())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_caller_that_passes_no_environment_still_gets_the_fakes_settings() {
        let dir = linked_to_env();
        let env = vars(&[
            ("FAKE_AGY_SCRIPT", "/s/it's a script.toml"),
            (MARKER_ENV, "/sandbox"),
            ("PATH", "/not/baked"),
        ]);
        bake(dir.path(), "agy", &env).expect("baked");
        let out = Command::new(dir.path().join("bin/agy"))
            .env_clear()
            .output()
            .expect("runs");
        let printed = String::from_utf8_lossy(&out.stdout);
        assert!(
            printed.contains("FAKE_AGY_SCRIPT=/s/it's a script.toml\n"),
            "{printed}"
        );
        assert!(
            printed.contains(&format!("{MARKER_ENV}=/sandbox\n")),
            "{printed}"
        );
        assert!(!printed.contains("/not/baked"), "{printed}");
    }

    #[test]
    fn a_value_the_caller_passes_wins_and_the_process_keeps_the_programs_name() {
        let dir = linked_to_env();
        bake(dir.path(), "agy", &vars(&[("FAKE_AGY_JOURNAL", "/baked")])).expect("baked");
        let out = Command::new(dir.path().join("bin/agy"))
            .env_clear()
            .env("FAKE_AGY_JOURNAL", "/given")
            .output()
            .expect("runs");
        let printed = String::from_utf8_lossy(&out.stdout);
        assert!(printed.contains("FAKE_AGY_JOURNAL=/given\n"), "{printed}");
        let target = std::fs::read_link(dir.path().join("libexec/agy")).expect("link");
        assert_eq!(target, Path::new("/usr/bin/env"));
    }

    #[test]
    fn an_entry_that_is_not_a_link_is_left_alone() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::create_dir_all(dir.path().join("bin")).expect("bin");
        std::fs::write(dir.path().join("bin/agy"), "#!/bin/sh\nexit 9\n").expect("stand-in");
        bake(dir.path(), "agy", &vars(&[("FAKE_AGY_JOURNAL", "/j")])).expect("no-op");
        let kept = std::fs::read_to_string(dir.path().join("bin/agy")).expect("kept");
        assert_eq!(kept, "#!/bin/sh\nexit 9\n");
        bake(dir.path(), "absent", &[]).expect("nothing to bake");
    }

    proptest! {
        #[test]
        fn any_value_reaches_the_fake_unchanged(value in "[^\0]{0,40}") {
            let dir = linked_to_env();
            bake(dir.path(), "agy", &vars(&[("FAKE_AGY_TIME_SCALE", &value)])).expect("baked");
            let out = Command::new(dir.path().join("bin/agy"))
                .env_clear()
                .arg("-0")
                .output()
                .expect("runs");
            let wanted = format!("FAKE_AGY_TIME_SCALE={value}");
            prop_assert!(
                out.stdout.split(|b| *b == 0).any(|v| v == wanted.as_bytes()),
                "{:?}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }
}
