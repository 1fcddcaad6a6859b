//! The running invocation every part of the fake acts through ([`Session`]).

mod invocation;

pub use invocation::{PendingQuestion, Session, SessionParts, UsageUpdate};
