//! A live session: turns, permissions by policy, cancel, late output after a prompt
//! response, and the checkpoint each step leaves.

use super::support::*;
use agy_protocol::acp::{AcpDirection, AcpKind};
use agy_protocol::driver::AcpRestoreState;
use agy_protocol::env::AGY_ACP_AUTH_METHOD;
use serde_json::json;

#[tokio::test]
async fn turns_are_committed_once_each_with_their_numbers() {
    let sb = AcpSandbox::new("");
    let mut d = sb.driver(&[]);
    let hello = d.call(json!({"op":"hello"})).await;
    assert!(hello.result.profiles.contains(&agy_protocol::Profile::Acp));
    let new = d.call(json!({"op":"acp_new","session":"s"})).await;
    assert_ok(&new, "acp_new");
    assert_eq!(new.result.restore_state, Some(AcpRestoreState::Ready));
    assert_eq!(sb.checkpoint("s")["phase"], json!("committed"));
    let one = d
        .call(json!({"op":"acp_prompt","session":"s","text":"one"}))
        .await;
    assert_ok(&one, "turn 1");
    assert_eq!(one.result.text.as_deref(), Some("Received: one"));
    let two = d
        .call(json!({"op":"acp_prompt","session":"s","text":"two"}))
        .await;
    assert_ok(&two, "turn 2");
    let mut want = turn(1, "one", "Received: one").to_vec();
    want.extend(turn(2, "two", "Received: two"));
    assert_eq!(history(&two), want);
    let saved = sb.checkpoint("s");
    assert_eq!(saved["phase"], json!("committed"));
    assert_eq!(saved["turns"], json!(2));
    assert_eq!(saved["version"], json!(1));
    assert!(d.finish().await.success());
    let journal = sb.journal();
    let pids = agent_pids(&journal);
    assert_eq!(pids.len(), 1);
    assert_eq!(
        methods_of(&journal, pids[0]),
        [
            "initialize",
            "session/new",
            "session/prompt",
            "session/prompt"
        ]
    );
}

#[tokio::test]
async fn late_output_after_a_prompt_response_is_not_the_next_turn() {
    // docs/agy-acp-reference.md §1.6, §7 item 10: updates after the prompt response belong to no turn.
    let sb = AcpSandbox::new(
        r#"
[[prompt]]
when = { nth = 1 }
steps = [{ text = "first" }, { respond = "end_turn" }, { text = "LATE TURN ONE" }]
"#,
    );
    let mut d = sb.driver(&[]);
    assert_ok(&d.call(json!({"op":"acp_new","session":"s"})).await, "new");
    let one = d
        .call(json!({"op":"acp_prompt","session":"s","text":"one"}))
        .await;
    assert_eq!(one.result.text.as_deref(), Some("first"));
    // The late text is on the wire before the next prompt is sent: ACP updates carry no
    // turn, so text that only arrives after the next prompt went out could be either
    // turn's, and a loaded machine could otherwise deliver it then.
    sb.wait_for_entry("the late text sent", |e| {
        e.dir == AcpDirection::Out
            && e.message
                .as_ref()
                .is_some_and(|m| m.to_string().contains("LATE TURN ONE"))
    })
    .await;
    let two = d
        .call(json!({"op":"acp_prompt","session":"s","text":"two"}))
        .await;
    assert_ok(&two, "turn 2");
    assert_eq!(two.result.text.as_deref(), Some("Received: two"));
    assert!(
        history(&two)
            .iter()
            .all(|(_, text, _)| !text.contains("LATE")),
        "{:?}",
        history(&two)
    );
    d.finish().await;
}

#[tokio::test]
async fn a_permission_in_a_turn_is_answered_by_policy() {
    for (policy, answer, text) in [
        ("allow", "allow", "I'll create the file.Done."),
        (
            "deny",
            "deny",
            "I'll create the file.I did not create the file.",
        ),
    ] {
        let sb = AcpSandbox::new("");
        let mut d = sb.driver(&[]);
        let new = d
            .call(json!({"op":"acp_new","session":"s","permission":policy}))
            .await;
        assert_ok(&new, "new");
        let r = d
            .call(json!({"op":"acp_prompt","session":"s","text":"Create hello.txt containing ok"}))
            .await;
        assert_ok(&r, "the gated edit");
        assert_eq!(r.result.text.as_deref(), Some(text));
        d.finish().await;
        assert_eq!(permission_outcomes(&sb.journal()), [answer], "{policy}");
    }
}

#[tokio::test]
async fn cancel_reaches_the_running_turn() {
    let sb = AcpSandbox::new(
        "[[prompt]]\nsteps = [{ text = \"working\" }, { wait_for_cancel = true }]\n",
    );
    let mut d = sb.driver(&[]);
    assert_ok(&d.call(json!({"op":"acp_new","session":"s"})).await, "new");
    let turn = d
        .send(json!({"op":"acp_prompt","session":"s","text":"long"}))
        .await;
    sb.wait_for_entry("the prompt reaching the agent", |e| {
        e.dir == AcpDirection::In && e.method.as_deref() == Some("session/prompt")
    })
    .await;
    let cancel = d.call(json!({"op":"acp_cancel","session":"s"})).await;
    assert_ok(&cancel, "cancel");
    let r = d.reply(turn).await;
    assert_eq!(error_name(&r), "AcpTurnCancelledError");
    // A cancelled turn consumed its terminal response: committed, with what it said.
    assert_eq!(history(&r).to_vec(), turn_pair(1, "long", "working"));
    assert_eq!(sb.checkpoint("s")["phase"], json!("committed"));
    d.finish().await;
    let journal = sb.journal();
    assert!(journal.iter().any(|e| e.dir == AcpDirection::In
        && e.kind == AcpKind::Notification
        && e.method.as_deref() == Some("session/cancel")));
}

