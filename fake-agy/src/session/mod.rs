//! The running invocation every part of the fake acts through ([`Session`]), and its
//! parts, their fields private behind methods: what it was started with (`setup`) and
//! its current turn (`turn_state`).

mod invocation;
mod setup;
pub(crate) mod structured;
mod turn_state;

pub use invocation::{PendingQuestion, Session, SessionParts, UsageUpdate};
pub use setup::SetupParts;
