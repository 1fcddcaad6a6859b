//! Prompt turns: streamed deltas, `usage_update` by version, stop reasons, late
//! notifications after the response.

use crate::assert_transcript_snapshot;
use crate::support::{agent_text, open_session, transcript_text, update_kinds, Sandbox};
use agy_protocol::env::FAKE_AGY_ACP_VERSION;
use serde_json::json;

#[tokio::test]
async fn a_default_turn_streams_deltas_then_usage_then_end_turn() {
    let sb = Sandbox::new();
    let mut agent = sb.spawn();
    let sid = open_session(&mut agent, &sb.cwd()).await;
    let (updates, resp) = agent
        .call(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"What is 2 + 2?"}]}),
        )
        .await;
    assert_eq!(resp["result"]["stopReason"], json!("end_turn"));
    // 1.3.0: commands at the start of the first turn, deltas, then usage (docs/agy-acp-reference.md §2.5, §2.6).
    assert_eq!(
        update_kinds(&updates),
        [
            "available_commands_update",
            "agent_message_chunk",
            "agent_message_chunk",
            "agent_message_chunk",
            "usage_update"
        ]
    );
    assert_eq!(agent_text(&updates), "Received: What is 2 + 2?");
    assert_transcript_snapshot!("default_turn_1_3_0", transcript_text(&agent, sb.dir.path()));
    agent.finish().await;
}

#[tokio::test]
async fn a_reply_word_prompt_is_answered_as_in_print_mode() {
    let sb = Sandbox::new();
    let mut agent = sb.spawn();
    let sid = open_session(&mut agent, &sb.cwd()).await;
    let (updates, _) = agent
        .call(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"Reply with the single word PONG"}]}),
        )
        .await;
    assert_eq!(agent_text(&updates), "PONG");
    // The common smoke check (it was answered `exactly`).
    let (updates, _) = agent
        .call(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"Reply with exactly the word pong."}]}),
        )
        .await;
    assert_eq!(agent_text(&updates), "pong");
    agent.finish().await;
}

#[tokio::test]
async fn builds_before_1_3_0_send_no_usage_update_and_commands_after_session_new() {
    let sb = Sandbox::new().with_env(FAKE_AGY_ACP_VERSION, "agy_acp_server_1.1.1");
    let mut agent = sb.spawn();
    agent
        .call(
            "initialize",
            json!({"protocolVersion":1,"clientCapabilities":{}}),
        )
        .await;
    let id = agent
        .request("session/new", json!({"cwd": sb.cwd(), "mcpServers": []}))
        .await;
    let (_, created) = agent.until_response(id).await;
    let sid = created["result"]["sessionId"]
        .as_str()
        .expect("id")
        .to_string();
    // The commands update follows the response (docs/agy-acp-reference.md §6.2), before the client can
    // have stored the id (paseo #3324).
    let next = agent.recv().await.expect("commands update");
    assert_eq!(
        next["params"]["update"]["sessionUpdate"],
        json!("available_commands_update")
    );
    let (updates, _) = agent
        .call(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"hi"}]}),
        )
        .await;
    assert!(!update_kinds(&updates).contains(&"usage_update".to_string()));
    agent.finish().await;
}

#[tokio::test]
async fn session_new_carries_legacy_models_and_config_options() {
    let sb = Sandbox::new();
    let mut agent = sb.spawn();
    agent
        .call(
            "initialize",
            json!({"protocolVersion":1,"clientCapabilities":{}}),
        )
        .await;
    let (_, created) = agent
        .call("session/new", json!({"cwd": sb.cwd(), "mcpServers": []}))
        .await;
    let r = &created["result"];
    assert_eq!(
        r["models"]["currentModelId"],
        json!("gemini-3.8-flash-high")
    );
    assert_eq!(r["configOptions"][0]["id"], json!("model"));
    assert_eq!(
        r["configOptions"][0]["options"].as_array().map(Vec::len),
        Some(11)
    );
    assert_eq!(r["configOptions"][1]["id"], json!("mode"));
    assert_eq!(r["modes"]["currentModeId"], json!("default"));
    agent.finish().await;
}

