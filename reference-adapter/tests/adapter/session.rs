//! session against a persistent stream-json stand-in: kept process, replay filter,
//! release triggers and the SIGTERM → SIGKILL escalation.

use crate::support::*;
use agy_protocol::driver::{Outcome, Reply};
use serde_json::json;

async fn turn(d: &mut Driver, text: &str) -> Reply {
    d.call(json!({"op": "turn", "session": "s", "text": text}))
        .await
}

async fn open(d: &mut Driver) {
    let r = d.call(json!({"op": "open", "session": "s"})).await;
    assert!(r.ok, "{r:?}");
}

fn history_texts(r: &Reply) -> Vec<(String, String, u64)> {
    r.result
        .history
        .as_ref()
        .expect("history")
        .iter()
        .map(|e| (e.role.clone(), e.text.clone(), e.turn.expect("turn number")))
        .collect()
}

#[tokio::test]
async fn three_turns_share_one_process_and_a_model_change_starts_a_new_one() {
    let sb = Sandbox::new(STREAM_AGY);
    let mut d = sb.driver(&[]);
    open(&mut d).await;
    for text in ["one", "two", "three"] {
        let r = turn(&mut d, text).await;
        assert!(r.ok, "{r:?}");
        assert_eq!(
            r.result.text.as_deref(),
            Some(format!("answer to: {text}").as_str())
        );
    }
    assert_eq!(sb.pids().len(), 1, "three turns, one agy");
    let first = sb.pids()[0];
    let r = d
        .call(json!({"op": "select", "session": "s", "model": "gemini-3.1-pro-low"}))
        .await;
    assert!(r.ok);
    assert!(gone(first).await, "the old process is released");
    let r = turn(&mut d, "four").await;
    assert!(r.ok, "{r:?}");
    assert_eq!(sb.pids().len(), 2);
    let extra = r.result.extra.clone().expect("extra");
    assert_eq!(extra["releases"], json!(["selection_changed"]));
    assert_eq!(extra["processes_started"], json!(2));

    let h = history_texts(&r);
    assert_eq!(h.len(), 8);
    for (n, text) in ["one", "two", "three", "four"].iter().enumerate() {
        let turn_no = n as u64 + 1;
        assert_eq!(h[2 * n], ("user".to_string(), text.to_string(), turn_no));
        assert_eq!(
            h[2 * n + 1],
            (
                "assistant".to_string(),
                format!("answer to: {text}"),
                turn_no
            )
        );
    }
    let argvs = sb.argvs();
    let work = sb.path("work").display().to_string();
    assert_eq!(
        argvs[0],
        [
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--add-dir",
            &work
        ]
    );
    assert!(argvs[1]
        .windows(2)
        .any(|w| w == ["--model", "gemini-3.1-pro-low"]));
    // The new process continues the conversation by id; only that path resumes.
    assert_eq!(argvs[1][argvs[1].len() - 2], "--conversation");
    let close = d.call(json!({"op": "close", "session": "s"})).await;
    assert!(close.ok);
    let second = sb.pids()[1];
    assert!(gone(second).await, "close releases the process");
    assert_eq!(sb.events("eof").len(), 2, "both releases ended stdin first");
    assert!(d.finish().await.success());
}

#[tokio::test]
async fn replayed_results_and_steps_are_not_a_new_turn() {
    let mut sb = Sandbox::new(STREAM_AGY);
    sb.set("STANDIN_REPLAY", "1");
    let mut d = sb.driver(&[]);
    open(&mut d).await;
    turn(&mut d, "first").await;
    let r = turn(&mut d, "second").await;
    assert!(r.ok, "{r:?}");
    assert_eq!(r.result.text.as_deref(), Some("answer to: second"));
    assert_eq!(history_texts(&r).len(), 4);
    assert_eq!(sb.pids().len(), 1);
    d.finish().await;
}

#[tokio::test]
async fn without_the_replay_filter_the_old_answer_comes_back() {
    let mut sb = Sandbox::new(STREAM_AGY);
    sb.set("STANDIN_REPLAY", "1");
    let mut d = sb.driver(&["no-replay-filter"]);
    open(&mut d).await;
    turn(&mut d, "first").await;
    let r = turn(&mut d, "second").await;
    assert_eq!(r.result.text.as_deref(), Some("answer to: first"), "{r:?}");
    d.finish().await;
}

