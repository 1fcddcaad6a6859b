//! Restart and restore: sessions on disk, `session/load` with replay, `session/resume`
//! without, late notifications and permission requests after the restore response
//! (docs/agy-acp-reference.md §2.9, §6.5, §6.6; seed 003).

use crate::assert_transcript_snapshot;
use crate::support::{agent_text, open_session, transcript_text, update_kinds, Sandbox};
use agy_protocol::acp::{AcpDirection, AcpKind};
use serde_json::{json, Value};

/// A first agent process: one session, one completed turn, then a clean exit.
async fn first_process(sb: &Sandbox) -> String {
    let mut agent = sb.spawn();
    let sid = open_session(&mut agent, &sb.cwd()).await;
    agent
        .call(
            "session/set_config_option",
            json!({"sessionId": sid, "configId": "model", "value": "gemini-3.8-flash-low"}),
        )
        .await;
    let (_, resp) = agent
        .call(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"remember TOKEN-4711"}]}),
        )
        .await;
    assert_eq!(resp["result"]["stopReason"], json!("end_turn"));
    let (status, _) = agent.finish().await;
    assert!(status.success());
    sid
}

fn load_params(sid: &str, cwd: &str) -> Value {
    json!({"sessionId": sid, "cwd": cwd, "mcpServers": []})
}

#[tokio::test]
async fn a_new_process_loads_the_session_replaying_history_before_the_response() {
    let sb = Sandbox::new();
    let sid = first_process(&sb).await;
    let mut agent = sb.spawn();
    agent
        .call(
            "initialize",
            json!({"protocolVersion":1,"clientCapabilities":{}}),
        )
        .await;
    let (replay, resp) = agent
        .call("session/load", load_params(&sid, &sb.cwd()))
        .await;
    // One user/agent pair per turn, full text, then the commands (docs/agy-acp-reference.md §2.9).
    assert_eq!(
        update_kinds(&replay),
        [
            "user_message_chunk",
            "agent_message_chunk",
            "available_commands_update"
        ]
    );
    assert_eq!(
        replay[0]["params"]["update"]["content"]["text"],
        json!("remember TOKEN-4711")
    );
    assert_eq!(agent_text(&replay), "Received: remember TOKEN-4711");
    // The model comes back as the default: config is forgotten on restart (§2.9).
    assert_eq!(
        resp["result"]["configOptions"][0]["currentValue"],
        json!("gemini-3.8-flash-high")
    );
    let (_, turn) = agent
        .call(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"again"}]}),
        )
        .await;
    assert_eq!(turn["result"]["stopReason"], json!("end_turn"));
    assert_transcript_snapshot!("load_after_restart", transcript_text(&agent, sb.dir.path()));
    agent.finish().await;

    // The journal covers both processes: no `session/new` in the second one.
    let journal = sb.journal();
    let pids: std::collections::BTreeSet<u32> = journal.iter().map(|e| e.pid).collect();
    assert_eq!(pids.len(), 2);
    let second = journal.last().map(|e| e.pid).expect("entries");
    let methods: Vec<&str> = journal
        .iter()
        .filter(|e| e.pid == second && e.dir == AcpDirection::In && e.kind == AcpKind::Request)
        .filter_map(|e| e.method.as_deref())
        .collect();
    assert_eq!(methods, ["initialize", "session/load", "session/prompt"]);
}

#[tokio::test]
async fn replay_can_be_scripted_to_arrive_after_the_load_response() {
    let sb = Sandbox::new().with_script("[load]\nreplay = \"after_response\"\n");
    let sid = first_process(&sb).await;
    let mut agent = sb.spawn();
    let (before, resp) = agent
        .call("session/load", load_params(&sid, &sb.cwd()))
        .await;
    assert!(before.is_empty(), "nothing before the response: {before:?}");
    assert!(resp.get("result").is_some(), "{resp}");
    let (_, after) = agent.finish().await;
    assert_eq!(
        update_kinds(&after),
        [
            "user_message_chunk",
            "agent_message_chunk",
            "available_commands_update"
        ]
    );
}

