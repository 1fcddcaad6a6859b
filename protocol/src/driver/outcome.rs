//! The canonical outcome classes adapters' results are judged in.

use serde::{Deserialize, Serialize};

/// What an operation came to, in the harness's vocabulary (docs/driver-protocol.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The operation produced what was asked.
    Success,
    /// agy's own print timeout, or the adapter killed a run that took too long. Retryable.
    Timeout,
    /// Cancelled, interrupted, quota: try again later. Retryable.
    Transient,
    /// agy said it succeeded but the output is not there.
    OutputMissing,
    /// Authentication is required or failed.
    Auth,
    /// Anything that retrying will not fix.
    Permanent,
}

impl Outcome {
    /// Every class, in declaration order.
    pub const ALL: [Outcome; 6] = [
        Outcome::Success,
        Outcome::Timeout,
        Outcome::Transient,
        Outcome::OutputMissing,
        Outcome::Auth,
        Outcome::Permanent,
    ];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Timeout => "timeout",
            Outcome::Transient => "transient",
            Outcome::OutputMissing => "output_missing",
            Outcome::Auth => "auth",
            Outcome::Permanent => "permanent",
        }
    }

    /// Whether the class is retryable by definition.
    pub fn default_retryable(self) -> bool {
        matches!(self, Outcome::Timeout | Outcome::Transient)
    }
}

crate::spelling::display_as_str!(Outcome);
