//! The oracle: from what the generated agy did, the outcome every op must report and
//! the profile invariants the run must keep (one function per profile). A scenario's
//! expectations are written from it, so the runner judges a generated case exactly as it
//! judges the catalogue.

use crate::profile::fuzz_kit::case::{Case, OneshotAgy, OneshotCase, SessionCase, TurnAgy};
use agy_protocol::driver::Outcome;

/// What one op's reply must show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpOracle {
    /// Acceptable outcome classes.
    pub outcome: Vec<Outcome>,
    /// The reply's `retryable`.
    pub retryable: Option<bool>,
    /// `decodable` or `absent`.
    pub output: Option<&'static str>,
    /// The decoded image's size.
    pub image_size: Option<(u32, u32)>,
    /// The turn's text, exactly.
    pub text: Option<String>,
    /// Text of other turns that must not appear.
    pub text_lacks: Vec<String>,
    /// The turn's own usage (input, output).
    pub usage: Option<(u64, u64)>,
    /// Every agy process gone within this after the reply.
    pub gone_within: Option<&'static str>,
}

/// What the whole run must show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Oracle {
    /// Per op of the rendered scenario, in order (`open`/`select`/`close` included).
    pub ops: Vec<OpOracle>,
    /// Exactly this many agy processes.
    pub invocations: Option<usize>,
    /// Every invocation's argv lacks these.
    pub argv_lacks: Vec<&'static str>,
    /// History: exactly this many turns, each once, no carry-over.
    pub history_turns: Option<usize>,
}

/// The oracle of `case`.
pub fn oracle(case: &Case) -> Oracle {
    match case {
        Case::Oneshot(c) => oneshot(c),
        Case::Session(c) => session(c),
    }
}

fn failed(outcome: &[Outcome], retryable: Option<bool>) -> OpOracle {
    OpOracle {
        outcome: outcome.to_vec(),
        retryable,
        output: Some("absent"),
        ..OpOracle::default()
    }
}

/// ADR 0013's table: success only with exit 0, SUCCESS and exactly one image that
/// decodes; an empty zero-usage SUCCESS is a retryable timeout; a 429 in SUCCESS prose
/// is transient; auth is not retryable and agy runs once.
fn oneshot(c: &OneshotCase) -> Oracle {
    let ops = c
        .steps
        .iter()
        .map(|s| match s.agy {
            OneshotAgy::Success { width, height } => OpOracle {
                outcome: vec![Outcome::Success],
                output: Some("decodable"),
                image_size: Some((width, height)),
                ..OpOracle::default()
            },
            OneshotAgy::PrintTimeout => failed(&[Outcome::Timeout], Some(true)),
            OneshotAgy::QuotaInProse => failed(&[Outcome::Transient], Some(true)),
            OneshotAgy::NoImage => failed(&[Outcome::OutputMissing], Some(false)),
            OneshotAgy::TwoImages | OneshotAgy::CorruptImage => OpOracle {
                outcome: vec![Outcome::OutputMissing, Outcome::Permanent],
                retryable: Some(false),
                ..OpOracle::default()
            },
            OneshotAgy::Auth => failed(&[Outcome::Auth], Some(false)),
            OneshotAgy::Permanent(_) => failed(&[Outcome::Permanent], Some(false)),
            OneshotAgy::Transient(_) => failed(&[Outcome::Transient], Some(true)),
            OneshotAgy::Crash(_) => failed(&[Outcome::Permanent, Outcome::Transient], None),
            OneshotAgy::SuccessExit1 => failed(
                &[
                    Outcome::Permanent,
                    Outcome::Transient,
                    Outcome::OutputMissing,
                ],
                None,
            ),
            OneshotAgy::SubagentImage => OpOracle {
                outcome: vec![Outcome::Success],
                output: Some("decodable"),
                image_size: Some((1376, 768)),
                ..OpOracle::default()
            },
            OneshotAgy::Hang => OpOracle {
                gone_within: Some("10s"),
                ..failed(&[Outcome::Timeout], Some(true))
            },
        })
        .collect();
    Oracle {
        ops,
        invocations: Some(c.steps.len()),
        argv_lacks: vec!["--dangerously-skip-permissions"],
        history_turns: None,
    }
}

/// The ordinal word a turn's text and its agy rule share.
pub const TURN_WORDS: [&str; 4] = ["first", "second", "third", "fourth"];

/// The answer agy gives to turn `i` (0-based).
pub fn answer(i: usize) -> String {
    format!("answer {}", TURN_WORDS[i])
}

/// The text of a step of turn `i` delivered late.
pub fn late_text(i: usize) -> String {
    format!("late words of the {} turn", TURN_WORDS[i])
}

/// The usage agy reports for turn `i`'s own work.
pub fn turn_usage(i: usize) -> (u64, u64) {
    (1000 * (i as u64 + 1), 100 * (i as u64 + 1))
}

/// The usage of a late step of turn `i`.
pub fn late_usage(i: usize) -> (u64, u64) {
    (7000 * (i as u64 + 1), 700 * (i as u64 + 1))
}

