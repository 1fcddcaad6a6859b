//! Each ACP fault switch, run through the scenario the correct client passes in
//! `restore.rs`: the expectation the correct client keeps is observed broken.

use super::restore::{
    committed_then_client_restart, gap_history, killed_turn_then_client_restart, KILLED_THEN_LATE,
    RESUME_FAILS,
};
use super::support::*;

#[tokio::test]
async fn quarantine_lifted_early_leaks_late_text_into_the_new_turn() {
    let (next, journal) =
        killed_turn_then_client_restart(KILLED_THEN_LATE, &["acp-quarantine-lifted-early"]).await;
    let text = next.result.text.clone().unwrap_or_default();
    assert!(
        text.contains("LATE OLD OUTPUT"),
        "the leak is observed: {text:?}"
    );
    assert_ne!(permission_outcomes(&journal), ["cancelled"]);
}

#[tokio::test]
async fn falling_back_to_session_new_forks_the_conversation() {
    let (two, journal) =
        committed_then_client_restart(RESUME_FAILS, &["acp-falls-back-to-session-new"]).await;
    assert_ok(&two, "the faulty client hides the failed restore");
    let pids = agent_pids(&journal);
    assert!(methods_of(&journal, pids[1]).contains(&"session/new".to_string()));
}

#[tokio::test]
async fn appending_load_replay_duplicates_earlier_turns() {
    let (next, _) =
        killed_turn_then_client_restart(KILLED_THEN_LATE, &["acp-appends-load-replay"]).await;
    assert_ne!(history(&next), gap_history());
    let hellos = history(&next)
        .iter()
        .filter(|(role, text, _)| role == "user" && text == "hello")
        .count();
    assert_eq!(hellos, 2, "{:?}", history(&next));
}

#[tokio::test]
async fn resending_the_last_prompt_runs_it_twice() {
    let (_, journal) =
        killed_turn_then_client_restart(KILLED_THEN_LATE, &["acp-resends-last-prompt"]).await;
    assert_eq!(
        prompts_sent(&journal)
            .iter()
            .filter(|p| p.as_str() == "deploy")
            .count(),
        2,
        "{:?}",
        prompts_sent(&journal)
    );
    let (_, journal) = committed_then_client_restart("", &["acp-resends-last-prompt"]).await;
    assert_eq!(prompts_sent(&journal), ["one", "one", "two"]);
}
