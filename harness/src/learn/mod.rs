//! `agy-harness learn`: a calibration derived from recordings (docs/harness.md,
//! "Learning a calibration"). What the recordings show is learned, field by field, with
//! the recording that shows it as evidence; every other field is inherited from the
//! nearest built-in calibration and listed as inherited.

mod apply;
mod base;
mod command;
mod first_turn;
mod observe;
mod read;
mod render;
mod rules;

pub use apply::{apply_learned, Applied};
pub(crate) use command::learn_into;
pub use command::{learn_command, LearnArgs, LearnOutcome};
pub use observe::{learn_from_traces, Learned, LearnedField};
pub use read::{read_recordings, ReadError, MAX_RECORDINGS};

#[cfg(test)]
mod tests;
