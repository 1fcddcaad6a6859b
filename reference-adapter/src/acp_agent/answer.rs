//! What a finished agy print run is to the ACP client: the turn's answer with stopReason
//! `end_turn`, `cancelled` after the client's cancel, or a JSON-RPC error whose code and
//! message say which failure it was (auth as ACP's `auth_required`, quota and timeout
//! named in the message). Pure, so every row is tested without a process.

use crate::agy_text::mentions_auth;
use crate::faults::{Fault, FaultSet};
use agent_client_protocol::v1::schema::StopReason;
use agent_client_protocol::{Error, ErrorCode};
use agy_protocol::{Envelope, Status};

/// A finished agy run as the agent saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct AgyRun {
    /// The result envelope, or why stdout held none.
    pub envelope: Result<Envelope, String>,
    /// The exit code (`None`: still running when the answer was due, or a signal).
    pub exit_code: Option<i32>,
    /// stderr as far as it was read.
    pub stderr: String,
    /// Whether the client cancelled the turn.
    pub client_cancelled: bool,
}

/// The answer of one prompt: a stop reason with the answer's text, or an error.
pub type Answer = Result<(StopReason, String), Error>;

/// Words of agy's quota errors (docs/agy-reference.md §2.2 item 5).
fn mentions_quota(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    ["quota", "credits balance", "resource_exhausted"]
        .iter()
        .any(|w| lower.contains(w))
}

fn error(code: ErrorCode, message: String) -> Error {
    Error::new(code, message)
}

fn generic() -> Error {
    Error::new(ErrorCode::INTERNAL_ERROR, "agy failed")
}

/// The answer to a prompt whose agy run ended so.
pub fn answer(run: &AgyRun, faults: &FaultSet) -> Answer {
    if run.client_cancelled {
        return Ok((StopReason::Cancelled, String::new()));
    }
    let env = match &run.envelope {
        Ok(env) => env,
        Err(why) if faults.has(Fault::AgentGenericErrors) => {
            let _ = why;
            return Err(generic());
        }
        Err(why) => {
            return Err(error(
                ErrorCode::INTERNAL_ERROR,
                format!("agy printed no result ({why}); exit {:?}", run.exit_code),
            ))
        }
    };
    match env.status {
        Status::Success => success(run, env, faults),
        _ if faults.has(Fault::AgentGenericErrors) => Err(generic()),
        Status::Canceled if faults.has(Fault::AgentCanceledAsCancelled) => {
            Ok((StopReason::Cancelled, String::new()))
        }
        Status::Canceled | Status::Interrupted => Err(error(
            ErrorCode::INTERNAL_ERROR,
            format!(
                "agy cancelled the turn itself (status {}); the client did not cancel",
                env.status.as_str()
            ),
        )),
        _ => failure(run, env, faults),
    }
}

/// A non-SUCCESS, non-cancelled result: auth, quota or another failure.
fn failure(run: &AgyRun, env: &Envelope, faults: &FaultSet) -> Answer {
    let said = format!("{} {}", env.error, run.stderr);
    if mentions_auth(&said) {
        return Err(error(
            ErrorCode::AUTH_REQUIRED,
            format!("agy is not signed in: {}", env.error),
        ));
    }
    if run.exit_code == Some(3) || mentions_quota(&said) {
        if faults.has(Fault::AgentQuotaAsGeneric) {
            return Err(generic());
        }
        return Err(error(
            ErrorCode::INTERNAL_ERROR,
            format!(
                "agy quota exhausted (exit {:?}): {}",
                run.exit_code, env.error
            ),
        ));
    }
    Err(error(
        ErrorCode::INTERNAL_ERROR,
        format!("agy failed (status {}): {}", env.status.as_str(), env.error),
    ))
}

