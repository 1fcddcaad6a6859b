//! The `session` profile: one persistent `agy --input-format stream-json
//! --output-format stream-json` process per conversation, kept across successful turns
//! (the persistent stream-json driver change, seed 000).

mod cancel;
mod conversation;
mod filter;
mod history;
mod process;
mod release;
mod selection;
mod verdict;
mod worker;

pub use filter::{FilterAction, ProcessBaseline, TurnFilter};
pub use history::History;
pub use release::{
    release_after_select, release_after_turn, ReleaseReason, STDIN_GRACE_S, TERM_GRACE_S,
};
pub use selection::Selection;
pub use verdict::{judge_result, turn_text};
pub(crate) use worker::Sessions;
