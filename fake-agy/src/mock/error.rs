//! Why a [`MockAgy`](super::MockAgy) could not be laid out or read.

/// A mock sandbox problem. Its `Debug` is its message, so a test that unwraps or
/// returns it shows the sentence and its hint, not a struct.
#[derive(thiserror::Error)]
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
    /// The calibration file is missing or has problems (each located in it).
    #[error("the calibration has problems:\n{0}")]
    Calibration(String),
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

impl std::fmt::Debug for MockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_the_message_and_its_hint_not_the_struct() {
        let e = MockError::FakeAgyNotFound {
            tried: "no `fake-agy` on PATH; install it with `cargo install fake-agy`".into(),
        };
        let shown = format!("{e:?}");
        assert!(
            shown.starts_with("the fake-agy binary was not found"),
            "{shown}"
        );
        assert!(shown.contains("cargo install fake-agy"), "{shown}");
        assert!(!shown.contains("FakeAgyNotFound"), "{shown}");
    }
}
