//! The running invocation every part of the fake acts through ([`Session`]), and its
//! parts, their fields private behind methods: what it was started with (`setup`), the
//! process's streams, journal and signals (`process_io`), its current turn
//! (`turn_state`) and the steps its conversation owes (`due_steps`).

mod due_steps;
mod invocation;
mod pending_question;
mod process_io;
mod setup;
pub(crate) mod structured;
mod turn_state;

pub use invocation::{Session, UsageUpdate};
pub use pending_question::PendingQuestion;
pub use process_io::ProcessIo;
pub use setup::SetupParts;
