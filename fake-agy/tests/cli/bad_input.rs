//! A broken fake: every script problem located, `fake-agy:` prefix, exit 70.

use crate::support::{snapshot_settings, Sandbox};
use fake_agy::exit_code::BROKEN;

#[test]
fn every_script_problem_is_reported_with_its_location() {
    let sb = Sandbox::new();
    let out = sb
        .scripted("[[invocation]]\nsteps = [\n  { slep = \"1s\" },\n  { sleep = \"soon\" },\n]\n[[invocation]]\nwhen = { nht = 2 }\n")
        .args(["-p", "x"])
        .assert()
        .code(BROKEN);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.starts_with("fake-agy: "), "{stderr}");
    for loc in ["script.toml:3:", "script.toml:4:", "script.toml:7:"] {
        assert!(stderr.contains(loc), "{loc} missing in {stderr}");
    }
    assert!(stderr.contains("help: "), "{stderr}");
    snapshot_settings().bind(|| insta::assert_snapshot!("bad_script_stderr", stderr));
    assert_eq!(
        sb.journal()[0].exit.as_ref().and_then(|e| e.code),
        Some(BROKEN)
    );
}

#[test]
fn missing_script_file_is_a_fake_error() {
    let sb = Sandbox::new();
    sb.cmd()
        .env("FAKE_AGY_SCRIPT", sb.path().join("no-such-script.toml"))
        .args(["-p", "x"])
        .assert()
        .code(BROKEN)
        .stderr(predicates::str::starts_with("fake-agy: "));
}

#[test]
fn bad_knob_is_a_fake_error_naming_the_variable() {
    let sb = Sandbox::new();
    sb.cmd()
        .env("FAKE_AGY_TIME_SCALE", "fast")
        .args(["-p", "x"])
        .assert()
        .code(BROKEN)
        .stderr(predicates::str::contains("FAKE_AGY_TIME_SCALE"));
}

#[test]
fn bad_trace_is_reported_with_its_lines() {
    let sb = Sandbox::new();
    std::fs::write(sb.path().join("t.jsonl"), "{\"trace\":1}\n").expect("write");
    sb.scripted("[[invocation]]\nsteps = [{ trace = \"t.jsonl\" }]\n")
        .args(["-p", "x"])
        .assert()
        .code(BROKEN)
        .stderr(predicates::str::contains("t.jsonl:1:"));
}

#[test]
fn file_step_may_not_leave_the_brain_dir() {
    let sb = Sandbox::new();
    sb.scripted("[[invocation]]\nsteps = [{ file = { path = \"../../escape\", text = \"x\" } }]\n")
        .args(["-p", "x"])
        .assert()
        .code(BROKEN);
    assert!(!sb.app_dir().join("escape").exists());
}
