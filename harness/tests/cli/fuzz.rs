//! `agy-harness fuzz` against the real reference adapter on the real fakes: no finding
//! on the correct adapter over a fixed-seed sample per profile; a fault switch found
//! from a fixed seed, its shrunk scenario failing that fault and passing the correct
//! adapter; bad input is exit 2. The exhaustive run over every fault is
//! `scripts/fuzz-faults`, the 2,000-case runs and the speed figures are in docs/fuzz.md.

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
    ])
    .arg("--out")
    .arg(t.path().join("found"))
    .arg(format!("--report=json={}", report.display()));
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

fn no_violation(profile: &str) {
    let t = TestDir::new();
    let (code, json) = fuzz(&t, profile, "3", "60", None);
    assert_eq!(code, Some(0), "{json:#}");
    assert_eq!(json["cases_run"], 60, "{json:#}");
    assert_eq!(json["violations"].as_array().map(Vec::len), Some(0));
}

#[test]
fn the_correct_adapter_violates_no_oneshot_invariant() {
    no_violation("oneshot");
}

#[test]
fn the_correct_adapter_violates_no_session_invariant() {
    no_violation("session");
}

#[test]
fn the_correct_adapter_violates_no_acp_invariant() {
    no_violation("acp");
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
    let run_it = |fault: Option<&str>| {
        let mut cmd = harness();
        cmd.args(["run", scenario]);
        if let Some(f) = fault {
            cmd.args(["--fault", f]);
        }
        let out = run(cmd, Duration::from_secs(120));
        (out.status.code(), text(&out.stdout))
    };
    // Both runs at once: the faulty one mostly waits out its bound.
    let (faulty, correct) = std::thread::scope(|s| {
        let faulty = s.spawn(|| run_it(Some(fault)));
        let correct = run_it(None);
        (faulty.join().expect("the faulty run"), correct)
    });
    assert_eq!(faulty.0, Some(1), "{}", faulty.1);
    assert_eq!(correct.0, Some(0), "{}", correct.1);
}

#[test]
fn fuzz_finds_the_replay_filter_fault_from_seed_1_within_10_cases() {
    finds("session", "no-replay-filter", "1", 10);
}

#[test]
fn fuzz_finds_the_sigkill_fault_from_seed_1_within_10_cases() {
    finds("session", "sigterm-without-sigkill", "1", 10);
}

#[test]
fn fuzz_finds_the_acp_replay_appending_fault_from_seed_1_within_20_cases() {
    finds("acp", "acp-appends-load-replay", "1", 20);
}

#[test]
fn fuzz_finds_the_acp_resend_fault_from_seed_1_within_20_cases() {
    finds("acp", "acp-resends-last-prompt", "1", 20);
}

#[test]
fn bad_fuzz_options_are_exit_2() {
    let t = TestDir::new();
    for args in [
        vec!["--report", "junit=x.xml"],
        vec!["--report", "json"],
        vec!["--time-budget", "soon"],
        vec!["--cases", "0"],
        vec!["--jobs", "0"],
        vec!["--fault", "no-such-fault"],
    ] {
        let mut cmd = harness();
        cmd.args(["fuzz", "--profile", "oneshot", "--cases", "1"])
            .arg("--out")
            .arg(t.path().join("found"))
            .args(&args);
        let out = run(cmd, Duration::from_secs(60));
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}
