//! The `spikes` command line: bad input, live guards, budget.

use super::support::{fake_agy, workspace, TIME_SCALE};
use agy_protocol::env::{AGY_HARNESS_ALLOW_LIVE, FAKE_AGY_SCRIPT, FAKE_AGY_VERSION};
use assert_cmd::Command;
use predicates::prelude::*;
use std::path::Path;

fn spikes() -> Command {
    let mut cmd = Command::cargo_bin("agy-harness").expect("agy-harness binary");
    cmd.arg("spikes")
        .arg("--spikes")
        .arg(workspace().join("spikes"))
        .arg("--fake-agy")
        .arg(fake_agy())
        .arg("--time-scale")
        .arg(TIME_SCALE.to_string())
        .arg("--color")
        .arg("never")
        .env_remove("CI")
        .env_remove(AGY_HARNESS_ALLOW_LIVE);
    cmd
}

#[test]
fn the_current_folders_spikes_are_announced() {
    // Regression: `./spikes` of the current folder was run without a word.
    let dir = tempfile::tempdir().expect("dir");
    let here = dir.path().join("spikes");
    std::fs::create_dir(&here).expect("spikes dir");
    std::fs::copy(workspace().join("spikes/S1.toml"), here.join("S1.toml")).expect("copy");
    let mut cmd = Command::cargo_bin("agy-harness").expect("agy-harness binary");
    cmd.current_dir(dir.path())
        .args(["spikes", "--only", "S9", "--color", "never"])
        .env_remove(agy_protocol::env::AGY_HARNESS_SPIKES)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "note: running the spike files of `spikes` in the current folder",
        ));
}

#[test]
fn a_spikes_folder_without_spike_files_does_not_replace_the_built_in_spikes() {
    // Regression: an unrelated `./spikes` folder ran no spike: 0 facts, exit 0.
    let dir = tempfile::tempdir().expect("dir");
    std::fs::create_dir(dir.path().join("spikes")).expect("spikes dir");
    std::fs::write(dir.path().join("spikes/notes.md"), "# our own spikes\n").expect("notes");
    let mut cmd = Command::cargo_bin("agy-harness").expect("agy-harness binary");
    cmd.current_dir(dir.path())
        .args(["spikes", "--only", "S9", "--color", "never"])
        .env_remove(agy_protocol::env::AGY_HARNESS_SPIKES)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the spikes are S1, S2, S3"));
}

#[test]
fn a_spike_folder_given_without_spike_files_is_refused() {
    let dir = tempfile::tempdir().expect("dir");
    Command::cargo_bin("agy-harness")
        .expect("bin")
        .args(["spikes", "--spikes"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds no spike file"));
}

#[test]
fn a_real_binary_is_not_run_without_live() {
    spikes()
        .args(["--agy", "/usr/bin/true"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("spends your quota").and(predicate::str::contains("--live")),
        );
}

#[test]
fn a_live_binary_that_does_not_answer_like_agy_stops_before_any_probe() {
    let dir = tempfile::tempdir().expect("dir");
    let json = dir.path().join("r.json");
    spikes()
        .args([
            "--agy",
            "/bin/false",
            "--live",
            "--budget",
            "40",
            "--report",
        ])
        .arg(format!("json={}", json.display()))
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "`/bin/false --version` did not answer like agy: it ended with exit status: 1",
        ))
        .stderr(predicate::str::contains("no probe was run"))
        .stdout(predicate::str::contains("quirk gone").not());
    assert!(!json.exists(), "no report of probes that never ran");
}

#[test]
fn a_live_run_in_ci_needs_the_allow_variable() {
    spikes()
        .args(["--agy", "/usr/bin/true", "--live"])
        .env("CI", "true")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "{AGY_HARNESS_ALLOW_LIVE}=1"
        )));
}

#[test]
fn runs_past_the_budget_are_skipped_and_never_count_as_holds() {
    // fake-agy stands in for a live binary here: the budget logic is what is tested.
    let out = spikes()
        .args(["--only", "S3", "--live", "--budget", "4", "--report"])
        .arg(format!(
            "json={}",
            tempfile::tempdir()
                .expect("dir")
                .keep()
                .join("r.json")
                .display()
        ))
        .arg("--agy")
        .arg(fake_agy())
        .args(["--credentials", "copy"])
        .env("HOME", tempfile::tempdir().expect("home").keep())
        .env("CI", "true")
        .env(AGY_HARNESS_ALLOW_LIVE, "1")
        .assert()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    // --version and the sign-in check take one invocation each, two runs of
    // `widescreen` take the rest: the widescreen facts are judged on two runs, the
    // no-ratio probe is skipped.
    assert!(text.contains("skipped for budget"), "{text}");
    assert!(text.contains("live agy invocations used: 4"), "{text}");
}

#[test]
fn a_live_agy_given_by_a_relative_path_is_probed() {
    // Regression: `--agy ./agy` passed the `--version` check, then every probe, run in
    // its sandbox, failed to start it.
    let bin = fake_agy();
    let out = spikes()
        .current_dir(bin.parent().expect("bin dir"))
        .args(["--only", "S3", "--live", "--budget", "4"])
        .arg("--agy")
        .arg(Path::new(".").join(bin.file_name().expect("name")))
        .args(["--credentials", "copy"])
        .env("HOME", tempfile::tempdir().expect("home").keep())
        .env("CI", "true")
        .env(AGY_HARNESS_ALLOW_LIVE, "1")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("live agy invocations used: 4"), "{text}");
    // Judged on the probes' runs: a probe that could not start agy leaves it unverified.
    assert!(text.contains("✓ S3.widescreen-size"), "{text}");
}

#[test]
fn every_problem_of_a_bad_spike_file_is_reported_and_nothing_runs() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(
        dir.path().join("S1.toml"),
        "[spike]\nid = \"S1\"\ntitle = \"t\"\n\n[[probe]]\nname = \"p\"\nargv = []\nrepaet = 2\n\n[[fact]]\nid = \"S1.x\"\nclaim = \"c\"\nprobe = \"p\"\nmeasure = \"images.size\"\n",
    )
    .expect("write");
    Command::cargo_bin("agy-harness")
        .expect("bin")
        .args(["spikes", "--spikes"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("missing `question`")
                .and(predicate::str::contains("unknown field `repaet`"))
                .and(predicate::str::contains("S1.toml:8:1"))
                .and(predicate::str::contains("did you mean `images.sizes`"))
                .and(predicate::str::contains("has no `[[fact.recorded]]`")),
        );
}

#[test]
fn unknown_spike_ids_are_named() {
    spikes()
        .args(["--only", "S3,S9"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown spikes: S9"));
}

#[test]
fn spikes_help_is_stable() {
    let out = Command::cargo_bin("agy-harness")
        .expect("bin")
        .args(["spikes", "--help"])
        .output()
        .expect("run");
    assert!(out.status.success());
    agy_test_support::snapshot_settings("agy-harness/spikes")
        .bind(|| insta::assert_snapshot!("spikes-help", String::from_utf8_lossy(&out.stdout)));
}

/// Spike runs get the sandbox's environment only, as scenario runs do: a user's
/// `FAKE_AGY_*` (here a script that does not exist) never reaches fake-agy.
#[test]
fn the_users_fake_agy_variables_do_not_reach_spike_runs() {
    spikes()
        .args(["--only", "S1"])
        .env(FAKE_AGY_SCRIPT, "/nonexistent/script.toml")
        .env(FAKE_AGY_VERSION, "0.0.1")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("no such file").not());
}
