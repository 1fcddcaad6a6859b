//! The adapter's command line as the config gives it: how its relative paths resolve
//! (once, when the config is read, so `check` and every run start the same files
//! whatever their working folder), and the files it names that are not there.

use agy_protocol::diag::{Diagnostic, SourceFile};
use std::path::{Path, PathBuf};
use toml::de::DeValue;
use toml::Spanned;

/// Resolves `command` against `base`, the config's folder: a first word with a `/`
/// is relative to it; so is an argument with a `/` that names something there, and an
/// argument without one that names a file there (`["node", "agent.mjs"]` beside the
/// config). A bare first word is a program found on `PATH` when the adapter starts
/// ([`crate::driver_client::resolve_program`]).
pub fn resolve_command(command: &mut [String], base: &Path) {
    let Some((first, args)) = command.split_first_mut() else {
        return;
    };
    if first.contains('/') && Path::new(first.as_str()).is_relative() {
        *first = base.join(first.as_str()).display().to_string();
    }
    for arg in args {
        if arg.starts_with('-') || Path::new(arg.as_str()).is_absolute() {
            continue;
        }
        let candidate: PathBuf = base.join(arg.as_str());
        let names_it = if arg.contains('/') {
            candidate.exists()
        } else {
            candidate.is_file()
        };
        if names_it {
            *arg = candidate.display().to_string();
        }
    }
}

/// Resolves the values of `[adapter] env` that are paths relative to the config's
/// folder: one that starts with `./` or `../`, and one with a `/` that names something
/// there (`ORCHESTRATOR_CONFIG = "orchestrator.toml"` has no `/` and stays as given; a
/// program reads it relative to its own working folder, the sandbox). The adapter starts
/// in its sandbox, so a relative path would otherwise name nothing.
pub fn resolve_env(env: &mut std::collections::BTreeMap<String, String>, base: &Path) {
    for value in env.values_mut() {
        let path = Path::new(value.as_str());
        if value.is_empty() || path.is_absolute() || value.contains(':') {
            continue;
        }
        let explicit = value.starts_with("./") || value.starts_with("../");
        if explicit || (value.contains('/') && base.join(path).exists()) {
            *value = base.join(path).display().to_string();
        }
    }
}

/// The files a resolved `command` names that are not there: a first word with a `/`
/// that is no file, a bare first word not on `PATH`, and an argument that is a relative
/// path to a file (a `/`, a file extension) that [`resolve_command`] found no file
/// for. Each is located at its word of `[adapter] command` (`section` is `[adapter]`).
pub fn missing_files(
    src: &SourceFile,
    section: Option<&Spanned<DeValue<'_>>>,
    command: &[String],
    base: &Path,
) -> Vec<Diagnostic> {
    let offsets = word_offsets(section);
    let at = |i: usize| offsets.get(i).copied().unwrap_or(0);
    let folder = base.display();
    let mut found = Vec::new();
    let Some((program, args)) = command.split_first() else {
        return found;
    };
    if program.contains('/') && !Path::new(program).is_file() {
        found.push(
            Diagnostic::at(src, at(0), format!("the adapter's program `{program}` does not exist"))
                .with_hint(format!("a first word with `/` is relative to the config's folder `{folder}`; build the driver, or fix the path")),
        );
    } else if !program.contains('/')
        && !crate::driver_client::resolve_program(program).is_absolute()
    {
        found.push(
            Diagnostic::at(src, at(0), format!("the adapter's program `{program}` is not on `PATH`"))
                .with_hint(format!("install it, or give its path (a first word with `/` is relative to the config's folder `{folder}`)")),
        );
    }
    for (i, arg) in args.iter().enumerate() {
        if looks_like_a_file(arg) {
            found.push(
                Diagnostic::at(src, at(i + 1), format!("`{arg}` names no file in the config's folder `{folder}`"))
                    .with_hint("an argument with `/` is relative to the config's folder; write the driver there, or fix the path"),
            );
        }
    }
    found
}

/// A relative path to a file that [`resolve_command`] left relative: it has a `/`,
/// its last part a file extension, and it is no option, URL or assignment.
fn looks_like_a_file(arg: &str) -> bool {
    let path = Path::new(arg);
    arg.contains('/')
        && path.is_relative()
        && !arg.starts_with('-')
        && !arg.contains(':')
        && !arg.contains('=')
        && path.extension().is_some()
}

