//! The `acp` profile end to end: the real reference adapter's ACP client on the real
//! fake-agy-acp, judged through fake-agy-acp's journal. Binaries: next to
//! `agy-harness` (`cargo build --workspace --bins`).

use crate::support::*;
use agy_protocol::env::AGY_HARNESS_FAKE_AGY_ACP;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn workspace() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .canonicalize()
        .expect("workspace")
}

fn harness_in_workspace() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(workspace())
        .env_remove(AGY_HARNESS_FAKE_AGY_ACP)
        .args(["--color", "never"]);
    cmd
}

#[test]
fn a_quarantine_leak_is_reported_with_expected_observed_and_closest() {
    let t = TestDir::new();
    let report = t.path().join("report.json");
    let mut cmd = harness_in_workspace();
    cmd.args([
        "run",
        "scenarios/acp/load-with-gap-keeps-late-output-quarantined.toml",
        "--fault",
        "acp-quarantine-lifted-early",
        "--report",
    ])
    .arg(format!("json={}", report.display()));
    let out = run(cmd, Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    // The leak, the stray permission answer and the broken quarantine, each named.
    for needle in [
        "op 5 acp_prompt: text",
        "op 5 acp_prompt: no_late_text",
        "acp: permission_outcomes",
        "acp: late_permissions_cancelled",
    ] {
        assert!(stdout.contains(needle), "{needle} missing:\n{stdout}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
    let failures = json["results"][0]["failures"].clone();
    let mut settings = insta_settings(t.path());
    settings.add_filter(r"pid \d+", "pid [PID]");
    settings.add_filter(r"journal entry \d+", "journal entry [SEQ]");
    settings.bind(|| {
        insta::assert_snapshot!("acp-quarantine-leak-terminal", stdout);
        insta::assert_json_snapshot!("acp-quarantine-leak-failures", failures);
    });
}

#[test]
fn acp_scenarios_need_fake_agy_acp() {
    let mut cmd = harness_in_workspace();
    cmd.args(["run", "scenarios/acp/agent-version-rc01-is-accepted.toml"])
        .env(AGY_HARNESS_FAKE_AGY_ACP, "/nonexistent/fake-agy-acp");
    let out = run(cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("/nonexistent/fake-agy-acp"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_wait_for_acp_traffic_that_never_comes_fails_the_scenario_naming_it() {
    let t = TestDir::new();
    let adapter = Path::new(env!("CARGO_BIN_EXE_agy-harness"))
        .with_file_name("agy-reference-adapter")
        .display()
        .to_string();
    let config = t.write(
        "adapter.toml",
        &format!(
            "[adapter]\nname = \"reference\"\ncommand = [{adapter:?}]\nprofiles = [\"acp\"]\n[timeouts]\nreply = \"1s\"\n"
        ),
    );
    let scenario = t.write(
        "wait.toml",
        "[scenario]\nname = \"acp/never\"\nprofile = \"acp\"\n[[op]]\nacp_new = {}\n[[op]]\nacp_status = {}\nwait_for_acp = { method = \"session/prompt\" }\n",
    );
    let mut cmd = harness_in_workspace();
    cmd.arg("run").arg("--adapter").arg(&config).arg(&scenario);
    let out = run(cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("op 2: waited") && stdout.contains("`session/prompt`"),
        "{stdout}"
    );
}
