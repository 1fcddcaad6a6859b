//! Fuzzing the agy-harness binary: argv bytes, its environment's values, scenario files
//! and adapter configs never make it panic (exit 101, "panicked" on stderr) or abort.
//! Bad input ends with exit 2 and a located error; a run that starts ends on its own.

use crate::support::*;
use agy_protocol::env::{AGY_HARNESS_FAKE_AGY, AGY_HARNESS_SCENARIOS};
use proptest::prelude::*;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::time::Duration;

#[derive(Debug, Clone)]
struct Case {
    argv: Vec<Vec<u8>>,
    env: Vec<(&'static str, Vec<u8>)>,
    scenario: String,
    config: String,
}

/// One of `words`, or bytes that are not UTF-8.
fn word(words: &'static [&'static str]) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => proptest::sample::select(words).prop_map(|w| w.as_bytes().to_vec()),
        1 => proptest::collection::vec(1u8.., 0..8).prop_map(|b| [&[0xff][..], &b].concat()),
    ]
}

const VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "0.05",
    "1e300",
    "1e19",
    "nan",
    "inf",
    "\"1s\"",
    "\"9999999999h\"",
    "\"x\"",
    "true",
    "[]",
    "{}",
    "4294967296",
];
const BAD_SCALES: &[&str] = &["1e300", "1e19", "inf", "nan", "-1", "0", "x", ""];

fn value() -> impl Strategy<Value = String> {
    proptest::sample::select(VALUES).prop_map(str::to_string)
}

fn toml_lines(
    fixed: &'static [&'static str],
    keyed: &'static [&'static str],
) -> impl Strategy<Value = String> {
    let line = prop_oneof![
        proptest::sample::select(fixed).prop_map(str::to_string),
        (proptest::sample::select(keyed), value()).prop_map(|(k, v)| format!("{k} = {v}")),
        "\\PC{0,16}",
    ];
    proptest::collection::vec(line, 0..10).prop_map(|l| l.join("\n"))
}

fn scenario() -> impl Strategy<Value = String> {
    toml_lines(
        &[
            "[scenario]",
            "name = \"oneshot/x\"",
            "profile = \"oneshot\"",
            "profile = \"session\"",
            "[[op]]",
            "generate = { prompt = \"p\" }",
            "expect = { outcome = \"ok\" }",
            "[[agy.invocation]]",
            "steps = [{ exit = 0 }]",
            "steps = [{ exit = 256 }]",
            "[expect.journal]",
            "[acp]",
        ],
        &[
            "time_scale",
            "timeout",
            "reply_within",
            "invocations",
            "agy",
            "covers",
        ],
    )
}

fn config() -> impl Strategy<Value = String> {
    toml_lines(
        &[
            "[adapter]",
            "name = \"x\"",
            "command = [\"/bin/true\"]",
            "profiles = [\"oneshot\"]",
            "[timeouts]",
            "[errors]",
            "E = \"timeout\"",
            "[[expected_failure]]",
            "scenario = \"oneshot/x\"",
        ],
        &[
            "kill_grace_s",
            "reply",
            "slack",
            "startup",
            "scenario",
            "strict",
            "scales_timeout_s",
        ],
    )
}

fn argv() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let s = || Just(b"s.toml".to_vec());
    prop_oneof![
        (Just(b"check".to_vec()), s()).prop_map(|(a, b)| vec![a, b]),
        word(BAD_SCALES).prop_map(|x| vec![
            b"run".to_vec(),
            b"--time-scale".to_vec(),
            x,
            b"s.toml".to_vec()
        ]),
        word(&["0.05", "0.01"]).prop_map(|x| vec![
            b"run".to_vec(),
            b"--jobs".to_vec(),
            b"1".to_vec(),
            b"--adapter".to_vec(),
            b"a.toml".to_vec(),
            b"--time-scale".to_vec(),
            x,
            b"s.toml".to_vec(),
        ]),
        word(BAD_SCALES).prop_map(|x| vec![b"spikes".to_vec(), b"--time-scale".to_vec(), x]),
        word(BAD_SCALES).prop_map(|x| vec![b"fidelity".to_vec(), b"--time-scale".to_vec(), x]),
        proptest::collection::vec(
            word(&["run", "check", "--color", "never", "--jobs", "0", "--", "x"]),
            0..4
        ),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        argv(),
        proptest::collection::vec(
            prop_oneof![
                word(&["/no/such/fake-agy", ""]).prop_map(|v| (AGY_HARNESS_FAKE_AGY, v)),
                word(&["/no/such/dir", ""]).prop_map(|v| (AGY_HARNESS_SCENARIOS, v)),
                word(&["1", ""]).prop_map(|v| ("NO_COLOR", v)),
            ],
            0..2,
        ),
        scenario(),
        config(),
    )
        .prop_map(|(argv, env, scenario, config)| Case {
            argv,
            env,
            scenario,
            config,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn the_harness_never_panics_on_any_input(case in case()) {
        let t = TestDir::new();
        t.write("s.toml", &case.scenario);
        t.write("a.toml", &case.config);
        t.write("catalogue/s.toml", &case.scenario);
        let mut cmd = t.harness();
        // A bare `run` would judge the whole built-in catalogue, a minutes-long run on a
        // loaded machine that says nothing about panics: its catalogue is the case's
        // scenario, unless the case sets the variable itself.
        cmd.env(AGY_HARNESS_SCENARIOS, t.path().join("catalogue"));
        for (k, v) in &case.env {
            cmd.env(k, OsString::from_vec(v.clone()));
        }
        cmd.args(case.argv.iter().map(|a| OsString::from_vec(a.clone())));
        let out = run(cmd, Duration::from_secs(90));
        prop_assert_eq!(agy_test_support::panic_shown(&out), None);
    }
}

// Regression: `--time-scale 1e300` was accepted; every out-of-range scale is refused
// with exit 2, naming the option.
#[test]
fn an_out_of_range_time_scale_is_bad_input_naming_the_option() {
    let t = TestDir::new();
    for command in ["run", "spikes", "fidelity", "fuzz"] {
        for value in ["1e300", "1e19", "inf", "nan", "-1", "0"] {
            let mut cmd = t.harness();
            cmd.args([command, &format!("--time-scale={value}")]);
            let out = run(cmd, Duration::from_secs(60));
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command} {value}: {stderr}");
            assert!(
                stderr.contains("--time-scale"),
                "{command} {value}: {stderr}"
            );
            assert!(
                stderr.contains("out of range"),
                "{command} {value}: {stderr}"
            );
        }
    }
}
