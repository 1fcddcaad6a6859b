//! The catalogue against the real reference adapter on the real fake-agy: the correct
//! adapter conforms, and every fault variant is caught (bug-detection score 100%).
//! Binaries: next to `agy-harness` (built by `cargo nextest run --workspace`), or
//! `AGY_HARNESS_FAKE_AGY` / `AGY_HARNESS_REFERENCE_ADAPTER`.

use crate::support::*;
use std::path::Path;
use std::time::Duration;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn real_harness() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(workspace()).args(["--color", "never"]);
    cmd
}

#[test]
fn catalogue_passes_the_reference_adapter() {
    let t = TestDir::new();
    let report = t.path().join("report.json");
    let mut cmd = real_harness();
    cmd.arg("run")
        .arg("--report")
        .arg(format!("json={}", report.display()));
    let out = run(cmd, Duration::from_secs(300));
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
    let results = json["results"].as_array().expect("results");
    assert!(results.len() >= 20, "{} results", results.len());
    for r in results {
        let name = r["name"].as_str().unwrap_or_default();
        let want = if NOT_APPLICABLE_TO_THE_REFERENCE.contains(&name) {
            "not_applicable"
        } else {
            "passed"
        };
        assert_eq!(r["status"], want, "{name}: {r:#}");
    }
}

/// Scenarios whose premise the reference adapter does not meet by design: it passes
/// its own `--print-timeout`, and this one judges runs on agy's default.
const NOT_APPLICABLE_TO_THE_REFERENCE: &[&str] =
    &["text/partial-answer-at-agy-s-default-print-timeout-is-not-an-answer"];

#[test]
fn every_fault_variant_is_caught_with_scenario_and_expectation() {
    let mut cmd = real_harness();
    cmd.arg("faults");
    let out = run(cmd, Duration::from_secs(900));
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{}",
        text(&out.stderr)
    );
    // Every fault of every profile (6 oneshot, 6 session, 4 acp) is scored and caught.
    let score = stdout
        .lines()
        .find_map(|l| l.strip_prefix("bug-detection score: "))
        .unwrap_or_else(|| panic!("no score line:\n{stdout}"));
    let (caught, total) = score
        .split_once(' ')
        .and_then(|(frac, _)| frac.split_once('/'))
        .and_then(|(c, t)| Some((c.parse::<u32>().ok()?, t.parse::<u32>().ok()?)))
        .unwrap_or_else(|| panic!("bad score line: {score}"));
    assert!(caught == total && total >= 16, "{stdout}");
    assert!(!stdout.contains("not scored"), "{stdout}");
    for line in stdout
        .lines()
        .filter(|l| l.starts_with("    ") && l.contains(" — "))
    {
        // `    <scenario> — <place>: <expectation> (expected …, observed …)`
        assert!(
            line.contains('/') && line.contains(": ") && line.contains("expected"),
            "{line}"
        );
    }
}

#[test]
fn a_broken_fake_is_named_as_such() {
    let t = TestDir::new();
    let scenario = t.write(
        "broken.toml",
        "[scenario]\nname = \"oneshot/broken-fake\"\nprofile = \"oneshot\"\n[[agy.invocation]]\nsteps = [{ trace = \"no-such-trace.jsonl\" }]\n[[op]]\ngenerate = { prompt = \"p\", timeout_s = 10 }\nexpect = { outcome = \"success\" }\n",
    );
    let mut cmd = real_harness();
    cmd.arg("run").arg(&scenario);
    let out = run(cmd, Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let first = stdout
        .lines()
        .find(|l| l.starts_with("    ") && !l.starts_with("      "))
        .unwrap_or_default();
    assert_eq!(first.trim(), "invocation 1: fake-agy works", "{stdout}");
}

#[test]
fn scenario_naming_a_library_script_runs_it() {
    let t = TestDir::new();
    // A script is named inside the scenario's repository (here its folder).
    let library = workspace().join("scenarios/agy-scripts/print-timeout-as-success.toml");
    std::fs::create_dir_all(t.path().join("agy-scripts")).expect("library dir");
    std::fs::copy(
        &library,
        t.path().join("agy-scripts/print-timeout-as-success.toml"),
    )
    .expect("copy the library script");
    let scenario = t.write(
        "from-library.toml",
        "[scenario]\nname = \"oneshot/from-library\"\nprofile = \"oneshot\"\nscript = \"agy-scripts/print-timeout-as-success.toml\"\n[[op]]\ngenerate = { prompt = \"p\", timeout_s = 1 }\nexpect = { outcome = \"timeout\", retryable = true }\n",
    );
    let mut cmd = real_harness();
    cmd.arg("run").arg(&scenario);
    let out = run(cmd, Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}
