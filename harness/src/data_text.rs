//! Text from outside the kit (argv, stdout and stderr lines, a pasted report, an
//! adapter's message) placed in what the kit writes (a generated scenario's comments and
//! strings) or shows (a report): data, never code. Control characters, bidi controls and
//! zero-width characters are written escaped (`\n`, `\u{202e}`), so a line break in an
//! argv cannot start a new line of a scenario file and no character reorders or hides
//! what a reader sees; long texts are cut with a note of how much is left out.

use std::borrow::Cow;
use std::fmt::Write;

/// The most characters of one text a report quotes (an error message, an argv, a
/// reply): the rest is left out with a note of how much.
pub const TEXT_MAX_CHARS: usize = 4000;

/// True for a character a reader cannot see or that changes how the text around it is
/// shown: control characters (C0, DEL, C1), bidi embeddings, overrides, isolates and
/// marks, zero-width characters, the line and paragraph separators and the soft hyphen.
pub fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00ad}'
                | '\u{061c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
        )
}

/// `text` with every [`is_invisible`] character written as an escape (`\r`, `\t`,
/// `\u{202e}`); line breaks are kept when `keep_newlines` (a report's multi-line text),
/// else written `\n` too (one line: a comment, a terminal line).
pub fn escape_invisible(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    let escaped = |c: char| is_invisible(c) && !(keep_newlines && c == '\n');
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            _ if !escaped(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            _ => {
                let _ = write!(out, "\\u{{{:04x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

/// `text` as one comment line of a generated file, without the leading `# `.
pub fn comment(text: &str) -> Cow<'_, str> {
    escape_invisible(text, false)
}

/// `text` as a one-line TOML basic string, every invisible character escaped
/// (`"a\u202Eb"`): it reads back as `text` exactly.
pub fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_invisible(c) => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `value` as one line of TOML (an inline table or array), its strings written by
/// [`toml_string`]; the `toml` crate would write a string holding a line break over
/// several lines, with its invisible characters raw.
pub fn toml_inline(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => toml_string(s),
        toml::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(toml_inline).collect();
            format!("[{}]", items.join(", "))
        }
        toml::Value::Table(t) => {
            if t.is_empty() {
                return "{}".into();
            }
            let items: Vec<String> = t
                .iter()
                .map(|(k, v)| format!("{} = {}", toml_key(k), toml_inline(v)))
                .collect();
            format!("{{ {} }}", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// A key of a TOML table: bare when it can be, else a basic string.
pub fn toml_key(key: &str) -> Cow<'_, str> {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        Cow::Borrowed(key)
    } else {
        Cow::Owned(toml_string(key))
    }
}

/// `text` with the secrets the shared redactor knows by their form replaced
/// (`agy_protocol::redact`): what agy or an adapter printed, before a report quotes it.
/// A live run's results are redacted again with the run's own redactor, which also
/// knows the account's facts.
pub fn redacted(text: &str) -> String {
    static REDACTOR: std::sync::OnceLock<agy_protocol::redact::Redactor> =
        std::sync::OnceLock::new();
    REDACTOR.get_or_init(Default::default).redact(text)
}

/// What a program printed, as a report quotes it: redacted, on one line (invisible
/// characters and line breaks escaped), its first `max_chars` characters. The redactor
/// sees a few times more than is kept, so a secret is matched whole before the cut.
pub fn excerpt(text: &str, max_chars: usize) -> String {
    let seen = cut(text.trim_end(), max_chars.saturating_mul(4));
    let shown = redacted(&seen);
    cut(&escape_invisible(&shown, false), max_chars).into_owned()
}

/// `text`, cut after `max_chars` characters with a note of how many bytes are left out.
pub fn cut(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => Cow::Owned(format!("{}… ({} more bytes)", &text[..at], text.len() - at)),
        None => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bidi_zero_width_and_control_characters_are_shown_escaped() {
        let shown = escape_invisible("abc\u{202e}fed\u{200b}x\u{1b}[31m\r\n", false);
        assert_eq!(shown, "abc\\u{202e}fed\\u{200b}x\\u{001b}[31m\\r\\n");
        let kept = escape_invisible("one\ntwo\u{2066}", true);
        assert_eq!(kept, "one\ntwo\\u{2066}");
        assert!(matches!(
            escape_invisible("plain é ✓", false),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn an_excerpt_is_one_redacted_line_of_the_start() {
        let printed = "[agy] print timeout after 1s\nAuthorization: Bearer opaque.tok3n~value-42\n";
        let shown = excerpt(printed, 200);
        assert!(
            shown.starts_with("[agy] print timeout after 1s\\n"),
            "{shown}"
        );
        assert!(!shown.contains("opaque.tok3n"), "{shown}");
        assert!(!shown.contains('\n'), "{shown}");
        assert!(excerpt(&"x".repeat(500), 10).starts_with("xxxxxxxxxx… ("));
    }

    #[test]
    fn long_texts_are_cut_and_say_how_much() {
        assert_eq!(
            cut(&"é".repeat(12), 10),
            format!("{}… (4 more bytes)", "é".repeat(10))
        );
        assert_eq!(cut("short", 10), "short");
    }

    proptest! {
        /// Whatever the text, a comment is one line, and a TOML string of it is one
        /// line that reads back as the text, with nothing invisible left raw.
        #[test]
        fn generated_text_is_one_line_and_reads_back(text in any::<String>()) {
            let c = comment(&text);
            prop_assert!(!c.contains(['\n', '\r']), "{c:?}");
            prop_assert!(!c.chars().any(is_invisible), "{c:?}");
            let quoted = toml_string(&text);
            prop_assert!(!quoted.chars().any(is_invisible), "{quoted:?}");
            let doc: toml::Table = toml::from_str(&format!("k = {quoted}\n# {c}\n"))
                .map_err(|e| TestCaseError::fail(format!("{quoted}: {e}")))?;
            prop_assert_eq!(doc.len(), 1);
            prop_assert_eq!(doc["k"].as_str(), Some(text.as_str()));
        }
    }
}
