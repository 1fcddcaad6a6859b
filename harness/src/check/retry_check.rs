//! Retries judged by their effect, not by exact invocation counts: after a failed op
//! the agy process that served it is released, and the next turn runs on a process
//! started after the failure (however many times the adapter retried inside the op).

use super::failure::Failure;
use super::journal_check::{show_argv, turns};
use crate::observation::{Observation, OpObservation};
use crate::scenario::OpExpect;
use agy_protocol::journal::JournalRecord;

/// When the process ended, if it did (its final record, else when the harness saw it
/// gone).
fn ended(r: &JournalRecord, obs: &Observation) -> Option<u64> {
    r.ended_us.or_else(|| obs.ended_us.get(&r.pid).copied())
}

/// Turn processes alive at some moment of `[from, to]`.
fn alive_during(obs: &Observation, from: u64, to: u64) -> Vec<&JournalRecord> {
    turns(obs)
        .into_iter()
        .filter(|r| r.started_us <= to && ended(r, obs).is_none_or(|e| e >= from))
        .collect()
}

/// `next_turn_on_new_process = true` of op `o`.
pub fn check_next_turn(e: &OpExpect, o: &OpObservation, obs: &Observation) -> Vec<Failure> {
    if e.next_turn_on_new_process != Some(true) {
        return Vec::new();
    }
    let place = format!("op {} {}", o.index, o.name);
    let Some(next) = obs
        .ops
        .iter()
        .find(|n| n.index > o.index && matches!(n.name, "turn" | "generate"))
    else {
        return vec![Failure::new(
            place,
            "next_turn_on_new_process",
            "a later turn op",
            "the scenario has none after this op",
        )];
    };
    let served = alive_during(obs, o.sent_us, o.replied_us);
    let mut out = Vec::new();
    let kept: Vec<&JournalRecord> = served
        .iter()
        .copied()
        .filter(|r| ended(r, obs).is_none_or(|t| t > next.sent_us))
        .collect();
    if !kept.is_empty() {
        out.push(
            Failure::new(
                &place,
                "next_turn_on_new_process",
                format!(
                    "the process that served op {} released before op {}",
                    o.index, next.index
                ),
                format!(
                    "pid {} still running when op {} was sent",
                    kept.iter()
                        .map(|r| r.pid.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    next.index
                ),
            )
            .evidence(kept.iter().map(|r| show_argv(r))),
        );
    }
    let next_served = alive_during(obs, next.sent_us, next.replied_us);
    let fresh = next_served.iter().any(|r| r.started_us >= o.replied_us);
    let old: Vec<&&JournalRecord> = next_served
        .iter()
        .filter(|r| r.started_us < o.replied_us)
        .collect();
    if !fresh || !old.is_empty() {
        out.push(
            Failure::new(
                &place,
                "next_turn_on_new_process",
                format!(
                    "op {} runs on an agy process started after op {}'s reply",
                    next.index, o.index
                ),
                if next_served.is_empty() {
                    format!("no agy turn process ran during op {}", next.index)
                } else {
                    format!(
                        "op {} ran on pid {}",
                        next.index,
                        next_served
                            .iter()
                            .map(|r| r.pid.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                },
            )
            .evidence(next_served.iter().map(|r| show_argv(r))),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::journal_check::tests::record;

    fn op(index: usize, name: &'static str, sent: u64, replied: u64) -> OpObservation {
        OpObservation {
            index,
            name,
            sent_us: sent,
            replied_us: replied,
            reply: Err(crate::driver_client::DriverError::Exited),
            outcome: None,
            still_running: None,
        }
    }

    fn expect() -> OpExpect {
        OpExpect {
            next_turn_on_new_process: Some(true),
            ..OpExpect::default()
        }
    }

    #[test]
    fn an_internal_retry_passes_when_the_next_turn_runs_on_a_new_process() {
        // Turn 2 fails on pid 1; the adapter retries once inside the op (pid 2), both
        // released; turn 3 runs on pid 3.
        let obs = Observation {
            journal: vec![
                record(1, 1, &["agy", "--input-format", "stream-json"], 0, Some(25)),
                record(
                    2,
                    2,
                    &["agy", "--input-format", "stream-json"],
                    26,
                    Some(29),
                ),
                record(3, 3, &["agy", "--input-format", "stream-json"], 41, None),
            ],
            ops: vec![
                op(1, "turn", 10, 15),
                op(2, "turn", 20, 30),
                op(3, "turn", 40, 50),
            ],
            ..Observation::default()
        };
        assert!(check_next_turn(&expect(), &obs.ops[1], &obs).is_empty());
    }

    #[test]
    fn a_process_kept_after_the_failure_is_named() {
        let obs = Observation {
            journal: vec![record(
                1,
                7,
                &["agy", "--input-format", "stream-json"],
                0,
                None,
            )],
            ops: vec![op(1, "turn", 20, 30), op(2, "turn", 40, 50)],
            ..Observation::default()
        };
        let f = check_next_turn(&expect(), &obs.ops[0], &obs);
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f[0].observed.contains("pid 7 still running"), "{}", f[0]);
        assert!(f[1].observed.contains("ran on pid 7"), "{}", f[1]);
    }
}
