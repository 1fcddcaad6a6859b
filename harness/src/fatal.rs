//! The error that ends a command: what went wrong, the exit code it comes to
//! ([`crate::exit_code`]) and, when there is one, what to do next. Commands return it
//! and report it once, at their top.

use crate::exit_code;

/// Why a command could not do its work, and so its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    /// The input is wrong: a flag, a file, a config ([`exit_code::BAD_INPUT`]).
    BadInput,
    /// The harness could not run: a binary, a folder, a process
    /// ([`exit_code::COULD_NOT_RUN`]).
    CouldNotRun,
}

/// An error that ends a command.
#[derive(Debug)]
pub(crate) struct HarnessError {
    /// Why, and so the exit code.
    pub kind: ErrorKind,
    /// What went wrong, a lowercase fragment.
    pub message: String,
    /// What to do next.
    pub hint: Option<String>,
}

impl HarnessError {
    /// Bad input: `message` says what is wrong with it.
    pub(crate) fn bad_input(message: impl Into<String>) -> HarnessError {
        HarnessError {
            kind: ErrorKind::BadInput,
            message: message.into(),
            hint: None,
        }
    }

    /// The harness could not run: `message` says what failed.
    pub(crate) fn could_not_run(message: impl Into<String>) -> HarnessError {
        HarnessError {
            kind: ErrorKind::CouldNotRun,
            message: message.into(),
            hint: None,
        }
    }

    /// This error with what to do next.
    pub(crate) fn with_hint(mut self, hint: impl Into<String>) -> HarnessError {
        self.hint = Some(hint.into());
        self
    }

    /// The exit code the error comes to.
    pub(crate) fn exit_code(&self) -> i32 {
        match self.kind {
            ErrorKind::BadInput => exit_code::BAD_INPUT,
            ErrorKind::CouldNotRun => exit_code::COULD_NOT_RUN,
        }
    }

    /// Prints the error (and its hint) to stderr; the exit code.
    pub(crate) fn report(self) -> i32 {
        eprintln!("error: {}", self.message);
        if let Some(hint) = &self.hint {
            eprintln!("help: {hint}");
        }
        self.exit_code()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_comes_to_its_documented_exit_code() {
        assert_eq!(
            HarnessError::bad_input("x").exit_code(),
            exit_code::BAD_INPUT
        );
        assert_eq!(
            HarnessError::could_not_run("x").with_hint("y").exit_code(),
            exit_code::COULD_NOT_RUN
        );
        assert_ne!(exit_code::BAD_INPUT, exit_code::COULD_NOT_RUN);
    }
}
