//! Fuzzing the reference adapter's binary: argv bytes, its environment's values and
//! the driver-protocol lines on stdin never make it panic (exit 101, "panicked" on
//! stderr) or abort; it ends when stdin closes.

use proptest::prelude::*;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::time::Duration;

#[derive(Debug, Clone)]
struct Case {
    argv: Vec<Vec<u8>>,
    env: Vec<(&'static str, Vec<u8>)>,
    stdin: Vec<Vec<u8>>,
}

/// One of `words`, or bytes that are not UTF-8.
fn word(words: &'static [&'static str]) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => proptest::sample::select(words).prop_map(|w| w.as_bytes().to_vec()),
        1 => proptest::collection::vec(1u8.., 0..8).prop_map(|b| [&[0xff][..], &b].concat()),
    ]
}

const ARGS: &[&str] = &[
    "--fault",
    "no-timeout",
    "x",
    "--list-faults",
    "--help",
    "--version",
    "",
];
const SCALES: &[&str] = &["0.01", "1e300", "1e19", "inf", "nan", "-1", "0", "x", ""];
const AGY: &[&str] = &["/bin/true", "/bin/false", "/no/such/agy", ""];
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "1e300",
    "1e19",
    "0.001",
    "\"x\"",
    "null",
    "4294967296",
];

fn line() -> impl Strategy<Value = Vec<u8>> {
    let op = proptest::sample::select(
        &[
            "hello", "generate", "open", "turn", "close", "shutdown", "cancel", "history", "x",
        ][..],
    );
    let n = proptest::sample::select(NUMBERS);
    prop_oneof![
        (op, n.clone(), n).prop_map(|(op, id, t)| format!(
            r#"{{"v":1,"id":{id},"op":"{op}","prompt":"p","aspect":"16:9","timeout_s":{t},"session":"s","text":"t","references":["/no/such.jpg"]}}"#
        ).into_bytes()),
        proptest::collection::vec(any::<u8>(), 0..40),
        "\\PC{0,30}".prop_map(String::into_bytes),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec(word(ARGS), 0..4),
        proptest::collection::vec(
            prop_oneof![
                word(SCALES).prop_map(|v| ("AGY_HARNESS_TIME_SCALE", v)),
                word(AGY).prop_map(|v| ("AGY_BIN", v)),
                word(&["", "/no/such/dir", "."]).prop_map(|v| ("AGY_DRIVER_STATE_DIR", v)),
                word(&["", "/no/such/dir"]).prop_map(|v| ("ANTIGRAVITY_APP_DATA_DIR", v)),
            ],
            0..3,
        ),
        proptest::collection::vec(line(), 0..5),
    )
        .prop_map(|(argv, env, stdin)| Case { argv, env, stdin })
}

fn run(case: &Case) -> Option<std::process::Output> {
    let dir = tempfile::tempdir().expect("temp");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-reference-adapter"));
    cmd.env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", dir.path())
        .env("AGY_DRIVER_WORK_DIR", dir.path())
        .env("AGY_BIN", "/bin/true")
        .env("AGY_HARNESS_TIME_SCALE", "0.01")
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (k, v) in &case.env {
        cmd.env(k, OsString::from_vec(v.clone()));
    }
    cmd.args(case.argv.iter().map(|a| OsString::from_vec(a.clone())));
    let child = cmd.spawn().expect("spawn the adapter");
    agy_test_support::feed_lines_and_wait(child, &case.stdin, Duration::from_secs(30))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn the_adapter_never_panics_on_any_input(case in case()) {
        let out = run(&case);
        prop_assert!(out.is_some(), "the adapter did not end within 30 s: {case:?}");
        let out = out.expect("checked");
        prop_assert_eq!(agy_test_support::panic_shown(&out), None);
    }
}