fn turn_pair(n: u64, user: &str, assistant: &str) -> Vec<(String, String, Option<u64>)> {
    turn(n, user, assistant).to_vec()
}

#[tokio::test]
async fn an_unknown_handle_and_a_bad_handle_are_bad_requests() {
    let sb = AcpSandbox::new("");
    let mut d = sb.driver(&[]);
    let r = d
        .call(json!({"op":"acp_prompt","session":"nope","text":"x"}))
        .await;
    assert_eq!(error_name(&r), "BadRequestError");
    let r = d.call(json!({"op":"acp_new","session":"../x"})).await;
    assert_eq!(error_name(&r), "BadRequestError");
    d.finish().await;
    assert!(agent_pids(&sb.journal()).is_empty(), "no agent was started");
}

#[tokio::test]
async fn authentication_is_reported_or_done_with_the_configured_method() {
    // A fresh install (docs/agy-acp-reference.md §2.4): session/new needs `authenticate` first.
    let script = "[agent]\nauth = \"required\"\n";
    let sb = AcpSandbox::new(script);
    let mut d = sb.driver(&[]);
    let r = d.call(json!({"op":"acp_new","session":"s"})).await;
    assert_eq!(error_name(&r), "AcpAuthError");
    assert_eq!(r.outcome, Some(agy_protocol::driver::Outcome::Auth));
    d.finish().await;
    let journal = sb.journal();
    assert_eq!(
        methods_of(&journal, agent_pids(&journal)[0]),
        ["initialize", "session/new"],
        "no authentication without a configured method"
    );

    let mut sb = AcpSandbox::new(script);
    sb.env
        .push((AGY_ACP_AUTH_METHOD.into(), "gemini-api-key".into()));
    let mut d = sb.driver(&[]);
    assert_ok(&d.call(json!({"op":"acp_new","session":"s"})).await, "new");
    d.finish().await;
    let journal = sb.journal();
    assert_eq!(
        methods_of(&journal, agent_pids(&journal)[0]),
        ["initialize", "session/new", "authenticate", "session/new"]
    );
}

#[tokio::test]
async fn cancel_answers_a_pending_permission_cancelled() {
    // docs/agy-acp-reference.md §1.7, §6.4, §7 item 18: the user has not decided (policy `ask`).
    let sb = AcpSandbox::new("");
    let mut d = sb.driver(&[]);
    let new = d
        .call(json!({"op":"acp_new","session":"s","permission":"ask"}))
        .await;
    assert_ok(&new, "new");
    let turn = d
        .send(json!({"op":"acp_prompt","session":"s","text":"Create hello.txt containing ok"}))
        .await;
    sb.wait_for_entry("the permission request", |e| {
        e.dir == AcpDirection::Out
            && e.kind == AcpKind::Request
            && e.method.as_deref() == Some("session/request_permission")
    })
    .await;
    assert_ok(
        &d.call(json!({"op":"acp_cancel","session":"s"})).await,
        "cancel",
    );
    let r = d.reply(turn).await;
    assert_eq!(error_name(&r), "AcpTurnCancelledError");
    d.finish().await;
    let journal = sb.journal();
    assert_eq!(permission_outcomes(&journal), ["cancelled"]);
    let cancel_at = journal
        .iter()
        .position(|e| e.method.as_deref() == Some("session/cancel"))
        .expect("session/cancel sent");
    let answer_at = journal
        .iter()
        .position(|e| e.permission_outcome().is_some())
        .expect("permission answered");
    assert!(cancel_at < answer_at, "cancel first, then the answer");
}

#[tokio::test]
async fn restart_agent_interrupts_a_hung_turn_and_loads_with_a_gap() {
    let sb = AcpSandbox::new(
        "[[prompt]]\nwhen = { contains = \"stuck\" }\nsteps = [{ text = \"working\" }, { hang = true }]\n",
    );
    let mut d = sb.driver(&[]);
    assert_ok(&d.call(json!({"op":"acp_new","session":"s"})).await, "new");
    let turn = d
        .send(json!({"op":"acp_prompt","session":"s","text":"stuck"}))
        .await;
    sb.wait_for_entry("the hang", |e| {
        e.kind == AcpKind::Exit && e.text.as_deref() == Some("hang: no more answers")
    })
    .await;
    let restart = d
        .call(json!({"op":"acp_restart_agent","session":"s"}))
        .await;
    let r = d.reply(turn).await;
    assert_eq!(error_name(&r), "AcpAgentExitedError");
    assert_ok(&restart, "restart agent");
    assert_eq!(
        restart.result.restore_state,
        Some(AcpRestoreState::HistoryGap)
    );
    let after = d
        .call(json!({"op":"acp_prompt","session":"s","text":"after"}))
        .await;
    assert_ok(&after, "a turn after the restart");
    assert_eq!(after.result.text.as_deref(), Some("Received: after"));
    d.finish().await;
    let journal = sb.journal();
    assert_eq!(
        second_agent_methods(&journal),
        restored_then_prompted("session/load")
    );
    assert_eq!(prompts_sent(&journal), ["stuck", "after"]);
    assert!(
        crate::support::gone(agent_pids(&journal)[0] as i32).await,
        "the hung agent was killed"
    );
}
