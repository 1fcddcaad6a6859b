//! The fake agent's own failures (never a scripted behaviour).

use agy_protocol::diag::Diagnostics;

/// Why the fake agent cannot run.
#[derive(Debug, thiserror::Error)]
pub enum AcpFakeError {
    /// The ACP script has problems (all of them, located).
    #[error("the ACP script is not valid:\n{0}")]
    Script(Diagnostics),
    /// A `FAKE_AGY_*` knob is wrong.
    #[error("bad `{name}`: {message}")]
    Knob {
        /// The variable.
        name: &'static str,
        /// What is wrong.
        message: String,
    },
    /// Session storage failed.
    #[error("failed to {action} `{path}`: {source}")]
    Store {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}
