//! How a prompt's end reads in the harness's outcome classes. The agent answers a
//! `session/prompt` with a stop reason or a JSON-RPC error; the bridge names it
//! (`error.name`: the stop reason, or the error code's name) and classes it, so a
//! scenario's `outcome`, `error_name` and `message_contains` judge it.

use super::seen::TurnSeen;
use agent_client_protocol::v1::schema::StopReason;
use agy_protocol::driver::{ErrorInfo, OpResult, Outcome, Reply};

/// ACP's `auth_required` (ACP schema `ErrorCode::AUTH_REQUIRED`).
pub(super) const AUTH_REQUIRED: i32 = -32000;

/// How a `session/prompt` ended.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum PromptEnd {
    /// A response with this stop reason.
    Stop(StopReason),
    /// A JSON-RPC error.
    Error {
        /// The code.
        code: i32,
        /// The message.
        message: String,
        /// The data, if any.
        data: Option<serde_json::Value>,
    },
}

/// The name of a JSON-RPC error code, as `error.name` carries it.
pub(super) fn code_name(code: i32) -> String {
    match code {
        -32700 => "parse_error".into(),
        -32600 => "invalid_request".into(),
        -32601 => "method_not_found".into(),
        -32602 => "invalid_params".into(),
        -32603 => "internal_error".into(),
        -32800 => "request_cancelled".into(),
        AUTH_REQUIRED => "auth_required".into(),
        -32002 => "resource_not_found".into(),
        other => format!("error_{other}"),
    }
}

/// The wire spelling of a stop reason.
pub(super) fn stop_name(reason: &StopReason) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{reason:?}"))
}

/// The class of a JSON-RPC error: auth only by ACP's code; otherwise what its message
/// and data name (quota, timeout, cancel), else permanent.
pub(super) fn error_class(code: i32, text: &str) -> Outcome {
    if code == AUTH_REQUIRED {
        return Outcome::Auth;
    }
    let lower = text.to_ascii_lowercase();
    let names = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if names(&["authentication", "sign in", "signed out", "log in"]) {
        // Auth said in prose under another code: the client cannot act on it.
        Outcome::Permanent
    } else if names(&["quota", "resource_exhausted", "rate limit", "credits"]) {
        Outcome::Transient
    } else if names(&["timeout", "timed out"]) {
        Outcome::Timeout
    } else if names(&["cancel"]) {
        Outcome::Transient
    } else {
        Outcome::Permanent
    }
}

fn failed(id: u64, outcome: Outcome, name: String, message: String, result: OpResult) -> Reply {
    Reply {
        id,
        ok: false,
        outcome: Some(outcome),
        retryable: Some(outcome.default_retryable()),
        error: Some(ErrorInfo {
            name,
            message,
            hint: None,
        }),
        result,
    }
}

/// The reply to an `agent_prompt` that ended so, with what the turn sent.
pub(super) fn prompt_reply(id: u64, end: PromptEnd, turn: TurnSeen) -> Reply {
    let text = Some(turn.text.clone()).filter(|t| !t.is_empty());
    match end {
        PromptEnd::Stop(reason) => {
            let name = stop_name(&reason);
            let result = OpResult {
                text,
                extra: Some(serde_json::json!({ "stop_reason": name })),
                ..OpResult::default()
            };
            let (outcome, why) = match reason {
                StopReason::EndTurn if !turn.text.trim().is_empty() => {
                    return Reply {
                        id,
                        ok: true,
                        outcome: Some(Outcome::Success),
                        retryable: Some(false),
                        error: None,
                        result,
                    };
                }
                StopReason::EndTurn => (
                    Outcome::OutputMissing,
                    "stopReason end_turn with no agent_message_chunk text",
                ),
                StopReason::Cancelled if turn.client_cancelled => (
                    Outcome::Transient,
                    "stopReason cancelled after session/cancel",
                ),
                StopReason::Cancelled => (
                    Outcome::Permanent,
                    "stopReason cancelled though the client never sent session/cancel",
                ),
                _ => (Outcome::Permanent, "the turn stopped without an answer"),
            };
            failed(id, outcome, name, why.to_string(), result)
        }
        PromptEnd::Error {
            code,
            message,
            data,
        } => {
            let said = match &data {
                Some(d) => format!("{message} ({d})"),
                None => message.clone(),
            };
            let result = OpResult {
                text,
                extra: Some(serde_json::json!({ "code": code, "data": data })),
                ..OpResult::default()
            };
            failed(id, error_class(code, &said), code_name(code), said, result)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(text: &str, client_cancelled: bool) -> TurnSeen {
        TurnSeen {
            text: text.into(),
            client_cancelled,
        }
    }

    fn error(code: i32, message: &str) -> PromptEnd {
        PromptEnd::Error {
            code,
            message: message.into(),
            data: None,
        }
    }

    #[test]
    fn end_turn_with_text_is_the_only_success() {
        let ok = prompt_reply(1, PromptEnd::Stop(StopReason::EndTurn), turn("hi", false));
        assert!(ok.ok);
        assert_eq!(ok.result.text.as_deref(), Some("hi"));
        let empty = prompt_reply(1, PromptEnd::Stop(StopReason::EndTurn), turn(" ", false));
        assert!(!empty.ok);
        assert_eq!(empty.outcome, Some(Outcome::OutputMissing));
        assert_eq!(empty.error.map(|e| e.name).as_deref(), Some("end_turn"));
    }

    #[test]
    fn cancelled_is_transient_only_after_the_clients_cancel() {
        let asked = prompt_reply(2, PromptEnd::Stop(StopReason::Cancelled), turn("", true));
        assert_eq!(asked.outcome, Some(Outcome::Transient));
        let unasked = prompt_reply(2, PromptEnd::Stop(StopReason::Cancelled), turn("", false));
        assert_eq!(unasked.outcome, Some(Outcome::Permanent));
        let refused = prompt_reply(2, PromptEnd::Stop(StopReason::Refusal), turn("no", false));
        assert_eq!(refused.outcome, Some(Outcome::Permanent));
        assert_eq!(refused.error.map(|e| e.name).as_deref(), Some("refusal"));
    }

    #[test]
    fn errors_are_classed_by_code_then_by_what_they_name() {
        let auth = prompt_reply(3, error(AUTH_REQUIRED, "sign in"), TurnSeen::default());
        assert_eq!(auth.outcome, Some(Outcome::Auth));
        assert_eq!(auth.error.map(|e| e.name).as_deref(), Some("auth_required"));
        assert_eq!(
            error_class(-32603, "authentication required"),
            Outcome::Permanent
        );
        assert_eq!(
            error_class(-32603, "agy quota exhausted"),
            Outcome::Transient
        );
        assert_eq!(error_class(-32603, "agy print timeout"), Outcome::Timeout);
        assert_eq!(
            error_class(-32603, "agy cancelled the turn"),
            Outcome::Transient
        );
        assert_eq!(error_class(-32603, "agy failed"), Outcome::Permanent);
        assert_eq!(code_name(-32603), "internal_error");
        assert_eq!(code_name(-1), "error_-1");
    }

    #[test]
    fn stop_reasons_use_their_wire_names() {
        assert_eq!(stop_name(&StopReason::MaxTurnRequests), "max_turn_requests");
    }
}
