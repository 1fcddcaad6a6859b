//! `matrix --uncertain`: a column whose version the public record leaves uncertain on
//! some behaviour runs under each side of it, so an adapter that depends on one side
//! fails there, with the side named.

use crate::support::*;
use assert_cmd::Command;

/// A text scenario that needs agy to know the Gemini 3.8 models: agy 1.1.18 did not
/// list them, 1.1.27 did, so at 1.1.22 the record does not say (`Gemini38Family`).
const NEEDS_GEMINI_38: &str = r#"[scenario]
name = "text/asks-gemini-3-8"
profile = "text"

[[op]]
ask = { prompt = "say hi", model = "gemini-3.8-flash-high", timeout_s = 30 }
expect = { outcome = "success" }
"#;

/// `agy-harness matrix --versions V --uncertain SIDE EXTRA… SCENARIO`: its exit code and
/// stdout.
fn matrix(t: &TestDir, version: &str, side: &str, extra: &[&str]) -> (i32, String) {
    let scenario = t.write("asks.toml", NEEDS_GEMINI_38);
    let out = Command::from_std(t.harness())
        .args(["--color", "never", "matrix", "--versions", version])
        .args(["--uncertain", side])
        .args(extra)
        .arg(scenario)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn each_side_of_an_uncertain_behaviour_is_run_and_the_failing_side_is_named() {
    let t = TestDir::new();
    let (after, stdout) = matrix(&t, "1.1.22", "after", &[]);
    assert_eq!(after, 0, "the 3.8 models on the after side: {stdout}");
    let (before, stdout) = matrix(&t, "1.1.22", "before", &[]);
    assert_eq!(before, 1, "rejected on the before side: {stdout}");

    let json = t.path().join("matrix.json");
    let report = format!("json={}", json.display());
    let (both, stdout) = matrix(&t, "1.1.22", "both", &["--report", &report]);
    assert_eq!(both, 1, "one side fails the cell: {stdout}");
    assert!(stdout.contains("Gemini38Family"), "{stdout}");
    let table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json report")).expect("json");
    let why = table["rows"][0]["failures"]["1.1.22"]
        .as_str()
        .unwrap_or_default();
    assert!(why.contains("FAKE_AGY_UNCERTAIN=before"), "{table}");
    assert!(!why.contains("FAKE_AGY_UNCERTAIN=after"), "{table}");
    assert!(
        table["uncertain"]["1.1.22"]
            .as_array()
            .is_some_and(|b| b.iter().any(|n| n == "Gemini38Family")),
        "{table}"
    );
}

#[test]
fn a_version_the_record_settles_runs_once_under_both() {
    let t = TestDir::new();
    let (code, stdout) = matrix(&t, "1.3.2", "both", &[]);
    assert_eq!(code, 0, "the 3.8 models are recorded at 1.3.2: {stdout}");
    assert!(
        !stdout.contains("both sides"),
        "nothing is uncertain at 1.3.2: {stdout}"
    );
}
