//! Why a [`MockAgy`](super::MockAgy) could not be laid out or read.

/// A mock sandbox problem.
#[derive(Debug, thiserror::Error)]
pub enum MockError {
    /// The fake-agy binary was not found.
    #[error("the fake-agy binary was not found: {tried}")]
    FakeAgyNotFound {
        /// Where it was looked for.
        tried: String,
    },
    /// The script has problems (each located as `script.toml:line:col`).
    #[error("the script has problems:\n{0}")]
    Script(String),
    /// A typed script could not be rendered as TOML.
    #[error("failed to render the script as TOML: {0}")]
    Render(String),
    /// File system.
    #[error("failed to {what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The journal could not be read.
    #[error(transparent)]
    Journal(#[from] agy_protocol::journal::JournalError),
}

impl From<std::io::Error> for MockError {
    fn from(source: std::io::Error) -> MockError {
        MockError::Io {
            what: "run a command".into(),
            source,
        }
    }
}

/// Adds what was being done to an I/O error.
pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> MockError {
    let what = what.into();
    move |source| MockError::Io { what, source }
}
