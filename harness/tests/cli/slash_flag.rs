//! `session/slash-line-ends-the-session` is about agy without `--disable-slash-commands`:
//! with the flag a slash line is an ordinary prompt (capture
//! `ut-1.3.2-slash-prompt-literal`), so a client that passes it is not judged on the
//! session's end. Shown with the reference adapter behind an `agy` that adds the flag to
//! every run.

use crate::support::*;
use std::time::Duration;

/// The reference adapter with `AGY_BIN` naming a wrapper that runs agy with `extra`
/// added to its argv, run on the slash-line scenario.
fn run_slash_scenario(t: &TestDir, extra: &str) -> (Option<i32>, serde_json::Value, String) {
    let body = format!("exec agy \"$@\" {extra}\n");
    let config = wrapped_reference_config(t, &body, "[\"session\"]", true);
    let scenario = "scenarios/session/slash-line-ends-the-session.toml";
    run_with_json_report(t, &config, scenario, Duration::from_secs(120))
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