/// A SUCCESS result: the answer, unless it is empty (agy's print-timeout shape, or no
/// answer at all) or agy's exit code says otherwise.
fn success(run: &AgyRun, env: &Envelope, faults: &FaultSet) -> Answer {
    if let Some(code) = run.exit_code.filter(|c| *c != 0) {
        if faults.has(Fault::AgentGenericErrors) {
            return Err(generic());
        }
        return Err(error(
            ErrorCode::INTERNAL_ERROR,
            format!("agy reported SUCCESS but exited {code}"),
        ));
    }
    if !env.response.trim().is_empty() {
        return Ok((StopReason::EndTurn, env.response.clone()));
    }
    if faults.has(Fault::AgentEmptySuccessAsEndTurn) {
        return Ok((StopReason::EndTurn, String::new()));
    }
    if faults.has(Fault::AgentGenericErrors) {
        return Err(generic());
    }
    if env.usage.total_tokens == 0 {
        // S6c: an expired --print-timeout is SUCCESS, empty response, zero usage.
        return Err(error(
            ErrorCode::INTERNAL_ERROR,
            "agy print timeout: SUCCESS with an empty response and zero tokens".to_string(),
        ));
    }
    Err(error(
        ErrorCode::INTERNAL_ERROR,
        "agy finished without an answer (SUCCESS with an empty response)".to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(status: &str, response: &str, error: &str, exit: i32) -> AgyRun {
        let text = serde_json::json!({
            "conversation_id": "c1", "status": status, "response": response, "error": error,
            "duration_seconds": 1, "num_turns": 1,
            "usage": {
                "input_tokens": 0, "output_tokens": 0, "thinking_tokens": 0,
                "cache_read_tokens": 0, "total_tokens": 0
            }
        })
        .to_string();
        let envelope = Envelope::parse(&text).map_err(|e| e.to_string());
        assert!(envelope.is_ok(), "{envelope:?}");
        AgyRun {
            envelope,
            exit_code: Some(exit),
            stderr: String::new(),
            client_cancelled: false,
        }
    }

    fn code(a: &Answer) -> i32 {
        a.as_ref().err().map(|e| e.code.into()).unwrap_or(0)
    }

    #[test]
    fn an_answer_ends_the_turn_and_an_empty_one_is_an_error() {
        let none = FaultSet::none();
        assert_eq!(
            answer(&run("SUCCESS", "hi", "", 0), &none).ok(),
            Some((StopReason::EndTurn, "hi".to_string()))
        );
        let empty = answer(&run("SUCCESS", "", "", 0), &none);
        assert!(empty
            .err()
            .is_some_and(|e| e.message.contains("print timeout")));
        let faulty = FaultSet::of([Fault::AgentEmptySuccessAsEndTurn]);
        assert_eq!(
            answer(&run("SUCCESS", "", "", 0), &faulty).ok(),
            Some((StopReason::EndTurn, String::new()))
        );
    }

    #[test]
    fn auth_is_acps_auth_error_and_quota_is_named() {
        let none = FaultSet::none();
        let auth = answer(
            &run("ERROR", "", "authentication failed or timed out", 1),
            &none,
        );
        assert_eq!(code(&auth), -32000);
        let quota = answer(&run("ERROR", "", "Individual quota reached.", 3), &none);
        assert!(quota.err().is_some_and(|e| e.message.contains("quota")));
        let generic = FaultSet::of([Fault::AgentGenericErrors]);
        let auth = answer(
            &run("ERROR", "", "authentication failed or timed out", 1),
            &generic,
        );
        assert_eq!(code(&auth), -32603);
    }

    #[test]
    fn agys_own_cancel_is_an_error_unless_the_client_cancelled() {
        let none = FaultSet::none();
        assert!(answer(&run("CANCELED", "", "", 0), &none).is_err());
        let mut asked = run("CANCELED", "", "", 0);
        asked.client_cancelled = true;
        assert_eq!(
            answer(&asked, &none).ok().map(|a| a.0),
            Some(StopReason::Cancelled)
        );
        let faulty = FaultSet::of([Fault::AgentCanceledAsCancelled]);
        assert_eq!(
            answer(&run("CANCELED", "", "", 0), &faulty)
                .ok()
                .map(|a| a.0),
            Some(StopReason::Cancelled)
        );
    }
}