#[tokio::test]
async fn a_late_step_of_the_previous_turn_is_dropped_unless_the_fault_is_on() {
    for (faults, expect_late) in [(vec![], false), (vec!["late-step-to-current-turn"], true)] {
        let mut sb = Sandbox::new(STREAM_AGY);
        sb.set("STANDIN_LATE", "1");
        let mut d = sb.driver(&faults);
        open(&mut d).await;
        turn(&mut d, "first").await;
        let r = turn(&mut d, "second").await;
        let text = r.result.text.clone().expect("text");
        assert_eq!(text.contains("LATE"), expect_late, "{faults:?}: {text}");
        d.finish().await;
    }
}

#[tokio::test]
async fn a_failed_turn_releases_the_process_and_the_next_turn_starts_another() {
    for (faults, expected_pids) in [(vec![], 2), (vec!["keeps-process-after-failure"], 1)] {
        let mut sb = Sandbox::new(STREAM_AGY);
        sb.set("STANDIN_FAIL_TURN", "2");
        let mut d = sb.driver(&faults);
        open(&mut d).await;
        assert!(turn(&mut d, "one").await.ok);
        let failed = turn(&mut d, "two").await;
        assert!(!failed.ok);
        assert_eq!(failed.outcome, Some(Outcome::Permanent), "{failed:?}");
        assert_eq!(
            history_texts(&failed).len(),
            2,
            "a failed turn is not history"
        );
        let r = turn(&mut d, "three").await;
        assert!(r.ok, "{faults:?}: {r:?}");
        assert_eq!(sb.pids().len(), expected_pids, "{faults:?}");
        d.finish().await;
    }
}

#[tokio::test]
async fn process_per_turn_and_keeping_after_a_model_change_show_in_the_pids() {
    let sb = Sandbox::new(STREAM_AGY);
    let mut d = sb.driver(&["process-per-turn"]);
    open(&mut d).await;
    turn(&mut d, "one").await;
    turn(&mut d, "two").await;
    assert_eq!(sb.pids().len(), 2);
    d.finish().await;

    let sb = Sandbox::new(STREAM_AGY);
    let mut d = sb.driver(&["keeps-process-after-model-change"]);
    open(&mut d).await;
    turn(&mut d, "one").await;
    d.call(json!({"op": "select", "session": "s", "effort": "high"}))
        .await;
    turn(&mut d, "two").await;
    assert_eq!(sb.pids().len(), 1);
    d.finish().await;
}

/// A driver with session `s` open and a turn whose agy hangs, once the stand-in has the
/// turn's line (so the turn is really running); the turn's request id.
async fn hung_turn(sb: &mut Sandbox) -> (Driver, u64) {
    sb.set("STANDIN_HANG_ON", "hang");
    let mut d = sb.driver(&[]);
    open(&mut d).await;
    let turn_id = d
        .send(json!({"op": "turn", "session": "s", "text": "hang"}))
        .await;
    sb.wait_for_event("line").await;
    (d, turn_id)
}

#[tokio::test]
async fn cancel_ends_a_running_turn_and_releases_agy() {
    let mut sb = Sandbox::new(STREAM_AGY);
    let (mut d, turn_id) = hung_turn(&mut sb).await;
    let cancel = d.call(json!({"op": "cancel", "session": "s"})).await;
    assert!(cancel.ok);
    let r = d.reply(turn_id).await;
    assert_eq!(
        (r.outcome, r.retryable),
        (Some(Outcome::Transient), Some(true)),
        "{r:?}"
    );
    assert!(gone(sb.pids()[0]).await);
    d.finish().await;
}

#[tokio::test]
async fn an_agy_that_ignores_sigterm_gets_sigkill_within_the_grace() {
    let mut sb = Sandbox::new(STREAM_AGY);
    sb.set("STANDIN_IGNORE_TERM", "1");
    let mut d = sb.driver(&[]);
    open(&mut d).await;
    turn(&mut d, "one").await;
    let r = d.call(json!({"op": "close", "session": "s"})).await;
    assert!(r.ok);
    let pid = sb.pids()[0];
    // The close reply comes after the release: SIGTERM was sent and the process is gone.
    assert!(!alive(pid), "still alive after close");
    assert_eq!(sb.events("signal").len(), 1);
    d.finish().await;
}

