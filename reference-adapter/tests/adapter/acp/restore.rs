//! Restores (seed 003): a committed session resumes after a client restart, an agent
//! killed after acknowledging a prompt leads to `session/load` with an explicit history
//! gap, late output of the old session never reaches the new turn, a failed restore
//! never becomes `session/new`, no earlier prompt is sent again. The scenario functions
//! here are also run with each fault switch (`faults.rs`).

use super::support::*;
use agy_protocol::acp::AcpJournalEntry;
use agy_protocol::driver::{AcpRestoreState, Reply};
use serde_json::json;

/// An agent killed after acknowledging "deploy"; the restored agent sends late text, a
/// tool call and a permission request right after its `session/load` response.
pub const KILLED_THEN_LATE: &str = r#"
[[prompt]]
when = { contains = "deploy" }
steps = [{ text = "working" }, { crash = "kill" }]

[load]
late = [
  { text = "LATE OLD OUTPUT" },
  { tool_call = { id = "call_9", title = "Run edit_file?" } },
  { permission = true },
]
"#;

/// A committed turn, a turn whose agent dies after acknowledging it, a client restart,
/// then a new prompt. Returns the new prompt's reply and the fake's journal.
pub async fn killed_turn_then_client_restart(
    script: &str,
    faults: &[&str],
) -> (Reply, Vec<AcpJournalEntry>) {
    let sb = AcpSandbox::new(script);
    let mut d = sb.driver(faults);
    assert_ok(&d.call(json!({"op":"acp_new","session":"s"})).await, "new");
    assert_ok(
        &d.call(json!({"op":"acp_prompt","session":"s","text":"hello"}))
            .await,
        "turn 1",
    );
    let killed = d
        .call(json!({"op":"acp_prompt","session":"s","text":"deploy"}))
        .await;
    assert_eq!(error_name(&killed), "AcpAgentExitedError");
    assert_eq!(
        killed.result.restore_state,
        Some(AcpRestoreState::Restorable)
    );
    assert_eq!(sb.checkpoint("s")["phase"], json!("prompt_pending"));
    assert!(d.finish().await.success());

    let mut d = sb.driver(faults);
    let status = d.call(json!({"op":"acp_status","session":"s"})).await;
    assert_eq!(
        status.result.restore_state,
        Some(AcpRestoreState::Restorable)
    );
    let next = d
        .call(json!({"op":"acp_prompt","session":"s","text":"next"}))
        .await;
    d.finish().await;
    (next, sb.journal())
}

/// The history the correct client shows after [`killed_turn_then_client_restart`].
pub fn gap_history() -> Vec<(String, String, Option<u64>)> {
    let mut want = turn(1, "hello", "Received: hello").to_vec();
    want.push((
        "gap".into(),
        "turn 2: the prompt was sent but its response never arrived; what the agent did then is not in this history".into(),
        Some(2),
    ));
    want.extend(turn(3, "next", "Received: next"));
    want
}

#[tokio::test]
async fn a_pending_prompt_is_loaded_with_a_gap_and_late_output_stays_quarantined() {
    let (next, journal) = killed_turn_then_client_restart(KILLED_THEN_LATE, &[]).await;
    assert_ok(&next, "the prompt after the restart");
    // The seed's P2: late text of the old session never reaches the new turn.
    assert_eq!(next.result.text.as_deref(), Some("Received: next"));
    assert_eq!(next.result.restore_state, Some(AcpRestoreState::HistoryGap));
    // Replay kept out of the canonical history; the gap explicit.
    assert_eq!(history(&next), gap_history());
    let quarantine = &next.result.extra.as_ref().expect("extra")["quarantine"];
    assert!(
        quarantine["quarantined"].as_u64() >= Some(4),
        "{quarantine}"
    );
    assert_eq!(quarantine["permissions_cancelled"], json!(1));
    // The late permission request was answered `cancelled`.
    assert_eq!(permission_outcomes(&journal), ["cancelled"]);
    assert_eq!(
        second_agent_methods(&journal),
        restored_then_prompted("session/load")
    );
    assert_eq!(prompts_sent(&journal), ["hello", "deploy", "next"]);
}

