//! A failed operation in the adapter's own words (error name, message) and in the
//! harness's vocabulary (outcome class, retryable), and how replies are built.

use agy_protocol::driver::{ErrorInfo, OpResult, Outcome, Reply};

/// oneshot: agy's print timeout, or the run was killed after timeout + 30 s.
pub const PROVIDER_TIMEOUT: &str = "ProviderTimeoutError";
/// oneshot: SUCCESS without exactly one usable image.
pub const PROVIDER_OUTPUT_MISSING: &str = "ProviderOutputMissingError";
/// oneshot: cancelled, interrupted, image quota.
pub const PROVIDER_TRANSIENT: &str = "ProviderTransientError";
/// oneshot: authentication required or failed.
pub const PROVIDER_AUTH: &str = "ProviderAuthError";
/// oneshot: anything retrying will not fix.
pub const PROVIDER_PERMANENT: &str = "ProviderPermanentError";
/// session: the turn was cancelled.
pub const TURN_CANCELLED: &str = "TurnCancelledError";
/// session: the turn ran past the adapter's turn timeout.
pub const TURN_TIMEOUT: &str = "TurnTimeoutError";
/// session: cancelled or interrupted by agy.
pub const TURN_TRANSIENT: &str = "TurnTransientError";
/// session: authentication required or failed.
pub const TURN_AUTH: &str = "TurnAuthError";
/// session: a native failure.
pub const TURN_FAILED: &str = "TurnFailedError";
/// text: agy's print timeout, or the run was killed after timeout_s + the grace.
pub const ASK_TIMEOUT: &str = "AskTimeoutError";
/// text: CANCELED or INTERRUPTED.
pub const ASK_CANCELED: &str = "AskCanceledError";
/// text: the account's quota ran out (exit 3, `AGY_ERROR:` RESOURCE_EXHAUSTED).
pub const ASK_QUOTA: &str = "AskQuotaError";
/// text: authentication required or failed.
pub const ASK_AUTH: &str = "AskAuthError";
/// text: agy rejected the model or effort.
pub const ASK_MODEL_REJECTED: &str = "AskModelRejectedError";
/// text: agy failed (a non-zero exit, a signal, a status that is no answer).
pub const ASK_AGY_FAILED: &str = "AskAgyFailedError";
/// text: agy said SUCCESS and printed no answer.
pub const ASK_OUTPUT_MISSING: &str = "AskOutputMissingError";
/// Any profile: the request itself is wrong (unknown session, bad settings, bad version).
pub const BAD_REQUEST: &str = "BadRequestError";

/// A failed operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The outcome class.
    pub outcome: Outcome,
    /// Whether the adapter would retry.
    pub retryable: bool,
    /// The adapter's error name.
    pub name: &'static str,
    /// What happened, with the evidence.
    pub message: String,
}

impl Failure {
    /// A failure whose retryability is its class's default.
    pub fn new(outcome: Outcome, name: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            outcome,
            retryable: outcome.default_retryable(),
            name,
            message: message.into(),
        }
    }

    /// A bad request: permanent, not retryable.
    pub fn bad_request(message: impl Into<String>) -> Failure {
        Failure::new(Outcome::Permanent, BAD_REQUEST, message)
    }

    /// The reply for request `id`, carrying `result` too (a failed turn still reports history).
    pub fn into_reply(self, id: u64, result: OpResult) -> Reply {
        Reply {
            id,
            ok: false,
            outcome: Some(self.outcome),
            retryable: Some(self.retryable),
            error: Some(ErrorInfo {
                name: self.name.to_string(),
                message: self.message,
                hint: None,
            }),
            result,
        }
    }
}

/// A successful reply.
pub fn success_reply(id: u64, result: OpResult) -> Reply {
    Reply {
        id,
        ok: true,
        outcome: Some(Outcome::Success),
        retryable: Some(false),
        error: None,
        result,
    }
}

/// The first `max` bytes of `text`, cut at a character boundary, with `…` when cut
/// (agy's error text starts with what matters; model lists and hints follow).
pub fn head(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The last `max` bytes of `text`, cut at a character boundary, for error messages.
pub fn tail(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retryable_follows_the_class_by_default() {
        assert!(Failure::new(Outcome::Timeout, PROVIDER_TIMEOUT, "t").retryable);
        assert!(!Failure::new(Outcome::OutputMissing, PROVIDER_OUTPUT_MISSING, "m").retryable);
    }

    #[test]
    fn head_keeps_the_start_and_marks_the_cut() {
        assert_eq!(head("abcdef", 3), "abc…");
        assert_eq!(head("ab", 3), "ab");
        assert_eq!(head("éa", 1), "…");
    }

    #[test]
    fn tail_keeps_the_end_at_a_char_boundary() {
        assert_eq!(tail("abcdef", 3), "def");
        assert_eq!(tail("ab", 3), "ab");
        assert_eq!(tail("aé", 1), "");
        assert_eq!(tail("xaé", 2), "é");
    }
}
