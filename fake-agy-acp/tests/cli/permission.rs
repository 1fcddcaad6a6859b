//! Permission requests and cancellation (docs/agy-acp-reference.md §1.7, §1.9, §2.7, §2.8, §6.3, §6.4).

use crate::assert_transcript_snapshot;
use crate::support::{open_session, transcript_text, update_kinds, Sandbox};
use agy_protocol::acp::AcpDirection;
use serde_json::json;

#[tokio::test]
async fn a_gated_edit_asks_allow_once_or_reject_once_and_completes_when_allowed() {
    let sb = Sandbox::new();
    let mut agent = sb.spawn();
    let sid = open_session(&mut agent, &sb.cwd()).await;
    let pid = agent
        .request("session/prompt", json!({"sessionId": sid, "prompt": [{"type":"text","text":"Create hello.txt containing ok"}]}))
        .await;
    let (before, ask) = agent.until_request("session/request_permission").await;
    assert_eq!(
        update_kinds(&before),
        [
            "available_commands_update",
            "agent_message_chunk",
            "tool_call"
        ]
    );
    let call = &before[2]["params"]["update"];
    assert_eq!(call["kind"], json!("edit"));
    assert_eq!(call["status"], json!("pending"));
    assert_eq!(call["content"][0]["type"], json!("diff"));
    assert_eq!(call["content"][0]["_meta"]["kind"], json!("add"));
    assert_eq!(
        ask["params"]["options"],
        json!([
            {"optionId":"allow","name":"Allow","kind":"allow_once"},
            {"optionId":"deny","name":"Deny","kind":"reject_once"}
        ])
    );
    assert_eq!(ask["params"]["toolCall"]["toolCallId"], call["toolCallId"]);
    agent
        .answer(
            &ask["id"],
            json!({"outcome":{"outcome":"selected","optionId":"allow"}}),
        )
        .await;
    let (after, resp) = agent.until_response(pid).await;
    assert_eq!(resp["result"]["stopReason"], json!("end_turn"));
    assert_eq!(
        update_kinds(&after),
        [
            "tool_call_update",
            "tool_call_update",
            "agent_message_chunk",
            "usage_update"
        ]
    );
    assert_eq!(after[1]["params"]["update"]["status"], json!("completed"));
    assert_transcript_snapshot!("gated_edit_allowed", transcript_text(&agent, sb.dir.path()));
    agent.finish().await;
}

#[tokio::test]
async fn cancel_with_a_pending_permission_ends_the_turn_cancelled() {
    let sb = Sandbox::new();
    let mut agent = sb.spawn();
    let sid = open_session(&mut agent, &sb.cwd()).await;
    let pid = agent
        .request(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"Create a.txt"}]}),
        )
        .await;
    let (_, ask) = agent.until_request("session/request_permission").await;
    agent
        .notify("session/cancel", json!({"sessionId": sid}))
        .await;
    agent
        .answer(&ask["id"], json!({"outcome":{"outcome":"cancelled"}}))
        .await;
    let (after, resp) = agent.until_response(pid).await;
    assert_eq!(resp["result"]["stopReason"], json!("cancelled"));
    assert_eq!(update_kinds(&after), ["tool_call_update"]);
    assert_eq!(after[0]["params"]["update"]["status"], json!("failed"));
    assert_transcript_snapshot!(
        "cancel_with_pending_permission",
        transcript_text(&agent, sb.dir.path())
    );
    agent.finish().await;
    let outcomes: Vec<String> = sb
        .journal()
        .iter()
        .filter(|e| e.dir == AcpDirection::In)
        .filter_map(|e| e.permission_outcome())
        .collect();
    assert_eq!(
        outcomes,
        ["cancelled"],
        "the journal records the client's answer"
    );
}

const CANCEL_AT_PERMISSION: &str = r#"
[[prompt]]
steps = [{ text = "a" }, { tool_call = { id = "call_1001", title = "Run edit_file?" } }, { permission = true }, { text = "b" }]
"#;

async fn cancel_then_allow(sb: &Sandbox) -> (serde_json::Value, String) {
    let mut agent = sb.spawn();
    let sid = open_session(&mut agent, &sb.cwd()).await;
    let pid = agent
        .request(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"go"}]}),
        )
        .await;
    let (_, ask) = agent.until_request("session/request_permission").await;
    agent
        .notify("session/cancel", json!({"sessionId": sid}))
        .await;
    agent
        .answer(
            &ask["id"],
            json!({"outcome":{"outcome":"selected","optionId":"allow"}}),
        )
        .await;
    let (after, resp) = agent.until_response(pid).await;
    agent.finish().await;
    (
        resp["result"]["stopReason"].clone(),
        crate::support::agent_text(&after),
    )
}

#[tokio::test]
async fn an_agent_that_honours_cancel_stops_before_the_next_step() {
    let sb = Sandbox::new().with_script(CANCEL_AT_PERMISSION);
    let (reason, text) = cancel_then_allow(&sb).await;
    assert_eq!(reason, json!("cancelled"));
    assert_eq!(text, "");
}

#[tokio::test]
async fn an_agent_that_ignores_cancel_runs_the_turn_to_completion() {
    let script = format!("[agent]\ncancel = \"ignore\"\n{CANCEL_AT_PERMISSION}");
    let sb = Sandbox::new().with_script(&script);
    let (reason, text) = cancel_then_allow(&sb).await;
    assert_eq!(reason, json!("end_turn"));
    assert_eq!(text, "b");
}

#[tokio::test]
async fn a_question_arrives_as_a_permission_request_with_one_option_per_answer() {
    let sb = Sandbox::new().with_script(
        r#"
[[prompt]]
steps = [{ permission = { question = "Which test framework should I use?", answers = ["pytest", "unittest"] } }, { text = "ok" }]
"#,
    );
    let mut agent = sb.spawn();
    let sid = open_session(&mut agent, &sb.cwd()).await;
    let pid = agent
        .request(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"go"}]}),
        )
        .await;
    let (_, ask) = agent.until_request("session/request_permission").await;
    let tool_id = ask["params"]["toolCall"]["toolCallId"]
        .as_str()
        .unwrap_or("");
    assert!(tool_id.starts_with("interaction_"), "{ask}");
    let kinds: Vec<_> = ask["params"]["options"]
        .as_array()
        .expect("options")
        .iter()
        .map(|o| o["kind"].clone())
        .collect();
    assert_eq!(kinds, [json!("allow_once"), json!("allow_once")]);
    agent
        .answer(
            &ask["id"],
            json!({"outcome":{"outcome":"selected","optionId":"opt_0"}}),
        )
        .await;
    let (_, resp) = agent.until_response(pid).await;
    assert_eq!(resp["result"]["stopReason"], json!("end_turn"));
    agent.finish().await;
}