#[tokio::test]
async fn replay_after_the_load_response_is_kept_out_of_history() {
    // gemini-cli's order (docs/agy-acp-reference.md §2.9, §4 item 6): replay after the response.
    let script = "[[prompt]]\nwhen = { contains = \"deploy\" }\nsteps = [{ text = \"working\" }, { crash = \"kill\" }]\n[load]\nreplay = \"after_response\"\n";
    let (next, journal) = killed_turn_then_client_restart(script, &[]).await;
    assert_ok(&next, "the prompt after the restart");
    assert_eq!(next.result.text.as_deref(), Some("Received: next"));
    assert_eq!(history(&next), gap_history());
    assert_eq!(prompts_sent(&journal), ["hello", "deploy", "next"]);
}

/// A committed session, a client restart, and a prompt; `script` may make the resume fail.
pub async fn committed_then_client_restart(
    script: &str,
    faults: &[&str],
) -> (Reply, Vec<AcpJournalEntry>) {
    let sb = AcpSandbox::new(script);
    let mut d = sb.driver(faults);
    assert_ok(
        &d.call(json!({"op":"acp_new","session":"s","model":"gemini-3.8-flash-low"}))
            .await,
        "new",
    );
    assert_ok(
        &d.call(json!({"op":"acp_prompt","session":"s","text":"one"}))
            .await,
        "turn 1",
    );
    assert!(d.finish().await.success());
    let mut d = sb.driver(faults);
    let two = d
        .call(json!({"op":"acp_prompt","session":"s","text":"two"}))
        .await;
    d.finish().await;
    (two, sb.journal())
}

#[tokio::test]
async fn a_committed_session_resumes_after_a_client_restart() {
    let (two, journal) = committed_then_client_restart("", &[]).await;
    assert_ok(&two, "the prompt after the restart");
    assert_eq!(two.result.restore_state, Some(AcpRestoreState::Restored));
    let mut want = turn(1, "one", "Received: one").to_vec();
    want.extend(turn(2, "two", "Received: two"));
    assert_eq!(history(&two), want);
    // Resume preferred; model re-applied (Antigravity forgets it, docs/agy-acp-reference.md §2.9).
    assert_eq!(
        second_agent_methods(&journal),
        restored_then_prompted("session/resume")
    );
    let model_set = journal
        .iter()
        .filter(|e| e.pid == agent_pids(&journal)[1])
        .filter(|e| e.method.as_deref() == Some("session/set_config_option"))
        .filter_map(|e| e.message.as_ref())
        .any(|m| {
            m.pointer("/params/configId") == Some(&json!("model"))
                && m.pointer("/params/value") == Some(&json!("gemini-3.8-flash-low"))
        });
    assert!(model_set, "the saved model is re-applied after the restore");
    assert_eq!(prompts_sent(&journal), ["one", "two"]);
}

pub const RESUME_FAILS: &str =
    "[resume]\nerror = { code = -32002, message = \"Resource not found\" }\n";

#[tokio::test]
async fn a_failed_restore_stays_restorable_and_never_creates_a_session() {
    let (two, journal) = committed_then_client_restart(RESUME_FAILS, &[]).await;
    assert_eq!(error_name(&two), "AcpRestoreFailedError");
    assert_eq!(two.result.restore_state, Some(AcpRestoreState::Restorable));
    let methods = second_agent_methods(&journal);
    assert!(!methods.contains(&"session/new".to_string()), "{methods:?}");
    assert_eq!(
        prompts_sent(&journal),
        ["one"],
        "the new prompt is not sent"
    );
}

#[tokio::test]
async fn restart_agent_restores_the_same_session_on_a_new_process() {
    let sb = AcpSandbox::new("");
    let mut d = sb.driver(&[]);
    let new = d.call(json!({"op":"acp_new","session":"s"})).await;
    assert_ok(&new, "new");
    let sid = new.result.extra.as_ref().expect("extra")["session_id"].clone();
    assert_ok(
        &d.call(json!({"op":"acp_prompt","session":"s","text":"one"}))
            .await,
        "turn 1",
    );
    let restarted = d
        .call(json!({"op":"acp_restart_agent","session":"s"}))
        .await;
    assert_ok(&restarted, "restart agent");
    assert_eq!(
        restarted.result.restore_state,
        Some(AcpRestoreState::Restored)
    );
    assert_eq!(
        restarted.result.extra.as_ref().expect("extra")["session_id"],
        sid
    );
    let two = d
        .call(json!({"op":"acp_prompt","session":"s","text":"two"}))
        .await;
    assert_ok(&two, "turn 2");
    d.finish().await;
    let journal = sb.journal();
    let methods = second_agent_methods(&journal);
    assert!(
        methods.contains(&"session/resume".to_string()),
        "{methods:?}"
    );
    assert!(!methods.contains(&"session/new".to_string()), "{methods:?}");
}

