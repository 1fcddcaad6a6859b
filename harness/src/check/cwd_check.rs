//! `cwd_is` of `[expect.journal]`: the folder each agy turn ran in, against the
//! folders the scenario's ACP sessions were created with (`agent_new`'s
//! `result.extra.cwd`). agy's workspace is its working directory, so an agent that runs
//! agy elsewhere works on another project.

use super::failure::Failure;
use crate::observation::Observation;
use crate::scenario::CwdIs;
use agy_protocol::journal::JournalRecord;

/// The `cwd` of every session `agent_new` created, in op order.
pub(super) fn session_cwds(obs: &Observation) -> Vec<String> {
    obs.ops
        .iter()
        .filter(|o| o.name == "agent_new")
        .filter_map(|o| o.reply.as_ref().ok())
        .filter(|r| r.ok)
        .filter_map(|r| r.result.extra.as_ref()?.get("cwd")?.as_str())
        .map(str::to_string)
        .collect()
}

/// Every turn invocation of `runs` that ran outside the folders `cwd_is` allows.
pub(super) fn cwd_check(want: CwdIs, obs: &Observation, runs: &[&JournalRecord]) -> Vec<Failure> {
    let CwdIs::Session = want;
    let folders = session_cwds(obs);
    if folders.is_empty() {
        return vec![Failure::new(
            "journal",
            "cwd_is",
            "the cwd of a session the scenario created",
            "no `agent_new` reply named its session's cwd",
        )];
    }
    let expected = format!("a session's cwd: {}", folders.join(" or "));
    runs.iter()
        .filter(|r| !folders.contains(&r.cwd))
        .map(|r| {
            Failure::new(
                format!("invocation {}", r.invocation),
                "cwd_is",
                expected.clone(),
                r.cwd.clone(),
            )
            .evidence([r.argv.join(" ")])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{test_record, turns};
    use crate::observation::OpObservation;
    use agy_protocol::driver::Outcome;

    fn agent_new(cwd: &str) -> OpObservation {
        OpObservation {
            index: 1,
            name: "agent_new",
            sent_us: 0,
            replied_us: 1,
            reply: Ok(crate::check::test_reply_with(
                serde_json::json!({ "session_id": "s1", "cwd": cwd }),
            )),
            outcome: Some(Outcome::Success),
            still_running: None,
        }
    }

    fn turn_in(n: u32, cwd: &str) -> agy_protocol::journal::JournalRecord {
        let mut r = test_record(n, 100 + n, &["agy", "-p", "hi"], 1, Some(2));
        r.cwd = cwd.to_string();
        r
    }

    #[test]
    fn a_turn_in_its_sessions_folder_holds() {
        let obs = Observation {
            ops: vec![agent_new("/sandbox/cwd/a"), agent_new("/sandbox/cwd/b")],
            journal: vec![turn_in(1, "/sandbox/cwd/a"), turn_in(2, "/sandbox/cwd/b")],
            ..Observation::default()
        };
        assert_eq!(cwd_check(CwdIs::Session, &obs, &turns(&obs)), Vec::new());
    }

    #[test]
    fn a_turn_in_the_agents_own_folder_is_named_with_its_folder() {
        let obs = Observation {
            ops: vec![agent_new("/sandbox/cwd/a")],
            journal: vec![turn_in(1, "/sandbox/cwd")],
            ..Observation::default()
        };
        let failures = cwd_check(CwdIs::Session, &obs, &turns(&obs));
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert_eq!(failures[0].place, "invocation 1");
        assert_eq!(failures[0].observed, "/sandbox/cwd");
        assert!(
            failures[0].expected.contains("/sandbox/cwd/a"),
            "{failures:?}"
        );
    }

    #[test]
    fn without_a_session_folder_the_expectation_fails_saying_so() {
        let obs = Observation {
            journal: vec![turn_in(1, "/sandbox/cwd")],
            ..Observation::default()
        };
        let failures = cwd_check(CwdIs::Session, &obs, &turns(&obs));
        assert_eq!(failures.len(), 1);
        assert!(failures[0].observed.contains("agent_new"), "{failures:?}");
    }
}
