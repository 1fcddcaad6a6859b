//! A whole-file read error ([`FileError`]) as a located diagnostic.

use super::Diagnostic;
use crate::file::FileError;

impl FileError {
    /// A diagnostic at the problem's place in `path`, saying what failed (`read trace`).
    pub fn diagnostic(&self, path: &str, action: &str) -> Diagnostic {
        let (line, column) = self.location();
        let hint = match self {
            FileError::Io(_) => "check the path".to_string(),
            FileError::TooLarge { cap } => format!("keep the file under {cap} bytes"),
            FileError::NotUtf8 { .. } => {
                "save the file as UTF-8; bytes that are not text go in hex (`stdout_hex`)"
                    .to_string()
            }
        };
        Diagnostic::at_line(path, line, column, format!("failed to {action}: {self}"))
            .with_hint(hint)
    }
}