#[tokio::test]
async fn an_unreadable_checkpoint_is_history_only_and_starts_no_agent() {
    let sb = AcpSandbox::new("");
    std::fs::create_dir_all(sb.path("state/acp")).expect("mkdir");
    for (handle, text) in [
        ("torn", "{\"version\":1,\"session_id\":\"x\""),
        ("future", "{\"version\":9,\"session_id\":\"x\",\"cwd\":\"/\",\"phase\":\"committed\",\"turns\":0,\"history\":[]}"),
    ] {
        std::fs::write(sb.path(&format!("state/acp/{handle}.json")), text).expect("write");
        let mut d = sb.driver(&[]);
        let status = d.call(json!({"op":"acp_status","session":handle})).await;
        assert_eq!(status.result.restore_state, Some(AcpRestoreState::HistoryOnly));
        let r = d
            .call(json!({"op":"acp_prompt","session":handle,"text":"x"}))
            .await;
        assert_eq!(error_name(&r), "AcpHistoryOnlyError");
        d.finish().await;
    }
    assert!(agent_pids(&sb.journal()).is_empty());
}

#[tokio::test]
async fn an_explicit_restore_of_a_pending_prompt_reports_the_gap_and_sends_nothing() {
    let sb = AcpSandbox::new(KILLED_THEN_LATE);
    let mut d = sb.driver(&[]);
    assert_ok(&d.call(json!({"op":"acp_new","session":"s"})).await, "new");
    let killed = d
        .call(json!({"op":"acp_prompt","session":"s","text":"deploy"}))
        .await;
    assert_eq!(error_name(&killed), "AcpAgentExitedError");
    let restored = d.call(json!({"op":"acp_restore","session":"s"})).await;
    assert_ok(&restored, "restore");
    assert_eq!(
        restored.result.restore_state,
        Some(AcpRestoreState::HistoryGap)
    );
    let roles: Vec<String> = history(&restored).into_iter().map(|(r, _, _)| r).collect();
    assert_eq!(roles, ["gap"]);
    assert_eq!(sb.checkpoint("s")["phase"], json!("committed"));
    let again = d.call(json!({"op":"acp_restore","session":"s"})).await;
    assert_ok(&again, "a second restore of a live session");
    d.finish().await;
    let journal = sb.journal();
    assert_eq!(permission_outcomes(&journal), ["cancelled"]);
    assert_eq!(prompts_sent(&journal), ["deploy"], "nothing is sent again");
    let methods = second_agent_methods(&journal);
    assert!(!methods.contains(&"session/new".to_string()), "{methods:?}");
}

#[tokio::test]
async fn a_session_the_agent_no_longer_knows_fails_the_restore_with_its_error() {
    // The fake answers an unknown id with the spec's -32002 (docs/agy-acp-reference.md §6.6).
    let sb = AcpSandbox::new("");
    let mut d = sb.driver(&[]);
    assert_ok(&d.call(json!({"op":"acp_new","session":"s"})).await, "new");
    assert_ok(
        &d.call(json!({"op":"acp_prompt","session":"s","text":"one"}))
            .await,
        "turn 1",
    );
    d.finish().await;
    std::fs::remove_dir_all(sb.path("home/.gemini/antigravity-acp/conversations"))
        .expect("forget the agent's sessions");
    let mut d = sb.driver(&[]);
    let r = d.call(json!({"op":"acp_restore","session":"s"})).await;
    assert_eq!(error_name(&r), "AcpRestoreFailedError");
    let message = &r.error.as_ref().expect("error").message;
    assert!(message.contains("-32002"), "{message}");
    assert_eq!(r.result.restore_state, Some(AcpRestoreState::Restorable));
    // The canonical history is still there to read.
    assert_eq!(history(&r), turn(1, "one", "Received: one").to_vec());
    d.finish().await;
    let journal = sb.journal();
    let pids = agent_pids(&journal);
    assert_eq!(
        methods_of(&journal, pids[1]),
        ["initialize", "session/resume"]
    );
}

