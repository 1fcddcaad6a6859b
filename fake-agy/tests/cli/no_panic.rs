//! Fuzzing the fake-agy binary: argv bytes, `FAKE_AGY_*` values, script and trace
//! contents and stdin bytes never make it panic (exit 101, "panicked" on stderr) or
//! abort; every run ends, with a scripted code or the fake's own 70.

use crate::support::Sandbox;
use proptest::prelude::*;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::time::Duration;

/// One generated invocation.
#[derive(Debug, Clone)]
struct Case {
    argv: Vec<Vec<u8>>,
    env: Vec<(&'static str, Vec<u8>)>,
    script: Option<String>,
    trace: String,
    stdin: Vec<u8>,
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    // No NUL: no argv or environment can hold one.
    proptest::collection::vec(1u8.., 0..12)
}

/// One of `words`, or bytes that are not UTF-8.
fn word(words: &'static [&'static str]) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => proptest::sample::select(words).prop_map(|w| w.as_bytes().to_vec()),
        1 => bytes().prop_map(|b| [&[0xff][..], &b].concat()),
    ]
}

const FLAGS: &[&str] = &[
    "-p",
    "--prompt",
    "--output-format",
    "json",
    "stream-json",
    "text",
    "--input-format",
    "--print-timeout",
    "1ms",
    "0s",
    "-1s",
    "9999999999h",
    "--conversation",
    "--continue",
    "--model",
    "--dangerously-skip-permissions",
    "--add-dir",
    ".",
    "--version",
    "--help",
    "models",
    "status",
    "a picture of a cat, 16:9",
    "reply PONG",
    "",
    "-",
];

const SCALES: &[&str] = &["0", "0.001", "1e300", "1e19", "inf", "nan", "-1", "", "x"];
const VERSIONS: &[&str] = &[
    "1.2.16",
    "1.3.0",
    "0.0.1",
    "x",
    "",
    "99999999999999999999.0.0",
];

fn value() -> impl Strategy<Value = String> {
    proptest::sample::select(
        &[
            "0",
            "1",
            "-1",
            "70",
            "256",
            "2147483648",
            "1e300",
            "nan",
            "\"\"",
            "\"x\"",
            "\"1ms\"",
            "true",
            "{}",
            "[]",
            "\"ff fe\"",
            "\"t.jsonl#2\"",
            "\"t.jsonl#0\"",
            "\"../../x\"",
            "60000",
            "4294967295",
        ][..],
    )
    .prop_map(str::to_string)
}

fn step() -> impl Strategy<Value = String> {
    let key = proptest::sample::select(
        &[
            "exit",
            "sleep",
            "stdout",
            "stdout_raw",
            "stdout_hex",
            "stderr",
            "envelope",
            "init",
            "default",
            "trace",
            "close_stdout",
            "close_stdin",
            "read_line",
            "print_timeout",
            "replay_previous",
            "duplicate_result",
            "quota_exhausted",
            "deny",
            "late_step",
            "step_update",
            "image",
            "file",
            "question",
        ][..],
    );
    let table = proptest::collection::vec(
        (
            proptest::sample::select(
                &[
                    "width",
                    "height",
                    "count",
                    "path",
                    "text",
                    "hex",
                    "bytes",
                    "response",
                    "chunks",
                    "image_size",
                    "duration",
                    "status",
                    "usage",
                    "corrupt",
                ][..],
            ),
            value(),
        ),
        0..3,
    );
    prop_oneof![
        (key.clone(), value()).prop_map(|(k, v)| format!("{{ {k} = {v} }}")),
        (key, table).prop_map(|(k, kv)| {
            let inner: Vec<String> = kv.iter().map(|(a, b)| format!("{a} = {b}")).collect();
            format!("{{ {k} = {{ {} }} }}", inner.join(", "))
        }),
    ]
}

