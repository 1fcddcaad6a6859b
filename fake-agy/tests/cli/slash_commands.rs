//! Slash commands the CLI answers itself: `-p /model`, `-p /effort` (json and
//! stream-json with its `command_result` event), and a slash line in persistent mode.

use crate::support::{json_lines, Sandbox};
use agy_protocol::env::FAKE_AGY_VERSION;

#[test]
fn model_in_stream_json_is_a_command_result_then_the_result() {
    // ut-1.3.1-model-stream-json, jd-1.2.7-model-command-result.
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .env(FAKE_AGY_VERSION, "1.3.1")
        .args(["-p", "/model", "--output-format", "stream-json"])
        .assert()
        .success();
    let lines = json_lines(&out.get_output().stdout);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["event"], "command_result");
    let command = &lines[0]["command"];
    assert_eq!(command["name"], "model");
    let keys: Vec<&String> = command["data"].as_object().expect("data").keys().collect();
    assert_eq!(keys, ["id", "label", "effort", "is_default"]);
    assert_eq!(&lines[1]["result"]["command"], command);
    let id = command["data"]["id"].as_str().expect("id");
    let label = command["data"]["label"].as_str().expect("label");
    assert_eq!(
        lines[1]["result"]["response"],
        format!("{id}\t{label}\n").as_str()
    );
    assert_eq!(lines[1]["result"]["conversation_id"], "");
}

#[test]
fn effort_reports_the_tier_of_the_selected_model() {
    // ut-1.3.1-effort-stream-json: {adjustable, current, available}, response the tier.
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .env(FAKE_AGY_VERSION, "1.3.1")
        .args([
            "-p",
            "/effort",
            "--model",
            "gemini-3.8-flash-low",
            "--output-format",
            "json",
        ])
        .assert()
        .success();
    let env = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(env["response"], "low\n");
    assert_eq!(env["command"]["name"], "effort");
    assert_eq!(env["command"]["data"]["current"], "low");
    assert_eq!(env["command"]["data"]["adjustable"], true);
}

fn slash_line(version: &str, extra: &[&str]) -> std::process::Output {
    let sb = Sandbox::new();
    let mut cmd = sb.std_cmd();
    cmd.env(FAKE_AGY_VERSION, version)
        .args([
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
        ])
        .args(extra);
    let mut child = cmd.spawn().expect("spawn");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(
                b"{\"event\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"/model\"}}\n",
            )
            .expect("write");
    }
    crate::support::wait_with_timeout(child, std::time::Duration::from_secs(30))
}

#[test]
fn from_1_3_1_a_slash_line_in_persistent_mode_ends_the_session_with_exit_2() {
    // ut-1.3.1-stream-slash-fatal.
    let out = slash_line("1.3.1", &[]);
    assert_eq!(out.status.code(), Some(2));
    let lines = json_lines(&out.stdout);
    let events: Vec<&str> = lines.iter().filter_map(|l| l["event"].as_str()).collect();
    assert_eq!(events, ["init", "result"]);
    let text = "/model is answered by the CLI itself and is unavailable with --input-format stream-json; run it as its own --print /model invocation";
    assert_eq!(lines[1]["result"]["status"], "ERROR");
    assert_eq!(lines[1]["result"]["error"], text);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: {text}\n")
    );
}

#[test]
fn before_1_3_1_a_slash_line_is_a_turn() {
    let out = slash_line("1.2.17", &[]);
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    assert_eq!(
        lines.last().map(|l| l["result"]["status"].clone()),
        Some("SUCCESS".into())
    );
}

#[test]
fn with_disable_slash_commands_a_slash_line_is_an_ordinary_turn() {
    // ut-1.3.2-slash-prompt-literal: `--disable-slash-commands`, a `/model …` stdin line,
    // answered as a prompt, exit 0.
    let out = slash_line("1.3.2", &["--disable-slash-commands"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = json_lines(&out.stdout);
    assert_eq!(
        lines.last().map(|l| l["result"]["status"].clone()),
        Some("SUCCESS".into())
    );
    assert!(out.stderr.is_empty(), "{out:?}");
}