#[tokio::test]
async fn close_stops_the_agent_and_keeps_the_checkpoint() {
    let sb = AcpSandbox::new("");
    let mut d = sb.driver(&[]);
    let new = d.call(json!({"op":"acp_new","session":"s"})).await;
    let pid = new.result.extra.as_ref().expect("extra")["agent_pid"]
        .as_i64()
        .expect("agent pid") as i32;
    let closed = d.call(json!({"op":"acp_close","session":"s"})).await;
    assert_ok(&closed, "close");
    assert!(crate::support::gone(pid).await, "the agent exited");
    assert_eq!(sb.checkpoint("s")["phase"], json!("committed"));
    // Not advertised by Antigravity (docs/agy-acp-reference.md §2.3): never called.
    let journal = sb.journal();
    assert!(!methods_of(&journal, agent_pids(&journal)[0]).contains(&"session/close".to_string()));
    let status = d.call(json!({"op":"acp_status","session":"s"})).await;
    assert_eq!(
        status.result.restore_state,
        Some(AcpRestoreState::Restorable)
    );
    d.finish().await;
}

#[tokio::test]
async fn the_gap_restore_transcript() {
    let (next, journal) = killed_turn_then_client_restart(KILLED_THEN_LATE, &[]).await;
    snapshot_settings().bind(|| {
        insta::assert_json_snapshot!("gap-restore", transcript(&next, &journal), {
            ".reply.result.extra.session_id" => "[ID]",
            ".reply.result.extra.agent_pid" => "[PID]",
        })
    });
}

#[tokio::test]
async fn a_resume_that_replays_or_sends_late_output_changes_nothing_in_the_new_turn() {
    // opencode #30756 (docs/agy-acp-reference.md §4 item 10): a resume that replays; and late output after
    // the resume response.
    for script in [
        "[resume]\nreplay = \"before_response\"\n",
        "[resume]\nreplay = \"after_response\"\n",
        "[resume]\nlate = [{ text = \"LATE RESUME\" }, { tool_call = { id = \"call_7\" } }, { permission = true }]\n",
    ] {
        let (two, journal) = committed_then_client_restart(script, &[]).await;
        assert_ok(&two, script);
        assert_eq!(two.result.text.as_deref(), Some("Received: two"), "{script}");
        let mut want = turn(1, "one", "Received: one").to_vec();
        want.extend(turn(2, "two", "Received: two"));
        assert_eq!(history(&two), want, "{script}");
        assert!(
            permission_outcomes(&journal).iter().all(|o| o == "cancelled"),
            "{script}: {:?}",
            permission_outcomes(&journal)
        );
        assert_eq!(prompts_sent(&journal), ["one", "two"], "{script}");
    }
}

#[tokio::test]
async fn a_client_killed_mid_turn_restores_with_a_gap_in_its_next_process() {
    // The Host-restart case of seed 003: the client dies (SIGKILL) while a prompt is
    // outstanding; its agent dies with it; the next client process loads the session.
    let sb = AcpSandbox::new(
        "[[prompt]]\nwhen = { contains = \"stuck\" }\nsteps = [{ text = \"working\" }, { hang = true }]\n",
    );
    let mut d = sb.driver(&[]);
    assert_ok(&d.call(json!({"op":"acp_new","session":"s"})).await, "new");
    d.send(json!({"op":"acp_prompt","session":"s","text":"stuck"}))
        .await;
    sb.wait_for_entry("the hang", |e| {
        e.kind == agy_protocol::acp::AcpKind::Exit
            && e.text.as_deref() == Some("hang: no more answers")
    })
    .await;
    d.child.start_kill().expect("SIGKILL the driver");
    tokio::time::timeout(crate::support::WAIT, d.child.wait())
        .await
        .expect("the driver dies")
        .expect("wait");
    let first_agent = agent_pids(&sb.journal())[0] as i32;
    assert!(
        crate::support::gone(first_agent).await,
        "the agent does not outlive its client"
    );
    assert_eq!(sb.checkpoint("s")["phase"], json!("prompt_pending"));

    let mut d = sb.driver(&[]);
    let next = d
        .call(json!({"op":"acp_prompt","session":"s","text":"next"}))
        .await;
    assert_ok(&next, "the prompt in the new client process");
    assert_eq!(next.result.restore_state, Some(AcpRestoreState::HistoryGap));
    let roles: Vec<String> = history(&next).into_iter().map(|(r, _, _)| r).collect();
    assert_eq!(roles, ["gap", "user", "assistant"]);
    d.finish().await;
    let journal = sb.journal();
    assert_eq!(prompts_sent(&journal), ["stuck", "next"]);
    let pids = agent_pids(&journal);
    assert!(methods_of(&journal, pids[1]).contains(&"session/load".to_string()));
}
