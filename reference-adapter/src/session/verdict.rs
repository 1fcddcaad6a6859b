//! What a counted result means for the turn: "a native failure, including a num_turns
//! that did not advance, still fails the Turn; nothing is reported as success merely
//! because text arrived" (seed 000).

use crate::agy_text::mentions_auth;
use crate::answer_source::AnswerSource;
use crate::failure::{head, Failure, TURN_AUTH, TURN_FAILED, TURN_TIMEOUT, TURN_TRANSIENT};
use crate::faults::{Fault, FaultSet};
use agy_protocol::driver::Outcome;
use agy_protocol::stream::{StepType, StepUpdate};
use agy_protocol::{Envelope, Status};

/// Judges the turn's result against the previous result counted on the same process.
pub fn judge_result(
    result: &Envelope,
    previous: Option<&Envelope>,
    faults: &FaultSet,
) -> Result<(), Failure> {
    match &result.status {
        // docs/agy-reference.md §2.4: an expired --print-timeout is SUCCESS with an
        // empty response and all usage counters 0 (S6c); never an answer.
        Status::Success if result.response.trim().is_empty() && result.usage.is_zero() => {
            Err(Failure::new(
                Outcome::Timeout,
                TURN_TIMEOUT,
                "agy print timeout: SUCCESS with an empty response and zero usage",
            ))
        }
        Status::Success => {
            let check_advance = !faults.has(Fault::NoReplayFilter);
            match previous {
                Some(prev) if check_advance && result.num_turns <= prev.num_turns => {
                    Err(Failure::new(
                        Outcome::Permanent,
                        TURN_FAILED,
                        format!(
                            "agy's num_turns did not advance ({} after {}): the result is not a new turn",
                            result.num_turns, prev.num_turns
                        ),
                    ))
                }
                _ => Ok(()),
            }
        }
        Status::Canceled | Status::Interrupted => Err(Failure::new(
            Outcome::Transient,
            TURN_TRANSIENT,
            format!(
                "agy status {}: {}",
                result.status,
                head(result.error.trim(), 400)
            ),
        )),
        Status::Error if mentions_auth(&result.error) => Err(Failure::new(
            Outcome::Auth,
            TURN_AUTH,
            format!("agy is not signed in: {}", head(result.error.trim(), 400)),
        )),
        other => Err(Failure::new(
            Outcome::Permanent,
            TURN_FAILED,
            format!("agy status {other}: {}", head(result.error.trim(), 400)),
        )),
    }
}

/// The turn's text: what the accepted `agent_response` steps streamed, or (unless
/// `source` is [`AnswerSource::Streamed`]) the result's `response` when nothing was
/// streamed.
pub fn turn_text(steps: &[StepUpdate], result: &Envelope, source: AnswerSource) -> String {
    let streamed: String = steps
        .iter()
        .filter(|s| s.step_type == StepType::AgentResponse)
        .filter_map(|s| s.text_delta.as_deref())
        .collect();
    if streamed.is_empty() && source == AnswerSource::StreamedOrResult {
        result.response.clone()
    } else {
        streamed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::stream::StepState;

    fn result(status: Status, num_turns: u64, error: &str) -> Envelope {
        Envelope {
            num_turns,
            error: error.into(),
            response: "r".into(),
            ..Envelope::empty("c", status)
        }
    }

    #[test]
    fn a_success_that_advanced_is_a_success() {
        let prev = result(Status::Success, 1, "");
        assert!(judge_result(
            &result(Status::Success, 2, ""),
            Some(&prev),
            &FaultSet::none()
        )
        .is_ok());
        assert!(judge_result(&result(Status::Success, 1, ""), None, &FaultSet::none()).is_ok());
    }

    #[test]
    fn an_empty_success_with_zero_usage_is_a_print_timeout_and_one_with_usage_is_not() {
        let mut r = result(Status::Success, 2, "");
        r.response = String::new();
        let f = judge_result(&r, None, &FaultSet::none()).expect_err("fails");
        assert_eq!((f.outcome, f.retryable), (Outcome::Timeout, true));
        r.usage.output_tokens = 3;
        r.usage.total_tokens = 3;
        assert!(judge_result(&r, None, &FaultSet::none()).is_ok());
    }

    #[test]
    fn a_success_that_did_not_advance_fails_the_turn() {
        let prev = result(Status::Success, 2, "");
        let f = judge_result(
            &result(Status::Success, 2, ""),
            Some(&prev),
            &FaultSet::none(),
        )
        .expect_err("fails");
        assert_eq!((f.outcome, f.retryable), (Outcome::Permanent, false));
        assert!(f.message.contains("did not advance"), "{}", f.message);
    }

    #[test]
    fn native_failures_fail_the_turn_by_class() {
        let none = FaultSet::none();
        let cases = [
            (
                result(Status::Error, 1, "authentication failed or timed out"),
                Outcome::Auth,
            ),
            (
                result(Status::Error, 1, "Individual quota reached."),
                Outcome::Permanent,
            ),
            (result(Status::Canceled, 1, ""), Outcome::Transient),
            (result(Status::Interrupted, 1, ""), Outcome::Transient),
            (result(Status::Invalid, 1, ""), Outcome::Permanent),
            (
                result(
                    Status::Error,
                    0,
                    "stream input message is missing the \"event\" field",
                ),
                Outcome::Permanent,
            ),
        ];
        for (r, class) in cases {
            assert_eq!(
                judge_result(&r, None, &none).expect_err("fails").outcome,
                class,
                "{r:?}"
            );
        }
    }

    #[test]
    fn text_comes_from_accepted_agent_steps_else_the_response() {
        let mut a = StepUpdate::new("c", 3, StepState::Active, StepType::AgentResponse);
        a.text_delta = Some("PO".into());
        let mut b = StepUpdate::new("c", 3, StepState::Done, StepType::AgentResponse);
        b.text_delta = Some("NG\n".into());
        let mut tool = StepUpdate::new("c", 4, StepState::Done, StepType::Tool);
        tool.text_delta = Some("ignored".into());
        let r = result(Status::Success, 1, "");
        let steps = [a, b, tool];
        assert_eq!(turn_text(&steps, &r, AnswerSource::default()), "PONG\n");
        assert_eq!(turn_text(&[], &r, AnswerSource::default()), "r");
        assert_eq!(turn_text(&steps, &r, AnswerSource::Streamed), "PONG\n");
        assert_eq!(turn_text(&[], &r, AnswerSource::Streamed), "");
    }
}
