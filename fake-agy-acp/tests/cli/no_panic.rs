//! Fuzzing the fake-agy-acp binary: argv bytes, `FAKE_AGY_*` values, ACP script
//! contents and ACP frames on stdin never make it panic (exit 101, "panicked" on
//! stderr) or abort; it ends when stdin closes.

use crate::support::agent_bin;
use agy_protocol::env::{
    FAKE_AGY_ACP_JOURNAL, FAKE_AGY_ACP_SCRIPT, FAKE_AGY_ACP_SCRIPT_TABLE, FAKE_AGY_ACP_VERSION,
    FAKE_AGY_TIME_SCALE,
};
use proptest::prelude::*;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::time::Duration;

#[derive(Debug, Clone)]
struct Case {
    argv: Vec<Vec<u8>>,
    env: Vec<(&'static str, Vec<u8>)>,
    script: Option<String>,
    stdin: Vec<Vec<u8>>,
}

/// One of `words`, or bytes that are not UTF-8 (never NUL: no argv or environment
/// can hold one).
fn word(words: &'static [&'static str]) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => proptest::sample::select(words).prop_map(|w| w.as_bytes().to_vec()),
        1 => proptest::collection::vec(1u8.., 0..8).prop_map(|b| [&[0xff][..], &b].concat()),
    ]
}

const ARGS: &[&str] = &["--help", "--version", "-V", "--acp", "x", ""];
const SCALES: &[&str] = &["0", "0.001", "1e300", "1e19", "inf", "nan", "-1", "x", ""];
const VERSIONS: &[&str] = &["agy_acp_server_1.1.1", "1.3.0", "x", ""];
const VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "70",
    "300",
    "\"\"",
    "\"x\"",
    "\"1ms\"",
    "true",
    "{}",
    "[]",
    "\"end_turn\"",
    "\"kill\"",
    "\"required\"",
    "\"ignore\"",
];

fn script() -> impl Strategy<Value = String> {
    let key = proptest::sample::select(
        &[
            "default",
            "text",
            "thought",
            "tool_call",
            "tool_update",
            "permission",
            "usage",
            "commands",
            "update",
            "raw",
            "stderr",
            "sleep",
            "respond",
            "exit",
            "version",
            "start",
            "auth",
            "cancel",
            "replay",
            "times",
        ][..],
    );
    let value = proptest::sample::select(VALUES);
    let line = prop_oneof![
        proptest::sample::select(&["[agent]", "[load]", "[resume]", "[[prompt]]"][..])
            .prop_map(str::to_string),
        (key.clone(), value.clone()).prop_map(|(k, v)| format!("{k} = {v}")),
        proptest::collection::vec((key, value), 0..4).prop_map(|steps| {
            let steps: Vec<String> = steps
                .iter()
                .map(|(k, v)| format!("{{ {k} = {v} }}"))
                .collect();
            format!("steps = [{}]", steps.join(", "))
        }),
        "\\PC{0,16}",
    ];
    proptest::collection::vec(line, 0..8).prop_map(|l| l.join("\n"))
}

fn frame() -> impl Strategy<Value = Vec<u8>> {
    let method = proptest::sample::select(
        &[
            "initialize",
            "authenticate",
            "session/new",
            "session/load",
            "session/prompt",
            "session/cancel",
            "session/set_mode",
            "x",
        ][..],
    );
    let id = proptest::sample::select(
        &["1", "-1", "\"a\"", "null", "1e300", "18446744073709551616"][..],
    );
    prop_oneof![
        (method, id).prop_map(|(m, id)| format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{m}","params":{{"protocolVersion":1,"cwd":"/","mcpServers":[],"sessionId":"s","prompt":[{{"type":"text","text":"hi"}}]}}}}"#
        ).into_bytes()),
        proptest::collection::vec(any::<u8>(), 0..40),
        "\\PC{0,30}".prop_map(String::into_bytes),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec(word(ARGS), 0..3),
        proptest::collection::vec(
            prop_oneof![
                word(SCALES).prop_map(|v| (FAKE_AGY_TIME_SCALE, v)),
                word(VERSIONS).prop_map(|v| (FAKE_AGY_ACP_VERSION, v)),
                word(&["acp", "nope", ""]).prop_map(|v| (FAKE_AGY_ACP_SCRIPT_TABLE, v)),
            ],
            0..3,
        ),
        proptest::option::of(script()),
        proptest::collection::vec(frame(), 0..5),
    )
        .prop_map(|(argv, env, script, stdin)| Case {
            argv,
            env,
            script,
            stdin,
        })
}

fn run(case: &Case) -> Option<std::process::Output> {
    let dir = tempfile::tempdir().expect("temp");
    let mut cmd = std::process::Command::new(agent_bin());
    cmd.env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", dir.path())
        .env(FAKE_AGY_TIME_SCALE, "0.001")
        .env(FAKE_AGY_ACP_JOURNAL, dir.path().join("acp.jsonl"))
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (k, v) in &case.env {
        cmd.env(k, OsString::from_vec(v.clone()));
    }
    if let Some(text) = &case.script {
        let path = dir.path().join("acp.toml");
        std::fs::write(&path, text).expect("script");
        cmd.env(FAKE_AGY_ACP_SCRIPT, path);
    }
    cmd.args(case.argv.iter().map(|a| OsString::from_vec(a.clone())));
    let child = cmd.spawn().expect("spawn fake-agy-acp");
    agy_test_support::feed_lines_and_wait(child, &case.stdin, Duration::from_secs(30))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn fake_agy_acp_never_panics_on_any_input(case in case()) {
        let out = run(&case);
        prop_assert!(out.is_some(), "fake-agy-acp did not end within 30 s: {case:?}");
        let out = out.expect("checked");
        prop_assert_eq!(agy_test_support::panic_shown(&out), None);
    }
}

// Regression: a time scale of `1e300` was accepted and overflowed every delay.
#[test]
fn an_out_of_range_time_scale_is_the_fakes_own_error() {
    for value in ["1e300", "1e19", "inf", "nan", "-1"] {
        let dir = tempfile::tempdir().expect("temp");
        let out = std::process::Command::new(agent_bin())
            .env_clear()
            .env("HOME", dir.path())
            .env(FAKE_AGY_TIME_SCALE, value)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(70), "{value}: {stderr}");
        assert!(stderr.contains(FAKE_AGY_TIME_SCALE), "{value}: {stderr}");
        assert!(stderr.contains("from 0 to 1000"), "{value}: {stderr}");
    }
}

// Regression: an argument that is not UTF-8 panicked the agent (`std::env::args`).
#[test]
fn an_argument_that_is_not_utf8_does_not_panic() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("temp");
    let out = std::process::Command::new(agent_bin())
        .env_clear()
        .env("HOME", dir.path())
        .arg(std::ffi::OsStr::from_bytes(b"--\xff"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