/// A turn whose agy output the adapter must not take for an answer.
pub fn turn_fails(agy: &TurnAgy) -> bool {
    agy.fails()
}

/// Seed 000: one process per session while turns succeed and the flags stay; a failed
/// turn or another model releases it; replayed and late output of earlier turns never
/// reaches a later one; each turn's usage is its own; close leaves no process, an agy
/// ignoring SIGTERM included.
fn session(c: &SessionCase) -> Oracle {
    let mut ops = vec![OpOracle::default()]; // open
    if c.auth_failure {
        ops.push(OpOracle {
            gone_within: Some("10s"),
            ..failed(&[Outcome::Auth], Some(false))
        });
        ops.push(close_oracle());
        return Oracle {
            ops,
            invocations: Some(1),
            ..Oracle::default()
        };
    }
    let mut processes = 0;
    let mut alive = false;
    let mut any_failure = false;
    for (i, t) in c.turns.iter().enumerate() {
        if t.model_change {
            ops.push(OpOracle::default()); // select
            alive = false;
        }
        if !alive {
            processes += 1;
            alive = true;
        }
        let mut lacks: Vec<String> = (0..i).map(answer).collect();
        lacks.extend((0..i).map(late_text));
        if turn_fails(&t.agy) {
            any_failure = true;
            alive = false;
            ops.push(OpOracle {
                outcome: vec![Outcome::Permanent, Outcome::Transient],
                gone_within: Some("10s"),
                ..OpOracle::default()
            });
        } else {
            ops.push(OpOracle {
                outcome: vec![Outcome::Success],
                text: Some(answer(i)),
                text_lacks: lacks,
                usage: Some(turn_usage(i)),
                ..OpOracle::default()
            });
        }
    }
    ops.push(close_oracle());
    Oracle {
        ops,
        invocations: (!any_failure).then_some(processes),
        argv_lacks: Vec::new(),
        history_turns: (!any_failure).then_some(c.turns.len()),
    }
}

fn close_oracle() -> OpOracle {
    OpOracle {
        gone_within: Some("20s"),
        ..OpOracle::default()
    }
}

/// The invariant a broken expectation stands for (the name a finding is filed under).
pub fn invariant_of(expectation: &str, place: &str) -> &'static str {
    match expectation {
        "outcome" => "outcome-class",
        "reply" => "reply-in-time",
        "retryable" => "retryable-matches-class",
        "output" | "image_size" => "one-decodable-image",
        "text" | "text_lacks" => "no-earlier-text",
        e if e.starts_with("usage") || e.ends_with("_tokens") => "usage-stays-with-its-turn",
        "agy_gone_within" | "none_left_running" | "killed" => "no-process-left",
        "invocations" | "distinct_pids" => "process-count",
        "argv_lacks" | "argv_has" => "argv-contract",
        "restore_state" | "history_gaps" | "gaps" => "restore-state",
        "method_counts" | "no_new_after_restore" => "no-new-after-restore",
        "prompts" | "prompts_sent_once" => "no-prompt-resent",
        "no_late_text" => "late-output-joins-no-turn",
        "late_permissions_cancelled" | "permission_outcomes" => "late-permission-cancelled",
        "driver" | "scenario timeout" => "runs-to-its-end",
        _ if place.starts_with("history") => "history-once",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::fuzz_kit::case::{OneshotStep, SessionTurn};

    #[test]
    fn an_empty_success_print_timeout_is_never_a_success() {
        let c = Case::Oneshot(OneshotCase {
            steps: vec![OneshotStep {
                delay_ms: 0,
                agy: OneshotAgy::PrintTimeout,
            }],
        });
        let o = oracle(&c);
        assert_eq!(o.ops[0].outcome, [Outcome::Timeout]);
        assert_eq!(o.ops[0].retryable, Some(true));
    }

    #[test]
    fn a_stalled_turn_releases_the_process_and_drops_the_exact_process_count() {
        let turn = |agy| SessionTurn {
            delay_ms: 0,
            agy,
            model_change: false,
        };
        let c = Case::Session(SessionCase {
            auth_failure: false,
            turns: vec![turn(TurnAgy::Answer), turn(TurnAgy::Stalled)],
            ignores_sigterm: false,
        });
        let o = oracle(&c);
        assert!(!o.ops[2].outcome.contains(&Outcome::Success));
        assert_eq!(o.invocations, None);
        assert_eq!(o.history_turns, None);
    }

    #[test]
    fn a_model_change_counts_a_second_process() {
        let c = Case::Session(SessionCase {
            auth_failure: false,
            turns: vec![
                SessionTurn {
                    delay_ms: 0,
                    agy: TurnAgy::Answer,
                    model_change: false,
                },
                SessionTurn {
                    delay_ms: 0,
                    agy: TurnAgy::Answer,
                    model_change: true,
                },
            ],
            ignores_sigterm: false,
        });
        assert_eq!(oracle(&c).invocations, Some(2));
    }
}
