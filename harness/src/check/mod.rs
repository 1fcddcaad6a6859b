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
