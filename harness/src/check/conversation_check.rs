//! `continues`: one turn invocation works on the conversation of an earlier one — a
//! process-per-turn client continued it (`--conversation <id>`, `--continue`, however
//! the adapter spells it) rather than starting a new conversation. Judged by effect:
//! the conversation fake-agy journaled for each run. `conversations`: how many agy
//! conversations the turn invocations worked on, whether the adapter runs one print
//! run per prompt or sends every prompt of a session to one persistent process.

use super::failure::Failure;
use agy_protocol::journal::JournalRecord;

/// The conversation a run worked on, as fake-agy journaled it (`None`: the run ended
/// before a conversation existed, or a wrapper recorded none).
fn conversation(r: &JournalRecord) -> Option<&str> {
    r.conversation_id.as_deref().filter(|id| !id.is_empty())
}

/// What is wrong with `r` continuing the conversation of `earlier`, if anything: the
/// two runs must have worked on one conversation. The one place this is decided, so a
/// richer journal (the turn within the conversation) changes only this function. The
/// caller adds the two runs' argv as evidence.
pub fn continues_check(
    place: &str,
    earlier_nth: u32,
    earlier: Option<&JournalRecord>,
    r: &JournalRecord,
) -> Option<Failure> {
    let expected = format!("the conversation of turn invocation {earlier_nth}, continued");
    let Some(earlier) = earlier else {
        return Some(Failure::new(
            place,
            "continues",
            expected,
            format!("there is no turn invocation {earlier_nth}"),
        ));
    };
    let (was, now) = (conversation(earlier), conversation(r));
    if was.is_some() && was == now {
        return None;
    }
    let show = |c: Option<&str>| {
        c.map_or("no conversation".to_string(), |c| {
            format!("conversation {c}")
        })
    };
    let observed = match (was, now) {
        (Some(_), Some(_)) => format!("a new conversation: {}", show(now)),
        _ => show(now),
    };
    Some(
        Failure::new(place, "continues", expected, observed).closest(format!(
            "invocation {} worked on {}",
            earlier.invocation,
            show(was)
        )),
    )
}

/// What is wrong with the turn invocations `runs` having worked on `want` agy
/// conversations, if anything. A run that recorded none (it ended before a
/// conversation existed) counts for none.
pub fn conversations_check(place: &str, want: u32, runs: &[&JournalRecord]) -> Option<Failure> {
    let ids: std::collections::BTreeSet<&str> =
        runs.iter().filter_map(|r| conversation(r)).collect();
    if ids.len() == want as usize {
        return None;
    }
    let shown: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "invocation {}: {}",
                r.invocation,
                conversation(r).unwrap_or("no conversation")
            )
        })
        .collect();
    Some(
        Failure::new(
            place,
            "conversations",
            want.to_string(),
            ids.len().to_string(),
        )
        .evidence(shown),
    )
}

/// Whether run `r` was given `prompt`: as an argv word (`-p PROMPT`) or inside a stdin
/// line (a persistent process's user line).
fn carries(r: &JournalRecord, prompt: &str) -> bool {
    r.argv.iter().any(|a| a == prompt) || r.stdin.lines.iter().any(|l| l.text.contains(prompt))
}

