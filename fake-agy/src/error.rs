//! Why fake-agy itself cannot go on (reported as `fake-agy: …`, exit 70).

use agy_protocol::diag::Diagnostics;
use thiserror::Error;

/// A failure of the fake, never of the modelled agy.
#[derive(Debug, Error)]
pub enum FakeError {
    /// The script has problems; every one is listed with file:line:col and a hint.
    #[error("failed to load the agy script:\n{0}")]
    Script(Diagnostics),
    /// The calibration has problems; every one is listed with file:line:col and a hint.
    #[error("failed to load the calibration:\n{0}")]
    Calibration(Diagnostics),
    /// A trace named by the script has problems; each names the file, line and column.
    #[error("failed to load a trace:\n{0}")]
    Trace(Diagnostics),
    /// A `FAKE_AGY_*` variable has a value the fake cannot use.
    #[error("bad value {value:?} in `{name}`: {hint}")]
    Knob {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What to write instead.
        hint: String,
    },
    /// A file operation failed.
    #[error("failed to {action} `{path}`: {source}")]
    Io {
        /// What was attempted ("write image", "lock state file", …).
        action: &'static str,
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A conversation database could not be written.
    #[error("failed to {action} `{path}`: {source}")]
    Database {
        /// What was attempted ("create the conversation database", …).
        action: &'static str,
        /// The database file.
        path: String,
        /// The cause.
        source: rusqlite::Error,
    },
    /// The script or command line asks for something fake-agy does not simulate.
    #[error("{0}")]
    Unsupported(String),
    /// A scripted step cannot run in this context.
    #[error("{0}")]
    Step(String),
}

impl FakeError {
    /// An I/O error with its context.
    pub fn io(
        action: &'static str,
        path: impl AsRef<std::path::Path>,
        source: std::io::Error,
    ) -> Self {
        FakeError::Io {
            action,
            path: path.as_ref().display().to_string(),
            source,
        }
    }

    /// A database error with its context.
    pub fn database(
        action: &'static str,
        path: impl AsRef<std::path::Path>,
    ) -> impl FnOnce(rusqlite::Error) -> Self {
        let path = path.as_ref().display().to_string();
        move |source| FakeError::Database {
            action,
            path,
            source,
        }
    }
}
