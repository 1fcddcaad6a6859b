//! `agy-harness run --agy PATH --live`: the success-path scenarios against a binary
//! standing in for a real agy (fake-agy behind the live wrapper), the budget, and the
//! guards that keep a real agy from running by accident.

use crate::support::*;
use agy_protocol::env::{
    AGY_HARNESS_ALLOW_LIVE, AGY_HARNESS_LIVE_AGY, AGY_HARNESS_LIVE_BUDGET,
    AGY_HARNESS_LIVE_BUDGET_FILE, FAKE_AGY_JOURNAL, FAKE_AGY_STATE_DIR,
};
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
        // fake-agy is signed in: `--credentials none` would stop at the sign-in check.
        // Its HOME is the test's folder.
        .args(["--credentials", "home"])
        .env("HOME", report.parent().unwrap_or(Path::new(".")))
        .env("CI", "true")
        .env(AGY_HARNESS_ALLOW_LIVE, "1");
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
    // One invocation for the sign-in check, one for a scenario.
    let out = run(live(2, &report), Duration::from_secs(120));
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
        stdout.contains("live agy invocations used: 2 of 2"),
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
    in_ci.env_remove(AGY_HARNESS_ALLOW_LIVE);
    let out = run(in_ci, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(&format!("{AGY_HARNESS_ALLOW_LIVE}=1")),
        "{}",
        text(&out.stderr)
    );
}

/// agy-harness started as the live wrapper (`argv[0]` = `agy`) in front of `real`.
fn wrapper(t: &TestDir, real: &Path, budget: &str) -> std::process::Command {
    let link = t.path().join("bin").join("agy");
    std::fs::create_dir_all(t.path().join("bin")).expect("bin");
    if !link.exists() {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_agy-harness"), &link).expect("link");
    }
    let mut cmd = std::process::Command::new(link);
    cmd.env(AGY_HARNESS_LIVE_AGY, real)
        .env(AGY_HARNESS_LIVE_BUDGET, budget)
        .env(AGY_HARNESS_LIVE_BUDGET_FILE, t.path().join("used"))
        .env_remove(FAKE_AGY_JOURNAL)
        .env_remove(FAKE_AGY_STATE_DIR)
        .stdin(std::process::Stdio::null());
    cmd
}

// Regression: the wrapper panicked on an argument that is not UTF-8.
#[test]
fn the_live_wrapper_passes_argument_bytes_through_unchanged() {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    let t = TestDir::new();
    let seen = t.path().join("seen");
    let real = t.write(
        "real-agy",
        &format!("#!/bin/sh\nprintf '%s' \"$2\" > '{}'\n", seen.display()),
    );
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut cmd = wrapper(&t, &real, "1");
    cmd.arg("-p").arg(std::ffi::OsStr::from_bytes(b"a\xffb"));
    let out = run(cmd, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("panicked"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&seen).expect("seen"), b"a\xffb");
}

// Regression: the wrapper charged the budget before it knew it could run agy.
#[test]
fn the_live_wrapper_checks_its_settings_before_spending_the_budget() {
    let t = TestDir::new();
    let missing = t.path().join("no-such-agy");
    for (real, budget) in [(missing.as_path(), "5"), (Path::new("/bin/true"), "many")] {
        let mut cmd = wrapper(&t, real, budget);
        cmd.args(["-p", "x"]);
        let out = run(cmd, Duration::from_secs(30));
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("was refused"),
            "{}",
            text(&out.stderr)
        );
        assert!(!t.path().join("used").exists(), "an invocation was charged");
    }
}

// Regression: the wrapper read stdin with an unbounded `read_until` and journalled a lossy
// copy of every line. agy must get the client's bytes unchanged; the journal keeps the
// UTF-8 lines and never a converted copy of a bad one, and the lines after it.
#[test]
fn the_live_wrapper_forwards_stdin_bytes_and_journals_only_its_utf8_lines() {
    use std::os::unix::fs::PermissionsExt;
    let t = TestDir::new();
    let seen = t.path().join("seen");
    let real = t.write(
        "real-agy",
        &format!("#!/bin/sh\ncat > '{}'\n", seen.display()),
    );
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let input: &[u8] = b"one\n\xff\xfe bad\nthree\nlast without newline";
    let input_file = t.path().join("stdin");
    std::fs::write(&input_file, input).expect("stdin");
    let journal = t.path().join("journal.jsonl");
    let mut cmd = wrapper(&t, &real, "1");
    cmd.env(FAKE_AGY_JOURNAL, &journal)
        .args(["--input-format", "stream-json"])
        .stdin(std::fs::File::open(&input_file).expect("open stdin"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    // Not `run`, which gives the command an empty stdin.
    let out = wait_exit(cmd.spawn().expect("spawn"), Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&seen).expect("seen"), input);
    let records = agy_protocol::journal::read_journal(&journal).expect("journal");
    let record = records.last().expect("a record");
    let lines: Vec<&str> = record.stdin.lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(lines, ["one", "three", "last without newline"]);
    assert_eq!(record.stdin.bytes, input.len() as u64);
    assert!(record.stdin.closed_us.is_some());
}

/// An adapter config for the reference adapter implementing only `profile`.
fn reference_config(t: &TestDir, profile: &str) -> PathBuf {
    let reference =
        Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("agy-reference-adapter");
    t.write(
        "agy-adapter.toml",
        &format!(
            "[adapter]\nname = \"a {profile} client\"\ncommand = [{:?}]\nprofiles = [\"{profile}\"]\n",
            reference.display().to_string()
        ),
    )
}

// Regression: a text adapter's live run selected no scenario of its profile, spent the
// budget on the sign-in check and reported "0 passed, 0 failed, 3 skipped", exit 0.
#[test]
fn a_text_adapters_live_run_runs_the_live_scenarios_of_its_profile() {
    let t = TestDir::new();
    let report = t.path().join("r.json");
    let config = reference_config(&t, "text");
    let mut cmd = live(10, &report);
    cmd.arg("--adapter").arg(&config);
    let stdout = run_ok(cmd, Duration::from_secs(120));
    let ran: Vec<(String, String)> = statuses(&report)
        .into_iter()
        .filter(|(_, s)| s != "skipped")
        .collect();
    assert!(!ran.is_empty(), "{stdout}");
    assert!(
        ran.iter()
            .all(|(n, s)| n.starts_with("text/") && s == "passed"),
        "{ran:?}"
    );
}

#[test]
fn a_live_run_with_no_live_scenario_of_the_adapters_profiles_is_refused_like_an_empty_run() {
    let t = TestDir::new();
    let report = t.path().join("r.json");
    let config = reference_config(&t, "acp");
    let mut cmd = live(10, &report);
    cmd.arg("--adapter").arg(&config);
    let out = run(cmd, Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr)
            .contains("no selected scenario of the adapter's profiles (`acp`) is tagged `live`"),
        "{}",
        text(&out.stderr)
    );
    assert!(!report.exists(), "nothing ran, no report");
}
