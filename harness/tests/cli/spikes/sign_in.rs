//! `spikes --live` checks the sign-in before any probe spends the budget, as `run --live`
//! does, and S6a (a signed-out agy) is judged only when the check saw agy signed out.
//! fake-agy stands in for the live agy behind a wrapper that sets its knobs, since a
//! live run gives agy nothing of the harness's environment.

use super::support::{fake_agy, workspace};
use agy_protocol::env::{
    AGY_HARNESS_ALLOW_LIVE, FAKE_AGY_JOURNAL, FAKE_AGY_SIGNED_OUT, FAKE_AGY_TIME_SCALE,
};
use agy_protocol::journal::read_journal;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A live `agy`: fake-agy, signed in or out, journaling into `journal.jsonl`.
fn live_agy(dir: &Path, signed_out: bool) -> PathBuf {
    let bin = dir.join("agy");
    std::fs::write(
        &bin,
        format!(
            "#!/bin/sh\nexport {FAKE_AGY_JOURNAL}='{}' {FAKE_AGY_TIME_SCALE}=0.01 {FAKE_AGY_SIGNED_OUT}={}\nexec '{}' \"$@\"\n",
            dir.join("journal.jsonl").display(),
            u8::from(signed_out),
            fake_agy().display()
        ),
    )
    .expect("write");
    let mut perms = std::fs::metadata(&bin).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&bin, perms).expect("chmod");
    bin
}

/// `spikes --only S6 --live` of `agy` with `credentials`; returns the output and the
/// JSON report (when written).
fn spikes_live(
    dir: &Path,
    agy: &Path,
    credentials: &str,
) -> (std::process::Output, Option<serde_json::Value>) {
    let report = dir.join("report.json");
    let home = dir.join("home");
    std::fs::create_dir_all(&home).expect("home");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.args([
        "--color", "never", "spikes", "--only", "S6", "--live", "--budget", "20",
    ])
    .arg("--spikes")
    .arg(workspace().join("spikes"))
    .args(["--credentials", credentials, "--agy"])
    .arg(agy)
    .arg("--report")
    .arg(format!("json={}", report.display()))
    .env("HOME", &home)
    .env("CI", "true")
    .env(AGY_HARNESS_ALLOW_LIVE, "1");
    let out = agy_test_support::run_output(cmd, Duration::from_secs(120), "agy-harness");
    let json = std::fs::read_to_string(&report)
        .ok()
        .map(|t| serde_json::from_str(&t).expect("json report"));
    (out, json)
}

/// The argv after `agy` of every invocation the journal in `dir` holds.
fn invocations(dir: &Path) -> Vec<Vec<String>> {
    read_journal(&dir.join("journal.jsonl"))
        .expect("journal")
        .into_iter()
        .map(|r| r.argv.get(1..).unwrap_or_default().to_vec())
        .collect()
}

/// S6a's fact in the report of a live run of fake-agy, signed out or not, under
/// `credentials`; the folder holds the journal.
fn s6a_of(signed_out: bool, credentials: &str) -> (tempfile::TempDir, serde_json::Value) {
    let dir = tempfile::tempdir().expect("dir");
    let agy = live_agy(dir.path(), signed_out);
    let (out, report) = spikes_live(dir.path(), &agy, credentials);
    let stderr = agy_test_support::text(&out.stderr);
    let report = report.unwrap_or_else(|| panic!("no report: {stderr}"));
    let fact = report["facts"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["fact"] == "S6a.auth-required"))
        .unwrap_or_else(|| panic!("no S6a in {report:#}"))
        .clone();
    (dir, fact)
}

#[test]
fn a_signed_in_agy_under_credentials_none_stops_before_any_probe() {
    let dir = tempfile::tempdir().expect("dir");
    let agy = live_agy(dir.path(), false);
    let (out, report) = spikes_live(dir.path(), &agy, "none");
    let stderr = agy_test_support::text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("signed in"), "{stderr}");
    assert!(stderr.contains("keyring"), "{stderr}");
    assert!(report.is_none(), "no report of probes that never ran");
    let seen = invocations(dir.path());
    assert!(seen.contains(&vec!["models".to_string()]), "{seen:?}");
    assert!(
        seen.iter().all(|a| a == &["--version"] || a == &["models"]),
        "a probe ran: {seen:?}"
    );
}

#[test]
fn a_signed_out_agy_has_s6a_judged() {
    let (_dir, fact) = s6a_of(true, "none");
    assert_ne!(fact["verdict"], "unverified", "{fact:#}");
    assert!(
        !fact["observed"].as_array().is_none_or(Vec::is_empty),
        "{fact:#}"
    );
}

#[test]
fn a_signed_in_agy_under_credentials_copy_leaves_s6a_not_judged() {
    let (dir, fact) = s6a_of(false, "copy");
    assert_eq!(fact["verdict"], "unverified", "{fact:#}");
    let reason = fact["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("not judged"), "{reason}");
    assert!(reason.contains("signed in"), "{reason}");
    assert!(reason.contains("keyring"), "{reason}");
    // The signed-out probe spent nothing: the unknown-model and print-timeout probes ran.
    let turns: Vec<_> = invocations(dir.path())
        .into_iter()
        .filter(|a| a.first().is_some_and(|f| f == "-p"))
        .collect();
    assert!(
        turns
            .iter()
            .all(|a| a.iter().any(|x| x == "--model" || x == "--print-timeout")),
        "the signed-out probe ran: {turns:?}"
    );
}
