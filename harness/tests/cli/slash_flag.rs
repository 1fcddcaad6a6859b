//! `session/slash-line-ends-the-session` is about agy without `--disable-slash-commands`:
//! with the flag a slash line is an ordinary prompt (capture
//! `ut-1.3.2-slash-prompt-literal`), so a client that passes it is not judged on the
//! session's end. Shown with the reference adapter behind an `agy` that adds the flag to
//! every run.

use crate::support::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The reference adapter with `AGY_BIN` naming a wrapper that runs agy with `extra`
/// added to its argv.
fn config_with(t: &TestDir, extra: &str) -> PathBuf {
    let wrapper = t.write(
        "flagged-agy",
        &format!("#!/bin/sh\nexec agy \"$@\" {extra}\n"),
    );
    let mut perms = std::fs::metadata(&wrapper).expect("wrapper").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&wrapper, perms).expect("chmod");
    let adapter =
        Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("agy-reference-adapter");
    t.write(
        "adapter.toml",
        &format!(
            "[adapter]\nname = \"flagged\"\ncommand = [\"/usr/bin/env\", {:?}, {:?}]\nprofiles = [\"session\"]\nstrict = true\n",
            format!("AGY_BIN={}", wrapper.display()),
            adapter.display().to_string()
        ),
    )
}

fn run_slash_scenario(t: &TestDir, extra: &str) -> (Option<i32>, serde_json::Value, String) {
    let config = config_with(t, extra);
    let report = t.path().join("r.json");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(workspace())
        .args(["--color", "never", "run", "--adapter"])
        .arg(&config)
        .arg("--report")
        .arg(format!("json={}", report.display()))
        .arg("scenarios/session/slash-line-ends-the-session.toml");
    let out = run(cmd, Duration::from_secs(120));
    let json = serde_json::from_str(&std::fs::read_to_string(&report).expect("report"))
        .expect("json report");
    (out.status.code(), json, text(&out.stdout))
}

#[test]
fn a_client_that_disables_slash_commands_is_not_judged_on_the_session_end() {
    let t = TestDir::new();
    let (code, json, stdout) = run_slash_scenario(&t, "--disable-slash-commands");
    assert_eq!(code, Some(0), "{stdout}");
    let r = &json["results"][0];
    assert_eq!(r["status"], "not_applicable", "{r:#}");
    let note = r["note"].as_str().unwrap_or_default();
    assert!(note.contains("--disable-slash-commands"), "{r:#}");
}

#[test]
fn without_the_flag_the_scenario_still_judges_the_session_end() {
    // The wrapper adds nothing: the reference adapter's run is judged and passes.
    let t = TestDir::new();
    let (code, json, stdout) = run_slash_scenario(&t, "");
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(json["results"][0]["status"], "passed", "{stdout}");
}