/// What is wrong with the turns given `prompts` having worked on one agy conversation,
/// if anything: a session's prompts continue its own conversation, not another
/// session's (`--continue` resumes the workspace's latest, whoever made it). By effect,
/// whatever the process model: print runs that continued it, or one persistent process.
pub fn one_conversation_check(
    place: &str,
    prompts: &[String],
    runs: &[&JournalRecord],
) -> Option<Failure> {
    let expected = format!(
        "the turns given {} on one conversation",
        prompts.join(" and ")
    );
    let mut seen: Vec<String> = Vec::new();
    for p in prompts {
        let Some(r) = runs.iter().find(|r| carries(r, p)) else {
            return Some(Failure::new(
                place,
                "one_conversation",
                expected,
                format!("no turn invocation was given `{p}`"),
            ));
        };
        seen.push(format!(
            "`{p}`: invocation {}, {}",
            r.invocation,
            conversation(r).unwrap_or("no conversation")
        ));
    }
    let ids: std::collections::BTreeSet<Option<&str>> = prompts
        .iter()
        .filter_map(|p| runs.iter().find(|r| carries(r, p)))
        .map(|r| conversation(r))
        .collect();
    match ids.iter().next() {
        Some(Some(_)) if ids.len() == 1 => None,
        _ => Some(
            Failure::new(place, "one_conversation", expected, seen.join("; ")).closest(
                "a later prompt continues its session's own conversation (--conversation ID)",
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(invocation: u32, conversation: Option<&str>) -> JournalRecord {
        let line = serde_json::json!({
            "v": 1, "complete": true, "invocation": invocation, "pid": 100 + invocation,
            "ppid": 1, "argv": ["agy", "-p", "hi"], "cwd": "/w", "env": {},
            "conversation_id": conversation, "started_us": 1, "stdin": {"bytes": 0},
            "stdout_bytes": 0, "stderr_bytes": 0
        });
        serde_json::from_value(line).expect("a journal record")
    }

    #[test]
    fn the_same_conversation_continues() {
        let first = record(1, Some("c-1"));
        let f = continues_check("invocation 2", 1, Some(&first), &record(2, Some("c-1")));
        assert_eq!(f, None);
    }

    #[test]
    fn a_new_conversation_is_named_with_both_ids() {
        let first = record(1, Some("c-1"));
        let f = continues_check("invocation 2", 1, Some(&first), &record(2, Some("c-2")))
            .expect("a failure");
        assert!(
            f.observed.contains("a new conversation: conversation c-2"),
            "{f}"
        );
        assert!(f.closest.as_deref().unwrap_or("").contains("c-1"), "{f}");
    }

    #[test]
    fn conversations_are_counted_whatever_the_process_model() {
        let (a, b) = (record(1, Some("c-1")), record(2, Some("c-1")));
        assert_eq!(
            conversations_check("journal", 1, &[&a, &b]),
            None,
            "print runs"
        );
        assert_eq!(
            conversations_check("journal", 1, &[&a]),
            None,
            "one process"
        );
        let c = record(3, Some("c-2"));
        let f = conversations_check("journal", 1, &[&a, &c]).expect("two");
        assert_eq!(f.observed, "2");
        assert_eq!(
            conversations_check("journal", 2, &[&a, &record(4, None), &c]),
            None
        );
    }

    fn given(invocation: u32, prompt: &str, conversation: Option<&str>) -> JournalRecord {
        let mut r = record(invocation, conversation);
        r.argv = vec!["agy".into(), "-p".into(), prompt.into()];
        r
    }

    #[test]
    fn a_sessions_prompts_on_its_own_conversation_hold() {
        let runs = [
            given(1, "first of a", Some("c-a")),
            given(2, "first of b", Some("c-b")),
            given(3, "second of a", Some("c-a")),
        ];
        let refs: Vec<&JournalRecord> = runs.iter().collect();
        let prompts = ["first of a".to_string(), "second of a".to_string()];
        assert_eq!(one_conversation_check("journal", &prompts, &refs), None);
    }

    #[test]
    fn a_prompt_on_another_sessions_conversation_is_named_with_both() {
        let runs = [
            given(1, "first of a", Some("c-a")),
            given(2, "first of b", Some("c-b")),
            given(3, "second of a", Some("c-b")),
        ];
        let refs: Vec<&JournalRecord> = runs.iter().collect();
        let prompts = ["first of a".to_string(), "second of a".to_string()];
        let f = one_conversation_check("journal", &prompts, &refs).expect("a failure");
        assert!(f.observed.contains("invocation 3, c-b"), "{f}");
        assert!(f.observed.contains("invocation 1, c-a"), "{f}");
    }

    #[test]
    fn a_prompt_no_turn_was_given_or_runs_without_a_conversation_fail() {
        let runs = [given(1, "first of a", None), given(2, "second of a", None)];
        let refs: Vec<&JournalRecord> = runs.iter().collect();
        let both = ["first of a".to_string(), "second of a".to_string()];
        assert!(one_conversation_check("journal", &both, &refs).is_some());
        let missing = ["third of a".to_string()];
        let f = one_conversation_check("journal", &missing, &refs).expect("a failure");
        assert!(f.observed.contains("third of a"), "{f}");
    }

    #[test]
    fn runs_without_a_conversation_do_not_continue_each_other() {
        let first = record(1, None);
        assert!(continues_check("invocation 2", 1, Some(&first), &record(2, None)).is_some());
        assert!(continues_check("invocation 2", 3, None, &record(2, Some("c"))).is_some());
    }
}
