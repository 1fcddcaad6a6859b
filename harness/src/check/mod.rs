//! Expectations: each typed check turns an observation into failures that say what
//! was expected, what was observed, and the closest miss.

mod acp_check;
mod condition;
mod conversation_check;
mod cwd_check;
mod failure;
mod history_check;
mod image;
mod journal_check;
/// The journal record a unit test builds, for tests outside `check`.
#[cfg(test)]
pub(crate) use journal_check::tests::record as test_record;

/// A successful reply to request 1 whose result carries `extra` (tests of the checks
/// that read an op's `result.extra`).
#[cfg(test)]
pub(crate) fn test_reply_with(extra: serde_json::Value) -> agy_protocol::driver::Reply {
    use agy_protocol::driver::{OpResult, Outcome, Reply};
    Reply {
        id: 1,
        ok: true,
        outcome: Some(Outcome::Success),
        retryable: Some(false),
        error: None,
        result: OpResult {
            extra: Some(extra),
            ..OpResult::default()
        },
    }
}
mod op_check;
mod probe_check;
mod retry_check;
mod stray_check;

pub use acp_check::{check_acp, client_methods, prompts_sent};
pub use condition::unmet_condition;
pub use failure::Failure;
pub use history_check::check_history;
pub use image::{decode_jpeg, has_image_extension, inspect_image, ImageCheck};
pub use journal_check::{
    argv_has, check_invocation, check_journal, concurrency_high_water, selected_model, turns,
};
pub use op_check::{check_op, describe_reply, unjudged};
pub use probe_check::{check_probes, probe_kind, ProbeKind};
pub use retry_check::check_next_turn;