#[tokio::test]
async fn resume_restores_without_replay() {
    let sb = Sandbox::new();
    let sid = first_process(&sb).await;
    let mut agent = sb.spawn();
    let (before, resp) = agent
        .call("session/resume", load_params(&sid, &sb.cwd()))
        .await;
    assert!(before.is_empty(), "no replay on resume: {before:?}");
    assert_eq!(resp["result"]["configOptions"][0]["id"], json!("model"));
    let (list_updates, list) = agent.call("session/list", json!({"cwd": sb.cwd()})).await;
    assert!(list_updates.is_empty());
    assert_eq!(list["result"]["sessions"][0]["sessionId"], json!(sid));
    assert_eq!(
        list["result"]["sessions"][0]["title"],
        json!("remember TOKEN-4711")
    );
    assert!(list["result"]["sessions"][0]["updatedAt"].is_string());
    let (_, rest) = agent.finish().await;
    assert!(rest.is_empty(), "nothing late: {rest:?}");
}

#[tokio::test]
async fn restoring_an_unknown_session_fails_with_the_scripted_error() {
    let sb = Sandbox::new();
    let mut agent = sb.spawn();
    let (_, load) = agent
        .call(
            "session/load",
            load_params("0b9e2c4a-0000-4000-8000-000000000000", &sb.cwd()),
        )
        .await;
    assert_eq!(load["error"]["code"], json!(-32002));
    agent.finish().await;

    let sb = Sandbox::new().with_script(
        "[agent]\nunknown_session = { code = -32000, message = \"unknown sessionId\" }\n",
    );
    let mut agent = sb.spawn();
    let (_, resume) = agent
        .call("session/resume", load_params("missing", &sb.cwd()))
        .await;
    assert_eq!(
        resume["error"],
        json!({"code": -32000, "message": "unknown sessionId"})
    );
    agent.finish().await;
}

#[tokio::test]
async fn late_text_tool_activity_and_permission_follow_the_load_response() {
    // The late-notification leak of seed 003: old-session output after the restore.
    let sb = Sandbox::new().with_script(
        r#"
[load]
late = [
  { text = "LATE OLD EXTERNAL OUTPUT" },
  { tool_call = { id = "call_9", title = "Run edit_file?" } },
  { permission = true },
]
"#,
    );
    let sid = first_process(&sb).await;
    let mut agent = sb.spawn();
    let (_, resp) = agent
        .call("session/load", load_params(&sid, &sb.cwd()))
        .await;
    assert!(resp.get("result").is_some(), "{resp}");
    let (late, ask) = agent.until_request("session/request_permission").await;
    assert_eq!(update_kinds(&late), ["agent_message_chunk", "tool_call"]);
    assert_eq!(agent_text(&late), "LATE OLD EXTERNAL OUTPUT");
    assert_eq!(ask["params"]["toolCall"]["toolCallId"], json!("call_9"));
    agent
        .answer(&ask["id"], json!({"outcome":{"outcome":"cancelled"}}))
        .await;
    agent.finish().await;
    let answered: Vec<String> = sb
        .journal()
        .iter()
        .filter_map(|e| e.permission_outcome())
        .collect();
    assert_eq!(answered, ["cancelled"]);
}

