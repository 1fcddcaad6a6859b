//! The scriptable quirks of persistent sessions, each per stdin line.

use crate::session_driver::{labels, user, Driver};
use crate::support::Sandbox;
use agy_protocol::env::FAKE_AGY_VERSION;

fn result(events: &[serde_json::Value]) -> &serde_json::Value {
    &events.last().expect("events")["result"]
}

#[tokio::test]
async fn replayed_previous_turn_comes_before_the_new_turn() {
    let sb = Sandbox::new();
    let mut d = Driver::start(
        &sb,
        Some("[[turn]]\nwhen = { line = 2 }\nsteps = [{ replay_previous = true }, { default = true }]\n"),
        &[],
        &[],
    );
    d.send(&user("reply ONE")).await;
    let first = d.turn().await;
    d.send(&user("reply TWO")).await;
    let replayed = d.turn().await;
    // The replay is turn 1's steps and result, byte for byte, old num_turns included.
    assert_eq!(replayed, first[1..].to_vec());
    assert_eq!(result(&replayed)["num_turns"], 1);
    let own = d.turn().await;
    assert_eq!(result(&own)["response"], "TWO\n");
    assert_eq!(result(&own)["num_turns"], 2);
    d.finish().await;
    let rec = &sb.journal()[0];
    assert_eq!(rec.stdin.lines[1].rule.as_deref(), Some("turn 1"));
}

#[tokio::test]
async fn late_step_of_the_previous_turn_arrives_after_the_next_line() {
    let sb = Sandbox::new();
    let mut d = Driver::start(
        &sb,
        Some("[[turn]]\nwhen = { line = 2 }\nsteps = [{ late_step = { step_type = \"agent_response\", state = \"DONE\", text_delta = \"late\\n\" } }, { default = true }]\n"),
        &[],
        &[],
    );
    d.send(&user("reply ONE")).await;
    let first = d.turn().await;
    let max1 = first
        .iter()
        .filter_map(|e| e["step_update"]["step_index"].as_u64())
        .max()
        .expect("max");
    d.send(&user("reply TWO")).await;
    let second = d.turn().await;
    assert_eq!(second[0]["step_update"]["text_delta"], "late\n");
    assert_eq!(second[0]["step_update"]["step_index"].as_u64(), Some(max1));
    assert!(second[1]["step_update"]["step_index"].as_u64() > Some(max1));
    d.finish().await;
}

#[tokio::test]
async fn duplicate_result_and_unadvanced_turns() {
    let sb = Sandbox::new();
    let mut d = Driver::start(
        &sb,
        Some("[[turn]]\nwhen = { line = 1 }\nsteps = [{ default = true }, { duplicate_result = true }]\n[[turn]]\nwhen = { content_contains = \"stuck\" }\nsteps = [{ default = { advance_turns = false } }]\n"),
        &[],
        &[],
    );
    d.send(&user("reply ONE")).await;
    let t = d.turn().await;
    let dup = d.next_event().await.expect("duplicate");
    assert_eq!(&dup, t.last().expect("result"));
    d.send(&user("stuck turn")).await;
    let t2 = d.turn().await;
    assert_eq!(result(&t2)["num_turns"], 1, "did not advance");
    d.finish().await;
}

#[tokio::test]
async fn hang_after_the_result() {
    let sb = Sandbox::new();
    let mut d = Driver::start(
        &sb,
        Some("[[turn]]\nsteps = [{ default = true }, { hang = true }]\n"),
        &[],
        &[],
    );
    d.send(&user("reply ONE")).await;
    d.turn().await;
    d.send(&user("reply TWO")).await;
    crate::journal::wait_for(&sb, |r| r.stdin.lines.len() == 2);
    nix::sys::signal::kill(d.pid(), nix::sys::signal::Signal::SIGTERM).expect("term");
    let (status, _) = d.finish().await;
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        status.signal(),
        Some(15),
        "no second result; only the signal ended it"
    );
}

#[tokio::test]
async fn exit_between_turns() {
    let sb = Sandbox::new();
    let mut d = Driver::start(&sb, Some("[[turn]]\nwhen = { line = 2 }\nsteps = [{ stderr = \"panic: lost connection\" }, { exit = 2 }]\n"), &[], &[]);
    d.send(&user("reply ONE")).await;
    d.turn().await;
    d.send(&user("reply TWO")).await;
    assert!(
        d.next_event().await.is_none(),
        "stdout ends without a result"
    );
    let (status, stderr) = d.finish().await;
    assert_eq!(status.code(), Some(2));
    assert_eq!(stderr, "panic: lost connection\n");
}

#[tokio::test]
async fn closed_stdin_gives_the_writer_epipe() {
    let sb = Sandbox::new();
    let mut d = Driver::start(
        &sb,
        Some("[[turn]]\nsteps = [{ default = true }, { close_stdin = true }, { stdout = \"{\\\"closed\\\":true}\" }, { hang = true }]\n"),
        &[],
        &[],
    );
    d.send(&user("reply ONE")).await;
    d.turn().await;
    assert_eq!(d.next_event().await.expect("marker")["closed"], true);
    let mut err = None;
    // A pipe may accept one buffered write before the reader's close shows; the second
    // write must fail.
    for _ in 0..2 {
        if let Err(e) = d.try_send(&user("reply TWO")).await {
            err = Some(e);
            break;
        }
    }
    assert_eq!(
        err.expect("a write fails").kind(),
        std::io::ErrorKind::BrokenPipe
    );
    let _ = nix::sys::signal::kill(d.pid(), nix::sys::signal::Signal::SIGKILL);
    d.finish().await;
}