/// Where each word of `[adapter] command` starts in the file.
fn word_offsets(section: Option<&Spanned<DeValue<'_>>>) -> Vec<usize> {
    let Some(DeValue::Table(t)) = section.map(|s| s.get_ref()) else {
        return Vec::new();
    };
    match t.get("command").map(|c| c.get_ref()) {
        Some(DeValue::Array(words)) => words.iter().map(|w| w.span().start).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(command: &[&str], base: &Path) -> Vec<String> {
        let mut c: Vec<String> = command.iter().map(|s| s.to_string()).collect();
        resolve_command(&mut c, base);
        c
    }

    #[test]
    fn a_file_beside_the_config_resolves_with_or_without_a_slash() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join("agent.mjs"), "").expect("agent");
        std::fs::create_dir(dir.path().join("d")).expect("d");
        std::fs::write(dir.path().join("d/driver.py"), "").expect("driver");
        let base = dir.path();
        let at = |p: &str| base.join(p).display().to_string();
        assert_eq!(
            resolved(&["node", "agent.mjs", "--flag", "d/driver.py", "x"], base),
            [
                "node".into(),
                at("agent.mjs"),
                "--flag".into(),
                at("d/driver.py"),
                "x".into()
            ]
        );
        assert_eq!(resolved(&["./d/driver.py"], base), [at("./d/driver.py")]);
        assert_eq!(
            resolved(&["python3", "-m", "tool"], base),
            ["python3", "-m", "tool"]
        );
    }

    fn missing(text: &str, base: &Path) -> Vec<String> {
        let src = SourceFile::new("a.toml", text);
        let mut diags = agy_protocol::diag::Diagnostics::new();
        let doc = agy_protocol::diag::parse_toml_document(&src, &mut diags).expect("toml");
        let section = doc.get_ref().get("adapter");
        let Some(DeValue::Table(t)) = section.map(|s| s.get_ref()) else {
            panic!("no [adapter]");
        };
        let Some(DeValue::Array(words)) = t.get("command").map(|c| c.get_ref()) else {
            panic!("no command");
        };
        let mut command: Vec<String> = words
            .iter()
            .map(|w| match w.get_ref() {
                DeValue::String(s) => s.to_string(),
                other => panic!("{other:?}"),
            })
            .collect();
        resolve_command(&mut command, base);
        missing_files(&src, section, &command, base)
            .iter()
            .map(|d| format!("{}:{}: {}", d.line, d.column, d.message))
            .collect()
    }

    #[test]
    fn a_missing_driver_file_is_located_at_its_word() {
        let dir = tempfile::tempdir().expect("dir");
        let base = dir.path();
        assert_eq!(
            missing(
                "[adapter]\ncommand = [\"python3\", \"agy-driver/driver.py\"]\n",
                base
            ),
            [format!(
                "2:23: `agy-driver/driver.py` names no file in the config's folder `{}`",
                base.display()
            )]
        );
        assert_eq!(
            missing(
                "[adapter]\ncommand = [\"./agy-driver/target/debug/agy-driver\"]\n",
                base
            ),
            [format!(
                "2:12: the adapter's program `{}` does not exist",
                base.join("./agy-driver/target/debug/agy-driver").display()
            )]
        );
        assert_eq!(
            missing(
                "[adapter]\ncommand = [\"no-such-program-on-path-x\"]\n",
                base
            ),
            ["2:12: the adapter's program `no-such-program-on-path-x` is not on `PATH`"]
        );
        std::fs::create_dir(base.join("agy-driver")).expect("dir");
        std::fs::write(base.join("agy-driver/driver.py"), "").expect("driver");
        let none: [String; 0] = [];
        assert_eq!(
            missing("[adapter]\ncommand = [\"sh\", \"agy-driver/driver.py\", \"--import\", \"tsx/esm\", \"https://x/y.js\"]\n", base),
            none
        );
    }
}

#[cfg(test)]
mod env_tests {
    use super::resolve_env;
    use std::collections::BTreeMap;
    use std::path::Path;

    fn resolved(value: &str, base: &Path) -> String {
        let mut env = BTreeMap::from([("X".to_string(), value.to_string())]);
        resolve_env(&mut env, base);
        env.remove("X").unwrap_or_default()
    }

    #[test]
    fn an_env_path_relative_to_the_config_is_made_absolute() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("conf")).unwrap();
        std::fs::write(dir.path().join("conf/o.toml"), "").unwrap();
        let base = dir.path();
        assert_eq!(
            resolved("./o.toml", base),
            base.join("./o.toml").display().to_string()
        );
        assert_eq!(
            resolved("../o.toml", base),
            base.join("../o.toml").display().to_string()
        );
        assert_eq!(
            resolved("conf/o.toml", base),
            base.join("conf/o.toml").display().to_string()
        );
    }

    #[test]
    fn env_values_that_are_not_relative_paths_stay_as_given() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        for value in [
            "debug",
            "/etc/hosts",
            "gemini/pro",
            "http://x/y",
            "o.toml",
            "",
        ] {
            assert_eq!(resolved(value, base), value, "{value}");
        }
    }
}
