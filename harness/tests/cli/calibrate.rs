//! `calibrate` and `learn` against agy-standin (captures of one version, replayed) and
//! against fake-agy as `--agy`.

use crate::support::*;
use agy_protocol::calibration::read_calibration;
use agy_protocol::env::AGY_HARNESS_ALLOW_LIVE;
use agy_protocol::standin::{AGY_STANDIN_BIN, AGY_STANDIN_TRACES};
use std::path::PathBuf;
use std::time::Duration;

fn standin() -> PathBuf {
    agy_test_support::workspace_bin("agy-standin", AGY_STANDIN_BIN)
}

/// A folder holding the traces of these corpus captures.
fn held(t: &TestDir, ids: &[&str]) -> PathBuf {
    let dir = t.path().join("held");
    std::fs::create_dir_all(&dir).expect("held");
    for id in ids {
        let name = format!("{id}.jsonl");
        std::fs::copy(
            agy_test_support::workspace().join("traces").join(&name),
            dir.join(&name),
        )
        .expect("copy");
    }
    dir
}

#[test]
fn calibrate_without_live_runs_nothing() {
    let t = TestDir::new();
    let mut cmd = t.harness();
    cmd.args(["calibrate", "--agy"])
        .arg(standin())
        .args(["--out", "c.toml"]);
    let out = run(cmd, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("runs a real agy, which spends your quota"),
        "{}",
        text(&out.stderr)
    );
    assert!(!t.path().join("c.toml.recordings").exists());
}

#[test]
fn calibrate_against_the_standin_learns_what_it_answers_and_stops_when_the_budget_is_spent() {
    let t = TestDir::new();
    let held = held(
        &t,
        &["mv-1.1.12-version", "mv-1.1.12-help", "mv-1.1.12-models"],
    );
    let mut cmd = t.harness();
    // CI sets CI=true; a live run there is also opted into.
    cmd.env(AGY_HARNESS_ALLOW_LIVE, "1");
    cmd.args([
        "calibrate",
        "--live",
        "--budget",
        "5",
        "--credentials",
        "copy",
        "--out",
        "c.toml",
        "--agy",
    ])
    .arg(standin())
    .arg("--agy-env")
    .arg(format!("{AGY_STANDIN_TRACES}={}", held.display()));
    let out = run(cmd, Duration::from_secs(120));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    // The version check and the sign-in check, then three probes: five invocations.
    let recorded: Vec<_> = std::fs::read_dir(t.path().join("c.toml.recordings"))
        .expect("recordings")
        .collect();
    assert_eq!(recorded.len(), 3, "{stdout}");
    assert!(
        stdout.contains("Not probed (budget of 5 spent)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("- `print-json` (1 invocation, 1 turn(s))"),
        "{stdout}"
    );
    assert!(
        stdout.contains("### agy 1.1.12 against the built-in calibration `agy-1.1.11.toml`"),
        "{stdout}"
    );
    assert!(stdout.contains("| `models.model`"), "{stdout}");
    let learned =
        read_calibration(&t.path().join("c.toml")).expect("a calibration the reader accepts");
    assert_eq!(learned.calibration.agy.to_string(), "1.1.12");
    let ids: Vec<&str> = learned.models.model.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids.first(), Some(&"gemini-3.6-flash-high"));
    assert_eq!(ids.len(), 11);
}

#[test]
fn calibrate_against_fake_agy_finds_no_drift_from_its_own_builtin() {
    let t = TestDir::new();
    let mut cmd = t.harness();
    // CI sets CI=true; a live run there is also opted into.
    cmd.env(AGY_HARNESS_ALLOW_LIVE, "1");
    cmd.args([
        "calibrate",
        "--live",
        "--budget",
        "12",
        "--credentials",
        "copy",
        "--out",
        "c.toml",
        "--agy",
    ])
    .arg(crate::spikes::fake_agy());
    let stdout = run_ok(cmd, Duration::from_secs(240));
    assert!(stdout.contains(": 0 of "), "{stdout}");
    assert!(stdout.contains("| `init.tools`"), "{stdout}");
    assert!(read_calibration(&t.path().join("c.toml")).is_ok());
}

#[test]
fn learn_writes_a_calibration_with_the_recordings_fields_and_lists_the_rest_as_inherited() {
    let t = TestDir::new();
    let held = held(&t, &["ut-1.3.1-ok", "ut-1.3.1-stream-slash-fatal"]);
    let mut cmd = t.harness();
    cmd.args(["learn", "--out", "l.toml", "--traces"])
        .arg(&held);
    let out = run(cmd, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let file = std::fs::read_to_string(t.path().join("l.toml")).expect("written");
    assert!(
        file.contains("# inherited from the built-in calibration `agy-1.3.1.toml`:"),
        "{file}"
    );
    assert!(
        file.contains("slash_command = \"recording ut-1.3.1-stream-slash-fatal.jsonl#1\""),
        "{file}"
    );
    let c = read_calibration(&t.path().join("l.toml")).expect("accepted");
    assert_eq!(c.persistent.slash_exit_code, 2);
    assert_eq!(c.usage.keys.len(), 5);
}

#[test]
fn learn_reports_a_bad_recording_with_its_location() {
    let t = TestDir::new();
    t.write("rec/bad.jsonl", "{\"trace\":1}\n");
    let mut cmd = t.harness();
    cmd.args(["learn", "--out", "l.toml", "--traces", "rec"]);
    let out = run(cmd, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("rec/bad.jsonl:1:"),
        "{}",
        text(&out.stderr)
    );
    assert!(!t.path().join("l.toml").exists());
}
