//! The declared load-time normalisations of a capture's stored bytes (corpus
//! `transforms`): a capture is stored as its publisher wrote it, and anything done to
//! those bytes before use is named here, once, and listed on the capture.
//!
//! An entry is `[ROLE:]NAME[=ARG]`: `ROLE` (`stdout`, `stderr`, `transcript`, `log`)
//! limits it to that file of the capture, `ARG` is the transform's argument (a JSON key,
//! a line prefix) for the transforms that take one.

use super::files::read_capture_file;
use super::model::Capture;
use super::recorder::{drop_json_key, drop_lines_prefixed, keep_lines_prefixed};
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
    (
        DROP_JSON_KEY,
        "`drop-json-key=KEY`: remove the top-level member KEY from every line that is a JSON object, leaving every other byte (a publisher's recorder added the key to agy's lines)",
    ),
    (
        DROP_LINES_PREFIXED,
        "`drop-lines-prefixed=P`: drop every line that starts with P (a recorder's note or echo lines interleaved with agy's)",
    ),
    (
        KEEP_LINES_PREFIXED,
        "`keep-lines-prefixed=P`: keep only the lines that start with P, without P and one space after it (one recorded stream of several interleaved in one file)",
    ),
];

/// See [`TRANSFORMS`].
pub const GO_HTML_UNESCAPE: &str = "go-html-unescape";
/// See [`TRANSFORMS`].
pub const TRIM_END: &str = "trim-end";
/// See [`TRANSFORMS`].
pub const DROP_JSON_KEY: &str = "drop-json-key";
/// See [`TRANSFORMS`].
pub const DROP_LINES_PREFIXED: &str = "drop-lines-prefixed";
/// See [`TRANSFORMS`].
pub const KEEP_LINES_PREFIXED: &str = "keep-lines-prefixed";

/// The roles a transform entry may be limited to (the keys of a capture's `files`).
const ROLES: &[&str] = &["stdout", "stderr", "transcript", "log"];

/// The transforms that need an argument (`NAME=ARG`).
const WITH_ARG: &[&str] = &[DROP_JSON_KEY, DROP_LINES_PREFIXED, KEEP_LINES_PREFIXED];

/// One transform entry split into its role (if limited to one file), name and argument.
struct Entry<'a> {
    role: Option<&'a str>,
    name: &'a str,
    arg: Option<&'a str>,
}

fn split_entry(entry: &str) -> Entry<'_> {
    let (role, rest) = match entry.split_once(':') {
        Some((r, rest)) if ROLES.contains(&r) => (Some(r), rest),
        _ => (None, entry),
    };
    let (name, arg) = match rest.split_once('=') {
        Some((n, a)) => (n, Some(a)),
        None => (rest, None),
    };
    Entry { role, name, arg }
}

/// True when `entry` is a known transform, with an argument exactly when it takes one.
pub fn is_transform(entry: &str) -> bool {
    let e = split_entry(entry);
    TRANSFORMS.iter().any(|(n, _)| *n == e.name)
        && match e.arg {
            Some(a) => WITH_ARG.contains(&e.name) && !a.is_empty(),
            None => !WITH_ARG.contains(&e.name),
        }
}

/// Applies the transform `entry` (known: checked when the corpus is read) to every file.
pub fn apply_transform(entry: &str, bytes: &[u8]) -> Vec<u8> {
    let e = split_entry(entry);
    let arg = e.arg.unwrap_or("");
    match e.name {
        GO_HTML_UNESCAPE => {
            let text = String::from_utf8_lossy(bytes);
            text.replace("\\u003c", "<")
                .replace("\\u003e", ">")
                .replace("\\u0026", "&")
                .into_bytes()
        }
        TRIM_END => trim_end(bytes),
        DROP_JSON_KEY => drop_json_key(bytes, arg),
        DROP_LINES_PREFIXED => drop_lines_prefixed(bytes, arg.as_bytes()),
        KEEP_LINES_PREFIXED => keep_lines_prefixed(bytes, arg.as_bytes()),
        _ => bytes.to_vec(),
    }
}

/// Applies `entry` to the capture's file of role `role`: unchanged when the entry is
/// limited to another role.
pub fn apply_transform_to(entry: &str, role: &str, bytes: &[u8]) -> Vec<u8> {
    match split_entry(entry).role {
        Some(r) if r != role => bytes.to_vec(),
        _ => apply_transform(entry, bytes),
    }
}

fn trim_end(bytes: &[u8]) -> Vec<u8> {
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

/// Reads the file of role `role` (`stdout`, `stderr`, …; at `rel`, relative to the
/// corpus folder `dir`) with the capture's transforms for that role applied in order:
/// the bytes a measure uses.
pub fn read_transformed(
    dir: &Path,
    capture: &Capture,
    role: &str,
    rel: &str,
) -> Result<Vec<u8>, String> {
    let bytes = read_capture_file(dir, rel)?;
    Ok(capture
        .transforms
        .iter()
        .fold(bytes, |b, t| apply_transform_to(t, role, &b)))
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

    #[test]
    fn entries_name_a_known_transform_with_an_argument_exactly_when_it_takes_one() {
        assert!(is_transform("drop-json-key=offsetMs"));
        assert!(is_transform("stderr:keep-lines-prefixed=!!"));
        assert!(is_transform("stdout:trim-end"));
        assert!(!is_transform("drop-json-key"), "needs a key");
        assert!(!is_transform("drop-json-key="), "needs a non-empty key");
        assert!(!is_transform("trim-end=x"), "takes no argument");
        assert!(!is_transform("stdin:trim-end"), "stdin is not a file role");
    }

    #[test]
    fn a_role_limited_entry_leaves_the_other_files_alone() {
        let file = b"# note\n{\"a\":1}\n!! oops\n";
        let out = apply_transform_to("stderr:keep-lines-prefixed=!!", "stderr", file);
        assert_eq!(out, b"oops\n");
        let out = apply_transform_to("stderr:keep-lines-prefixed=!!", "stdout", file);
        assert_eq!(out, file);
        let out = apply_transform_to("drop-lines-prefixed=#", "stdout", file);
        assert_eq!(out, b"{\"a\":1}\n!! oops\n");
    }
}
