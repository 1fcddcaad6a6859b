//! `agy-harness fuzz` against the real reference adapter on the real fake-agy: no
//! finding on the correct adapter; a fault switch found from a fixed seed, its shrunk
//! scenario failing that fault and passing the correct adapter. The exhaustive run over
//! every fault is `scripts/fuzz-faults` (docs/fuzz.md).

use crate::support::*;
use std::path::Path;
use std::time::Duration;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn harness() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(workspace()).args(["--color", "never"]);
    cmd
}

fn fuzz(
    t: &TestDir,
    profile: &str,
    seed: &str,
    cases: &str,
    fault: Option<&str>,
) -> (Option<i32>, serde_json::Value) {
    let report = t.path().join(format!("{profile}-{seed}.json"));
    let mut cmd = harness();
    cmd.args([
        "fuzz",
        "--profile",
        profile,
        "--seed",
        seed,
        "--cases",
        cases,
        "--jobs",
        "2",
    ])
    .arg("--out")
    .arg(t.path().join("found"))
    .arg("--report-json")
    .arg(&report);
    if let Some(f) = fault {
        cmd.args(["--fault", f]);
    }
    let out = run(cmd, Duration::from_secs(600));
    let json = std::fs::read_to_string(&report)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_else(|| {
            panic!(
                "no report; stdout:\n{}\nstderr:\n{}",
                text(&out.stdout),
                text(&out.stderr)
            )
        });
    (out.status.code(), json)
}

#[test]
fn the_correct_adapter_violates_no_oneshot_invariant() {
    let t = TestDir::new();
    let (code, json) = fuzz(&t, "oneshot", "3", "40", None);
    assert_eq!(code, Some(0), "{json:#}");
    assert_eq!(json["cases_run"], 40, "{json:#}");
    assert_eq!(json["violations"].as_array().map(Vec::len), Some(0));
}

#[test]
fn the_correct_adapter_violates_no_session_invariant() {
    let t = TestDir::new();
    let (code, json) = fuzz(&t, "session", "3", "40", None);
    assert_eq!(code, Some(0), "{json:#}");
    assert_eq!(json["cases_run"], 40, "{json:#}");
}

/// Fuzzes `fault` from `seed`; the finding must come within `within` cases and its
/// shrunk scenario must fail the fault and pass the correct adapter.
fn finds(profile: &str, fault: &str, seed: &str, within: u64) {
    let t = TestDir::new();
    let (code, json) = fuzz(&t, profile, seed, &within.to_string(), Some(fault));
    assert_eq!(code, Some(1), "{json:#}");
    let v = &json["violations"][0];
    assert!(v["case"].as_u64().is_some_and(|c| c <= within), "{json:#}");
    let scenario = v["scenario"].as_str().expect("scenario path");
    let mut check = harness();
    check.args(["check", scenario]);
    let check = run(check, Duration::from_secs(60));
    assert!(check.status.success(), "{}", text(&check.stderr));
    let mut with_fault = harness();
    with_fault.args(["run", scenario, "--fault", fault]);
    let with_fault = run(with_fault, Duration::from_secs(120));
    assert_eq!(
        with_fault.status.code(),
        Some(1),
        "{}",
        text(&with_fault.stdout)
    );
    let mut correct = harness();
    correct.args(["run", scenario]);
    let correct = run(correct, Duration::from_secs(120));
    assert_eq!(correct.status.code(), Some(0), "{}", text(&correct.stdout));
}

#[test]
fn fuzz_finds_the_replay_filter_fault_from_seed_1_within_10_cases() {
    finds("session", "no-replay-filter", "1", 10);
}

#[test]
fn fuzz_finds_the_sigkill_fault_from_seed_1_within_10_cases() {
    finds("session", "sigterm-without-sigkill", "1", 10);
}
