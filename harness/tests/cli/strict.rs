//! Seed choices are advice: an expectation marked `strict = "…"` that the adapter
//! misses leaves the scenario passed (the miss shown as advice in the terminal and the
//! JUnit report) unless the adapter config says `strict = true`.

use crate::support::*;
use agy_protocol::env::AGY_HARNESS_FAKE_AGY;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A session scenario whose only broken expectation is a seed choice the reference
/// adapter does not make (it sends SIGTERM, not SIGINT).
const SCENARIO: &str = r#"[scenario]
name    = "session/seed-choice"
profile = "session"

[[agy.turn]]
steps = [{ on_sigterm = "ignore" }, { default = { response = "answer one" } }, { hang = true }]

[[op]]
open = {}

[[op]]
turn   = { text = "first question" }
expect = { outcome = "success" }

[[op]]
close  = {}
expect = { agy_gone_within = "20s" }

[[expect.invocation]]
nth    = 1
killed = true

[[expect.invocation]]
nth     = 1
signals = ["SIGINT"]
strict  = "an imaginary seed: release interrupts with SIGINT"
"#;

fn config(t: &TestDir, strict: bool) -> PathBuf {
    let adapter =
        Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("agy-reference-adapter");
    t.write(
        &format!("adapter-{strict}.toml"),
        &format!(
            "[adapter]\nname = \"reference\"\ncommand = [{:?}]\nprofiles = [\"session\"]\nstrict = {strict}\n",
            adapter.display().to_string()
        ),
    )
}

fn run_it(t: &TestDir, strict: bool) -> (Option<i32>, String, String) {
    let scenario = t.write("seed-choice.toml", SCENARIO);
    let junit = t.path().join(format!("junit-{strict}.xml"));
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    let fake = Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("fake-agy");
    cmd.env(AGY_HARNESS_FAKE_AGY, fake)
        .args(["--color", "never", "run", "--adapter"])
        .arg(config(t, strict))
        .arg("--report")
        .arg(format!("junit={}", junit.display()))
        .arg(&scenario);
    let out = run(cmd, Duration::from_secs(120));
    let xml = std::fs::read_to_string(&junit).unwrap_or_default();
    (out.status.code(), text(&out.stdout), xml)
}

#[test]
fn a_missed_seed_choice_is_advice_by_default() {
    let t = TestDir::new();
    let (code, stdout, xml) = run_it(&t, false);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("advice invocation 1: signals: an imaginary seed"),
        "{stdout}"
    );
    assert!(xml.contains("advice (not the contract)"), "{xml}");
    assert!(!xml.contains("<failure"), "{xml}");
}

#[test]
fn strict_mode_fails_a_missed_seed_choice() {
    let t = TestDir::new();
    let (code, stdout, xml) = run_it(&t, true);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("invocation 1: signals"), "{stdout}");
    assert!(xml.contains("<failure"), "{xml}");
}
