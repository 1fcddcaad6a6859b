//! `agy-harness run --agy PATH --live`: the success-path scenarios against a binary
//! standing in for a real agy (fake-agy behind the live wrapper), the budget, and the
//! guards that keep a real agy from running by accident.

use crate::support::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn fake_agy() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("fake-agy")
}

fn live(budget: u32, report: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(workspace())
        .args([
            "--color",
            "never",
            "run",
            "--live",
            "--budget",
            &budget.to_string(),
        ])
        .arg("--agy")
        .arg(fake_agy())
        .arg("--report")
        .arg(format!("json={}", report.display()))
        .env("CI", "true")
        .env("AGY_HARNESS_ALLOW_LIVE", "1");
    cmd
}

fn statuses(report: &Path) -> Vec<(String, String)> {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).expect("report")).expect("json");
    json["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or_default().to_string(),
                r["status"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_success_paths_pass_behind_the_live_wrapper_and_only_they_run() {
    let t = TestDir::new();
    let report = t.path().join("r.json");
    let out = run(live(50, &report), Duration::from_secs(120));
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    let results = statuses(&report);
    assert!(results.len() >= 3, "{results:?}");
    assert!(results.iter().all(|(_, s)| s == "passed"), "{results:?}");
    // Only scenarios tagged `live`: never a fault injection.
    assert!(
        !results
            .iter()
            .any(|(n, _)| n.contains("timeout") || n.contains("quota") || n.contains("sigterm")),
        "{results:?}"
    );
    assert!(stdout.contains("live agy invocations used:"), "{stdout}");
}

#[test]
fn scenarios_past_the_budget_are_skipped_not_failed() {
    let t = TestDir::new();
    let report = t.path().join("r.json");
    let out = run(live(1, &report), Duration::from_secs(120));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let results = statuses(&report);
    assert_eq!(
        results.iter().filter(|(_, s)| s == "passed").count(),
        1,
        "{results:?}"
    );
    assert!(
        results.iter().filter(|(_, s)| s == "skipped").count() >= 2,
        "{results:?}"
    );
    assert!(
        stdout.contains("live agy invocations used: 1 of 1"),
        "{stdout}"
    );
}

#[test]
fn a_real_binary_needs_live_and_in_ci_the_allow_variable() {
    let t = TestDir::new();
    let mut without_live = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    without_live
        .current_dir(workspace())
        .args(["run", "--agy"])
        .arg(fake_agy());
    let out = run(without_live, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("spends your quota"),
        "{}",
        text(&out.stderr)
    );
    let mut in_ci = live(5, &t.path().join("r.json"));
    in_ci.env_remove("AGY_HARNESS_ALLOW_LIVE");
    let out = run(in_ci, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("AGY_HARNESS_ALLOW_LIVE=1"),
        "{}",
        text(&out.stderr)
    );
}