#[tokio::test]
async fn quota_exhausted_mid_turn_exits_3() {
    let sb = Sandbox::new();
    let mut d = Driver::start(
        &sb,
        Some("[[turn]]\nwhen = { line = 2 }\nsteps = [{ quota_exhausted = true }]\n"),
        &[],
        &[],
    );
    d.send(&user("reply ONE")).await;
    d.turn().await;
    d.send(&user("reply TWO")).await;
    let t = d.turn().await;
    assert_eq!(
        labels(&t)[0].split(':').take(2).collect::<Vec<_>>(),
        ["error_message", "DONE"]
    );
    let r = result(&t);
    assert_eq!(r["status"], "ERROR");
    assert_eq!(r["error"], "Individual quota reached. Please upgrade your subscription to increase your limits. Resets in 34m13s.");
    assert_eq!(r["num_turns"], 2);
    let (status, stderr) = d.finish().await;
    assert_eq!(status.code(), Some(3));
    let mut lines = stderr.lines();
    assert_eq!(lines.next(), Some("error: Individual quota reached. Please upgrade your subscription to increase your limits. Resets in 34m13s."));
    let agy_error: serde_json::Value = serde_json::from_str(
        lines
            .next()
            .expect("AGY_ERROR")
            .strip_prefix("AGY_ERROR: ")
            .expect("prefix"),
    )
    .expect("json");
    assert_eq!(agy_error["error_code"], 429);
    assert_eq!(agy_error["status"], "RESOURCE_EXHAUSTED");
    let err_idx = t[0]["step_update"]["step_index"].as_u64().expect("idx");
    assert!(agy_error["error_id"]
        .as_str()
        .expect("id")
        .ends_with(&format!("-{err_idx}")));
}

#[tokio::test]
async fn denied_turn_by_version_and_tool() {
    // A denied command is DONE without error from 1.2.8 (cp-1.2.8-tool-denied,
    // pb-1.2.17-denied-command); a denied MCP call is ERROR with a tool error
    // (cl-1.2.7-denied-mcp-turn), and so is a command before 1.2.8.
    let mcp = "{ tool = \"call_mcp_tool\", parameters = { Arguments = {}, ServerName = \"srv\", ToolName = \"tool\" } }";
    let command = "{ tool = \"run_command\", parameters = { CommandLine = \"touch x\" } }";
    for (version, deny, done_state, action, display) in [
        ("1.2.17", command, "DONE", "command", "RunCommand"),
        ("1.2.6", command, "ERROR", "command", "RunCommand"),
        ("1.2.7", mcp, "ERROR", "mcp", "CallMcpTool"),
        ("1.3.1", mcp, "ERROR", "mcp", "CallMcpTool"),
    ] {
        let sb = Sandbox::new();
        let script = format!("[[turn]]\nsteps = [{{ deny = {deny} }}]\n");
        let mut d = Driver::start(&sb, Some(&script), &[], &[(FAKE_AGY_VERSION, version)]);
        d.send(&user("use the tool")).await;
        let t = d.turn().await;
        let tool_end = t
            .iter()
            .rev()
            .find(|e| e["step_update"]["step_type"] == "tool")
            .expect("tool step");
        assert_eq!(
            tool_end["step_update"]["state"], done_state,
            "{version} {action}"
        );
        assert_eq!(
            tool_end["step_update"]["tool_info"]["error"].is_object(),
            done_state == "ERROR",
            "{version} {action}"
        );
        let r = result(&t);
        assert_eq!(r["status"], "SUCCESS");
        assert_eq!(r["response"], "");
        assert_eq!(r["denied_actions"][0]["action"], action);
        assert_eq!(r["denied_actions"][0]["display_name"], display);
        d.finish().await;
    }
}

#[tokio::test]
async fn question_in_one_turn_is_answered_in_the_next() {
    let sb = Sandbox::new();
    let mut d = Driver::start(
        &sb,
        Some("[[turn]]\nwhen = { line = 1 }\nsteps = [{ question = { text = \"May I delete build/?\" } }]\n"),
        &[],
        &[],
    );
    d.send(&user("clean up")).await;
    let t = d.turn().await;
    let ask = t
        .iter()
        .find(|e| e["step_update"]["step_type"] == "tool")
        .expect("tool");
    assert_eq!(ask["step_update"]["state"], "ACTIVE");
    assert_eq!(
        ask["step_update"]["tool_info"]["parameters"]["Question"],
        "May I delete build/?"
    );
    assert_eq!(result(&t)["status"], "WAITING");
    d.send(&user("yes")).await;
    let t2 = d.turn().await;
    assert_eq!(t2[0]["step_update"]["state"], "DONE");
    assert_eq!(
        t2[0]["step_update"]["step_index"],
        ask["step_update"]["step_index"]
    );
    assert_eq!(t2[0]["step_update"]["tool_info"]["output"], "yes");
    assert_eq!(result(&t2)["status"], "SUCCESS");
    d.finish().await;
}

#[tokio::test]
async fn exit_some_time_after_sigterm_during_a_turn() {
    let sb = Sandbox::new();
    let mut d = Driver::start(
        &sb,
        Some("[[invocation]]\nsteps = [{ on_sigterm = { exit_after = \"30ms\", code = 0 } }]\n[[turn]]\nsteps = [{ stdout = \"{\\\"busy\\\":true}\" }, { hang = true }]\n"),
        &[],
        &[],
    );
    d.send(&user("long task")).await;
    assert_eq!(d.next_event().await.expect("init")["event"], "init");
    assert_eq!(d.next_event().await.expect("busy")["busy"], true);
    nix::sys::signal::kill(d.pid(), nix::sys::signal::Signal::SIGTERM).expect("term");
    let (status, _) = d.finish().await;
    assert_eq!(status.code(), Some(0));
    let rec = &sb.journal()[0];
    assert!(rec.ended_us.expect("end") >= rec.signals[0].at_us + 30_000);
}
