//! The declared load-time normalisations of a capture's stored bytes (corpus
//! `transforms`): a capture is stored as its publisher wrote it, and anything done to
//! those bytes before use is named here, once, and listed on the capture.

use super::files::read_capture_file;
use super::model::Capture;
use std::path::Path;

/// Every transform a capture may list, with what it does.
pub const TRANSFORMS: &[(&str, &str)] = &[
    (
        GO_HTML_UNESCAPE,
        "undo Go's HTML-safe escaping of `<`, `>` and `&` (`\\u003c`, `\\u003e`, `\\u0026`) that a publisher's Go encoder applied to placeholders",
    ),
    (
        TRIM_END,
        "drop trailing blank lines and spaces, keeping one final newline (a publisher's editor or heredoc added them)",
    ),
];

/// See [`TRANSFORMS`].
pub const GO_HTML_UNESCAPE: &str = "go-html-unescape";
/// See [`TRANSFORMS`].
pub const TRIM_END: &str = "trim-end";

/// True when `name` is a known transform.
pub fn is_transform(name: &str) -> bool {
    TRANSFORMS.iter().any(|(n, _)| *n == name)
}

/// Applies the transform `name` (known: checked when the corpus is read).
pub fn apply_transform(name: &str, bytes: &[u8]) -> Vec<u8> {
    match name {
        GO_HTML_UNESCAPE => {
            let text = String::from_utf8_lossy(bytes);
            text.replace("\\u003c", "<")
                .replace("\\u003e", ">")
                .replace("\\u0026", "&")
                .into_bytes()
        }
        TRIM_END => {
            let end = bytes
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .map(|i| i + 1)
                .unwrap_or(0);
            let mut out = bytes[..end].to_vec();
            if !out.is_empty() {
                out.push(b'\n');
            }
            out
        }
        _ => bytes.to_vec(),
    }
}

/// Reads one of `capture`'s files (relative to the corpus folder `dir`) with the
/// capture's transforms applied in order: the bytes a measure uses.
pub fn read_transformed(dir: &Path, capture: &Capture, rel: &str) -> Result<Vec<u8>, String> {
    let bytes = read_capture_file(dir, rel)?;
    Ok(capture
        .transforms
        .iter()
        .fold(bytes, |b, t| apply_transform(t, &b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_escapes_are_undone_and_trailing_blanks_trimmed() {
        assert_eq!(
            apply_transform(GO_HTML_UNESCAPE, br#"{"a":"\u003cWORKSPACE\u003e \u0026"}"#),
            br#"{"a":"<WORKSPACE> &"}"#
        );
        assert_eq!(apply_transform(TRIM_END, b"x\n\n  \n"), b"x\n");
        assert_eq!(apply_transform(TRIM_END, b"\n\n"), b"");
        assert!(is_transform("trim-end") && !is_transform("trim"));
    }
}