fn script() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        Just("[[invocation]]".to_string()),
        Just("[[turn]]".to_string()),
        Just("[[invocation.turn]]".to_string()),
        Just("[script]".to_string()),
        Just("times = \"always\"".to_string()),
        value().prop_map(|v| format!("times = {v}")),
        Just("when = { prompt_contains = \"PONG\" }".to_string()),
        proptest::collection::vec(step(), 0..4).prop_map(|s| format!("steps = [{}]", s.join(", "))),
        "\\PC{0,16}",
    ];
    proptest::collection::vec(line, 0..8).prop_map(|l| l.join("\n"))
}

fn trace() -> impl Strategy<Value = String> {
    let t = proptest::sample::select(&["0", "0.5", "1e300", "1e19", "-1", "\"x\""][..]);
    let event = prop_oneof![
        Just(r#"{"trace":1,"agy_version":"1.2.17","recorded":"2026-10-05","platform":"linux_amd64","source":"s"}"#.to_string()),
        Just(r#"{"invocation":{"argv":["agy","-p","x"]}}"#.to_string()),
        (t.clone(), "[a-z]{0,4}").prop_map(|(t, s)| format!(r#"{{"t":{t},"stdout":"{s}\n"}}"#)),
        (t.clone(), value()).prop_map(|(t, c)| format!(r#"{{"t":{t},"exit":{{"code":{c}}}}}"#)),
        (t, value(), value(), value()).prop_map(|(t, b, w, h)| format!(
            r#"{{"t":{t},"file":{{"path":"brain/x.jpg","bytes":{b},"width":{w},"height":{h}}}}}"#
        )),
        Just(r#"{"t":0,"stdin":"x\n"}"#.to_string()),
        "\\PC{0,16}",
    ];
    proptest::collection::vec(event, 0..6).prop_map(|l| l.join("\n"))
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec(word(FLAGS), 0..6),
        proptest::collection::vec(
            prop_oneof![
                word(SCALES).prop_map(|v| ("FAKE_AGY_TIME_SCALE", v)),
                word(VERSIONS).prop_map(|v| ("FAKE_AGY_VERSION", v)),
                word(&["1", "0", "yes"]).prop_map(|v| ("FAKE_AGY_SIGNED_OUT", v)),
                word(&["agy", "nope", ""]).prop_map(|v| ("FAKE_AGY_SCRIPT_TABLE", v)),
                word(&["0s", "1ms", "soon"]).prop_map(|v| ("FAKE_AGY_TURN_DURATION", v)),
            ],
            0..3,
        ),
        proptest::option::of(script()),
        trace(),
        proptest::collection::vec(any::<u8>(), 0..64),
    )
        .prop_map(|(argv, env, script, trace, stdin)| Case {
            argv,
            env,
            script,
            trace,
            stdin,
        })
}

/// Runs one case; the output when the process ended, else `None` (it was killed).
fn run(case: &Case) -> Option<std::process::Output> {
    use std::io::Write;
    let sb = Sandbox::new();
    let mut cmd = sb.std_cmd();
    // Delays stay short unless a case sets its own scale.
    cmd.env("FAKE_AGY_TIME_SCALE", "0.001")
        .env("FAKE_AGY_TURN_DURATION", "0s")
        .env("FAKE_AGY_IMAGE_DURATION", "0s");
    for (k, v) in &case.env {
        cmd.env(k, OsString::from_vec(v.clone()));
    }
    if let Some(text) = &case.script {
        cmd.env("FAKE_AGY_SCRIPT", sb.script(text));
        std::fs::write(sb.path().join("t.jsonl"), &case.trace).expect("trace");
    }
    cmd.args(case.argv.iter().map(|a| OsString::from_vec(a.clone())));
    let mut child = cmd.spawn().expect("spawn fake-agy");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(&case.stdin);
    }
    agy_test_support::try_wait_output(child, Duration::from_secs(20))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn fake_agy_never_panics_on_any_input(case in case()) {
        let out = run(&case);
        prop_assert!(out.is_some(), "fake-agy did not end within 20 s: {case:?}");
        let out = out.expect("checked");
        prop_assert_eq!(agy_test_support::panic_shown(&out), None);
    }
}