#[tokio::test]
async fn an_agent_killed_after_a_prompt_leaves_the_turn_incomplete_for_load() {
    let sb = Sandbox::new().with_script(
        "[[prompt]]\nwhen = { contains = \"die\" }\nsteps = [{ text = \"partial\" }, { crash = \"kill\" }]\n",
    );
    let mut agent = sb.spawn();
    let sid = open_session(&mut agent, &sb.cwd()).await;
    agent
        .request(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"please die"}]}),
        )
        .await;
    let status = agent.wait_exit().await;
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(9), "killed by SIGKILL: {status:?}");
    let journal = sb.journal();
    let prompt_in = journal
        .iter()
        .any(|e| e.dir == AcpDirection::In && e.method.as_deref() == Some("session/prompt"));
    let prompt_answered = journal.iter().any(|e| {
        e.dir == AcpDirection::Out
            && e.kind == AcpKind::Response
            && e.method.as_deref() == Some("session/prompt")
    });
    assert!(prompt_in && !prompt_answered, "received, never answered");

    let mut again = sb.spawn();
    let (replay, _) = again
        .call("session/load", load_params(&sid, &sb.cwd()))
        .await;
    assert_eq!(
        replay[0]["params"]["update"]["content"]["text"],
        json!("please die")
    );
    assert_eq!(agent_text(&replay), "partial");
    again.finish().await;
}

#[tokio::test]
async fn a_resume_that_wrongly_replays_can_be_scripted() {
    // opencode #30756: replay on `session/resume` (docs/agy-acp-reference.md §4 item 10).
    let sb = Sandbox::new().with_script("[resume]\nreplay = \"before_response\"\n");
    let sid = first_process(&sb).await;
    let mut agent = sb.spawn();
    let (replay, resp) = agent
        .call("session/resume", load_params(&sid, &sb.cwd()))
        .await;
    assert!(resp.get("result").is_some(), "{resp}");
    assert_eq!(
        update_kinds(&replay),
        [
            "user_message_chunk",
            "agent_message_chunk",
            "available_commands_update"
        ]
    );
    agent.finish().await;
}

#[tokio::test]
async fn a_load_can_be_scripted_to_fail_and_replay_nothing() {
    let sb = Sandbox::new().with_script(
        "[load]\nerror = { code = -32603, message = \"Internal error\", data = { reason = \"db locked\" } }\n",
    );
    let sid = first_process(&sb).await;
    let mut agent = sb.spawn();
    let (before, resp) = agent
        .call("session/load", load_params(&sid, &sb.cwd()))
        .await;
    assert!(before.is_empty(), "{before:?}");
    assert_eq!(
        resp["error"],
        json!({"code": -32603, "message": "Internal error", "data": {"reason": "db locked"}})
    );
    agent.finish().await;

    let sb = Sandbox::new().with_script("[load]\nreplay = \"none\"\n");
    let sid = first_process(&sb).await;
    let mut agent = sb.spawn();
    let (before, resp) = agent
        .call("session/load", load_params(&sid, &sb.cwd()))
        .await;
    assert!(
        before.is_empty(),
        "advertises loadSession, replays nothing: {before:?}"
    );
    assert!(resp.get("result").is_some(), "{resp}");
    let (_, rest) = agent.finish().await;
    assert!(rest.is_empty(), "{rest:?}");
}

#[tokio::test]
async fn late_output_after_load_lands_while_the_next_prompt_is_waiting() {
    // The window of seed 003: the client prompts right after the load response and
    // old text arrives before the new turn's own output.
    let sb = Sandbox::new().with_script(
        "[load]\nlate = [{ sleep = \"100ms\" }, { text = \"LATE OLD EXTERNAL OUTPUT\" }]\n",
    );
    let sid = first_process(&sb).await;
    let mut agent = sb.spawn();
    agent
        .call("session/load", load_params(&sid, &sb.cwd()))
        .await;
    let (during, resp) = agent
        .call(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"new turn"}]}),
        )
        .await;
    assert_eq!(resp["result"]["stopReason"], json!("end_turn"));
    let text = agent_text(&during);
    assert!(
        text.starts_with("LATE OLD EXTERNAL OUTPUT"),
        "old text first, inside the new prompt's window: {text}"
    );
    assert!(text.ends_with("Received: new turn"), "{text}");
    assert_transcript_snapshot!(
        "late_text_after_load",
        transcript_text(&agent, sb.dir.path())
    );
    agent.finish().await;
}