#[tokio::test]
async fn sigterm_without_sigkill_leaves_the_process_running() {
    let mut sb = Sandbox::new(STREAM_AGY);
    sb.set("STANDIN_IGNORE_TERM", "1");
    let mut d = sb.driver(&["sigterm-without-sigkill"]);
    open(&mut d).await;
    turn(&mut d, "one").await;
    let r = d.call(json!({"op": "close", "session": "s"})).await;
    assert!(r.ok);
    let pid = sb.pids()[0];
    assert_eq!(sb.events("signal").len(), 1, "SIGTERM was sent");
    assert!(alive(pid), "the faulty variant never escalates");
    kill(pid);
    d.finish().await;
}

#[tokio::test]
async fn a_turn_on_an_unknown_session_is_a_bad_request() {
    let sb = Sandbox::new(STREAM_AGY);
    let mut d = sb.driver(&[]);
    let r = turn(&mut d, "x").await;
    assert_eq!(r.error.expect("error").name, "BadRequestError");
    assert!(sb.pids().is_empty());
    d.finish().await;
}

#[tokio::test]
async fn close_during_a_hung_turn_cancels_it_and_leaves_no_process() {
    let mut sb = Sandbox::new(STREAM_AGY);
    sb.set("STANDIN_IGNORE_TERM", "1");
    let (mut d, turn_id) = hung_turn(&mut sb).await;
    let close = d.call(json!({"op": "close", "session": "s"})).await;
    assert!(close.ok);
    let r = d.reply(turn_id).await;
    assert_eq!(r.error.expect("error").name, "TurnCancelledError");
    assert!(!alive(sb.pids()[0]), "close replied before agy was gone");
    d.finish().await;
}

#[tokio::test]
async fn an_invalid_utf8_line_does_not_end_the_stream() {
    let mut sb = Sandbox::new(STREAM_AGY);
    sb.set("STANDIN_GARBAGE", "1");
    let mut d = sb.driver(&[]);
    open(&mut d).await;
    let r = turn(&mut d, "one").await;
    assert!(r.ok, "{r:?}");
    assert!(turn(&mut d, "two").await.ok);
    assert_eq!(sb.pids().len(), 1);
    d.finish().await;
}

#[tokio::test]
async fn pipelined_turns_run_in_order_before_a_pipelined_close() {
    let sb = Sandbox::new(STREAM_AGY);
    let mut d = sb.driver(&[]);
    let mut ids = vec![d.send(json!({"op": "open", "session": "s"})).await];
    for text in ["one", "two", "three"] {
        ids.push(
            d.send(json!({"op": "turn", "session": "s", "text": text}))
                .await,
        );
    }
    ids.push(d.send(json!({"op": "close", "session": "s"})).await);
    let mut replies = Vec::new();
    for id in ids {
        replies.push(d.reply(id).await);
    }
    assert!(replies.iter().all(|r| r.ok), "{replies:?}");
    assert_eq!(replies[3].result.text.as_deref(), Some("answer to: three"));
    assert_eq!(history_texts(&replies[4]).len(), 6);
    assert_eq!(sb.pids().len(), 1);
    assert!(!alive(sb.pids()[0]));
    d.finish().await;
}

#[tokio::test]
async fn turns_requested_before_stdin_closes_still_run() {
    let sb = Sandbox::new(STREAM_AGY);
    let mut d = sb.driver(&[]);
    d.send(json!({"op": "open", "session": "s"})).await;
    let id = d
        .send(json!({"op": "turn", "session": "s", "text": "last words"}))
        .await;
    let mut stdin_closed = d;
    stdin_closed.close_stdin();
    let r = stdin_closed.reply(id).await;
    assert!(r.ok, "{r:?}");
    assert!(stdin_closed.finish().await.success());
    assert!(!alive(sb.pids()[0]));
}
