//! A broken fake: every script problem located, `fake-agy:` prefix, exit 70.

use crate::support::{snapshot_settings, Sandbox};
use agy_protocol::env::{FAKE_AGY_SCRIPT, FAKE_AGY_TIME_SCALE};
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
        .env(FAKE_AGY_SCRIPT, sb.path().join("no-such-script.toml"))
        .args(["-p", "x"])
        .assert()
        .code(BROKEN)
        .stderr(predicates::str::starts_with("fake-agy: "));
}

#[test]
fn bad_knob_is_a_fake_error_naming_the_variable() {
    let sb = Sandbox::new();
    sb.cmd()
        .env(FAKE_AGY_TIME_SCALE, "fast")
        .args(["-p", "x"])
        .assert()
        .code(BROKEN)
        .stderr(predicates::str::contains(FAKE_AGY_TIME_SCALE));
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

// Regression: non-UTF-8 argv panicked fake-agy (`std::env::args`).
#[test]
fn an_argument_that_is_not_utf8_is_reported_with_its_bytes_not_a_panic() {
    use std::os::unix::ffi::OsStrExt;
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .arg("-p")
        .arg(std::ffi::OsStr::from_bytes(b"a\xffb"))
        .assert()
        .code(BROKEN);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.starts_with("fake-agy: argument 2 is not valid UTF-8"),
        "{stderr}"
    );
    assert!(stderr.contains("61 ff 62"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(sb.journal()[0].argv[2], "a\u{fffd}b");
}

// Regression: a time scale of `1e300` was accepted and overflowed every delay.
#[test]
fn an_out_of_range_time_scale_is_a_fake_error() {
    let sb = Sandbox::new();
    for value in ["1e300", "1e19", "inf", "nan", "-1"] {
        sb.cmd()
            .env(FAKE_AGY_TIME_SCALE, value)
            .args(["-p", "x"])
            .assert()
            .code(BROKEN)
            .stderr(predicates::str::contains(FAKE_AGY_TIME_SCALE))
            .stderr(predicates::str::contains("from 0 to 1000"));
    }
}

const TRACE_HEADER: &str = "{\"trace\":1,\"agy_version\":\"1.2.17\",\"recorded\":\"2026-10-05\",\"platform\":\"linux_amd64\",\"source\":\"test\"}\n{\"invocation\":{\"argv\":[\"agy\",\"-p\",\"x\"]}}\n";

fn trace_error(trace: &[u8], spec: &str) -> (Sandbox, String) {
    let sb = Sandbox::new();
    std::fs::write(sb.path().join("t.jsonl"), trace).expect("write");
    let out = sb
        .scripted(&format!(
            "[[invocation]]\nsteps = [{{ trace = \"{spec}\" }}]\n"
        ))
        .args(["-p", "x"])
        .assert()
        .code(BROKEN);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    (sb, stderr)
}

// Regression: these trace errors had no location (or, for 1e300, a panic).
#[test]
fn trace_errors_are_located_once() {
    let mut bad_utf8 = TRACE_HEADER.as_bytes().to_vec();
    bad_utf8.extend_from_slice(b"{\"t\":0,\"stdout\":\"a\xffb\"}\n");
    let event = |line: &str| format!("{TRACE_HEADER}{line}\n").into_bytes();
    let cases: Vec<(Vec<u8>, &str, &str, &str)> = vec![
        (bad_utf8, "t.jsonl", "t.jsonl:3:19", "not valid UTF-8"),
        (
            TRACE_HEADER.into(),
            "t.jsonl#3",
            "t.jsonl:2:1",
            "`#3` names no invocation",
        ),
        (
            event(r#"{"t":0,"file":{"path":"../../x","bytes":1}}"#),
            "t.jsonl",
            "t.jsonl:3:1",
            "leaves the app data dir",
        ),
        (
            event(r#"{"t":1e300,"stdout":"x"}"#),
            "t.jsonl",
            "t.jsonl:3:1",
            "out of range",
        ),
    ];
    for (trace, spec, at, what) in cases {
        let (sb, stderr) = trace_error(&trace, spec);
        assert!(
            stderr.contains(&format!("--> {}", sb.path().join(at).display())),
            "{at}: {stderr}"
        );
        assert_eq!(stderr.matches("t.jsonl").count(), 1, "{stderr}");
        assert!(stderr.contains(what), "{what}: {stderr}");
        assert!(stderr.contains("help: "), "{stderr}");
    }
}