#[tokio::test]
async fn set_config_option_returns_the_full_list_with_the_new_value() {
    let sb = Sandbox::new();
    let mut agent = sb.spawn();
    let sid = open_session(&mut agent, &sb.cwd()).await;
    let (_, resp) = agent
        .call(
            "session/set_config_option",
            json!({"sessionId": sid, "configId": "model", "value": "gemini-3.8-flash-low"}),
        )
        .await;
    assert_eq!(
        resp["result"]["configOptions"][0]["currentValue"],
        json!("gemini-3.8-flash-low")
    );
    assert_eq!(
        resp["result"]["configOptions"].as_array().map(Vec::len),
        Some(2)
    );
    let (_, legacy) = agent
        .call(
            "session/set_model",
            json!({"sessionId": sid, "modelId": "gemini-pro-agent"}),
        )
        .await;
    assert_eq!(legacy["result"], json!({}));
    agent.finish().await;
}

#[tokio::test]
async fn late_notifications_follow_the_prompt_response() {
    let sb = Sandbox::new().with_script(
        r#"
[[prompt]]
steps = [
  { text = "on time" },
  { respond = "end_turn" },
  { text = "LATE TEXT" },
  { tool_call = { id = "call_7", title = "Run edit_file?" } },
  { tool_update = { status = "completed" } },
]
"#,
    );
    let mut agent = sb.spawn();
    let sid = open_session(&mut agent, &sb.cwd()).await;
    let (before, resp) = agent
        .call(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"go"}]}),
        )
        .await;
    assert_eq!(resp["result"]["stopReason"], json!("end_turn"));
    assert_eq!(agent_text(&before), "on time");
    let (_, rest) = agent.finish().await;
    assert_eq!(
        update_kinds(&rest),
        ["agent_message_chunk", "tool_call", "tool_call_update"]
    );
    assert_eq!(agent_text(&rest), "LATE TEXT");
}

#[tokio::test]
async fn a_scripted_stop_reason_and_a_duplicate_tool_call_are_sent_as_written() {
    let sb = Sandbox::new().with_script(
        r#"
[[prompt]]
steps = [
  { thought = "thinking" },
  { tool_call = { id = "call_1", title = "Run create_file?", path = "a.txt" } },
  { duplicate_tool_call = true },
  { respond = "max_tokens" },
]
"#,
    );
    let mut agent = sb.spawn();
    let sid = open_session(&mut agent, &sb.cwd()).await;
    let (updates, resp) = agent
        .call(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"go"}]}),
        )
        .await;
    assert_eq!(resp["result"]["stopReason"], json!("max_tokens"));
    let calls: Vec<_> = updates
        .iter()
        .filter(|u| u["params"]["update"]["sessionUpdate"] == json!("tool_call"))
        .collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls[0], calls[1],
        "re-sent verbatim (docs/agy-acp-reference.md §2.7 quirk a)"
    );
    assert_eq!(
        calls[0]["params"]["update"]["locations"][0]["path"],
        json!(format!("{}/a.txt", sb.cwd()))
    );
    agent.finish().await;
}

#[tokio::test]
async fn a_prompt_for_an_unknown_session_is_resource_not_found() {
    let sb = Sandbox::new();
    let mut agent = sb.spawn();
    open_session(&mut agent, &sb.cwd()).await;
    let (_, resp) = agent
        .call(
            "session/prompt",
            json!({"sessionId": "nope", "prompt": [{"type":"text","text":"x"}]}),
        )
        .await;
    assert_eq!(resp["error"]["code"], json!(-32002));
    assert_eq!(resp["error"]["data"]["uri"], json!("session:nope"));
    agent.finish().await;
}

#[tokio::test]
async fn off_schema_updates_and_raw_lines_are_written_as_scripted() {
    let sb = Sandbox::new().with_script(
        r#"
[[prompt]]
steps = [
  { update = { sessionUpdate = "subagent_spawned", _meta = { "agy.kind" = "x" } } },
  { raw = "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"s\",\"update\":{\"sessionUpdate\":\"notice\"}}}" },
  { text = "ok" },
]
"#,
    );
    let mut agent = sb.spawn();
    let sid = open_session(&mut agent, &sb.cwd()).await;
    let (updates, resp) = agent
        .call(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type":"text","text":"go"}]}),
        )
        .await;
    assert_eq!(resp["result"]["stopReason"], json!("end_turn"));
    assert_eq!(
        update_kinds(&updates),
        [
            "available_commands_update",
            "subagent_spawned",
            "notice",
            "agent_message_chunk"
        ]
    );
    assert_eq!(updates[1]["params"]["sessionId"], json!(sid));
    assert_eq!(
        updates[1]["params"]["update"]["_meta"]["agy.kind"],
        json!("x")
    );
    agent.finish().await;
}
