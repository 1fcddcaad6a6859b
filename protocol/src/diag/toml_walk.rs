//! Reading TOML with every error located: the document is parsed once into a spanned
//! tree, then each element is deserialized on its own so one bad step does not hide the
//! next one.

use super::diagnostic::{Diagnostic, Diagnostics};
use super::source::SourceFile;
use super::suggest::{closest, hint_for_serde_message};
use serde::de::DeserializeOwned;
use std::collections::BTreeSet;
use toml::de::{DeTable, DeValue, ValueDeserializer};
use toml::Spanned;

/// Parses a TOML document. A syntax error is reported alone: the first one, located,
/// and `None` is returned, since what a parser recovers after a broken line (a string
/// left open swallows the lines after it) would only add errors that are not there.
pub fn parse_toml_document<'i>(
    src: &'i SourceFile,
    diags: &mut Diagnostics,
) -> Option<Spanned<DeTable<'i>>> {
    if let Some(at) = lone_carriage_return(src.text()) {
        // TOML ends lines with LF or CRLF; a file of CR-only line ends is one long line
        // with an error at every CR, each quoting that line.
        diags.push(
            Diagnostic::at(src, at, "the line ends are carriage returns alone (CR)")
                .with_hint("save the file with LF (or CRLF) line ends"),
        );
        return None;
    }
    let (table, errors) = DeTable::parse_recoverable(src.text());
    // The parser does not report in file order; the earliest error is the real one.
    let Some(first) = errors
        .iter()
        .min_by_key(|e| e.span().map(|s| s.start).unwrap_or(0))
    else {
        return Some(table);
    };
    let offset = first.span().map(|s| s.start).unwrap_or(0);
    let message = first_line(first.message());
    if table.get_ref().is_empty() {
        // Nothing read as TOML: the file is something else (a key, an environment dump),
        // and quoting its lines would print it.
        let mut d = Diagnostic::at(
            src,
            offset,
            format!("the file does not read as TOML: {message}"),
        )
        .with_hint("name a TOML file; see https://toml.io for the format");
        d.snippet = None;
        diags.push(d);
        return None;
    }
    let hint = match errors.len() {
        1 => "fix the TOML syntax; see https://toml.io for the format".to_string(),
        _ => "fix the TOML syntax here first; the rest of the file is checked once it parses \
              (see https://toml.io for the format)"
            .to_string(),
    };
    diags.push(Diagnostic::at(src, offset, format!("invalid TOML: {message}")).with_hint(hint));
    None
}

/// The offset of the first CR that is not followed by LF.
fn lone_carriage_return(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    text.match_indices('\r')
        .map(|(i, _)| i)
        .find(|&i| bytes.get(i + 1) != Some(&b'\n'))
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s).trim()
}

/// Deserializes one spanned value into `T`, recording a located error on failure.
pub fn deserialize_value<T: DeserializeOwned>(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    what: &str,
    diags: &mut Diagnostics,
) -> Option<T> {
    match T::deserialize(ValueDeserializer::from(value.clone())) {
        Ok(v) => Some(v),
        Err(e) => {
            let offset = e.span().map(|s| s.start).unwrap_or(value.span().start);
            let msg = first_line(e.message()).to_string();
            let hint = hint_for_serde_message(&msg);
            diags.push(Diagnostic::at(src, offset, format!("{msg} in {what}")).with_hint_opt(hint));
            None
        }
    }
}

/// Deserializes a one-key table such as a script step (`{ sleep = "50ms" }`); a table
/// with more or fewer keys is reported with `example` as the hint.
pub fn deserialize_one_key<T: DeserializeOwned>(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    what: &str,
    example: &str,
    diags: &mut Diagnostics,
) -> Option<T> {
    if let DeValue::Table(t) = value.get_ref() {
        if t.len() != 1 {
            let keys: Vec<String> = t
                .iter()
                .map(|(k, _)| format!("`{}`", k.get_ref()))
                .collect();
            diags.push(
                Diagnostic::at(
                    src,
                    value.span().start,
                    format!(
                        "{what} has {} keys ({}); a step has exactly one",
                        t.len(),
                        keys.join(", ")
                    ),
                )
                .with_hint(format!(
                    "split it into one step per action, e.g. `{example}`"
                )),
            );
            return None;
        }
    }
    deserialize_value(src, value, what, diags)
}

/// Reads the keys of one table, remembering which were read so the rest can be
/// reported as unknown.
pub struct TableWalker<'a, 'i> {
    src: &'a SourceFile,
    table: &'a DeTable<'i>,
    span_start: usize,
    what: String,
    seen: BTreeSet<String>,
}

impl<'a, 'i> TableWalker<'a, 'i> {
    /// Walks `table`; `what` names it in messages (e.g. "invocation 2").
    pub fn new(
        src: &'a SourceFile,
        table: &'a DeTable<'i>,
        span_start: usize,
        what: impl Into<String>,
    ) -> Self {
        TableWalker {
            src,
            table,
            span_start,
            what: what.into(),
            seen: BTreeSet::new(),
        }
    }

    /// Walks a value that must be a table; records an error and returns `None` otherwise.
    pub fn from_value(
        src: &'a SourceFile,
        value: &'a Spanned<DeValue<'i>>,
        what: impl Into<String>,
        diags: &mut Diagnostics,
    ) -> Option<Self> {
        let what = what.into();
        match value.get_ref() {
            DeValue::Table(t) => Some(TableWalker::new(src, t, value.span().start, what)),
            other => {
                diags.push(
                    Diagnostic::at(
                        src,
                        value.span().start,
                        format!("{what} must be a table, found {}", kind(other)),
                    )
                    .with_hint("write it as `[name]`, `[[name]]` or `{ key = value }`"),
                );
                None
            }
        }
    }

    /// What this table is called in messages.
    pub fn what(&self) -> &str {
        &self.what
    }

    /// Byte offset of the table, for "missing key" errors.
    pub fn span_start(&self) -> usize {
        self.span_start
    }

    /// The raw value of `key`, marking it read.
    pub fn raw(&mut self, key: &str) -> Option<&'a Spanned<DeValue<'i>>> {
        self.seen.insert(key.to_string());
        self.table.get(key)
    }

    /// True when the table has `key` (does not mark it read).
    pub fn has(&self, key: &str) -> bool {
        self.table.get(key).is_some()
    }

    /// Deserializes `key` when present.
    pub fn get<T: DeserializeOwned>(&mut self, key: &str, diags: &mut Diagnostics) -> Option<T> {
        let value = self.raw(key)?;
        let what = format!("`{key}` of {}", self.what);
        deserialize_value(self.src, value, &what, diags)
    }

    /// Deserializes `key`, recording an error when it is missing.
    pub fn required<T: DeserializeOwned>(
        &mut self,
        key: &str,
        hint: &str,
        diags: &mut Diagnostics,
    ) -> Option<T> {
        if !self.has(key) {
            diags.push(
                Diagnostic::at(
                    self.src,
                    self.span_start,
                    format!("missing `{key}` in {}", self.what),
                )
                .with_hint(hint.to_string()),
            );
            self.seen.insert(key.to_string());
            return None;
        }
        self.get(key, diags)
    }

    /// The elements of an array at `key` (a single table counts as one element).
    pub fn elements(
        &mut self,
        key: &str,
        diags: &mut Diagnostics,
    ) -> Vec<&'a Spanned<DeValue<'i>>> {
        let Some(value) = self.raw(key) else {
            return Vec::new();
        };
        match value.get_ref() {
            DeValue::Array(items) => items.iter().collect(),
            DeValue::Table(_) => vec![value],
            other => {
                diags.push(
                    Diagnostic::at(
                        self.src,
                        value.span().start,
                        format!(
                            "`{key}` of {} must be a list, found {}",
                            self.what,
                            kind(other)
                        ),
                    )
                    .with_hint(format!(
                        "write `{key} = [ … ]` or repeat `[[{key}]]` tables"
                    )),
                );
                Vec::new()
            }
        }
    }

    /// Records every key that was not read as unknown, suggesting the closest known one.
    pub fn finish(self, known: &[&str], diags: &mut Diagnostics) {
        for (key, _) in self.table.iter() {
            let name = key.get_ref().as_ref();
            if self.seen.contains(name) {
                continue;
            }
            let list = known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let hint = match closest(name, known.iter().copied()) {
                Some(best) => format!("did you mean `{best}`? {} takes {list}", self.what),
                None => format!("{} takes {list}", self.what),
            };
            diags.push(
                Diagnostic::at(
                    self.src,
                    key.span().start,
                    format!("unknown key `{name}` in {}", self.what),
                )
                .with_hint(hint),
            );
        }
    }
}

/// A short name for a TOML value's kind.
pub fn kind(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a datetime",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cr_only_line_ends_are_one_error() {
        // Regression: every CR of a CR-only file was an error quoting the whole file as
        // its line, errors × length (gigabytes for 300 KB).
        let text = "[scenario]\rname = 1\r".repeat(2000);
        let src = SourceFile::new("cr.toml", text);
        let mut diags = Diagnostics::new();
        parse_toml_document(&src, &mut diags);
        assert_eq!(diags.len(), 1, "{diags}");
        assert!(diags.to_string().contains("cr.toml:1:11"), "{diags}");
        assert!(diags.to_string().len() < 500, "{diags}");
        let mut diags = Diagnostics::new();
        parse_toml_document(
            &SourceFile::new("crlf.toml", "a = 1\r\nb = 2\r\n"),
            &mut diags,
        );
        assert!(diags.is_empty(), "{diags}");
    }

    #[test]
    fn a_file_that_is_not_toml_is_not_quoted() {
        // Regression: a scenario's `script` naming a private key printed the key, line by
        // line, as errors.
        let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----\n";
        let src = SourceFile::new("id_ed25519", key);
        let mut diags = Diagnostics::new();
        parse_toml_document(&src, &mut diags);
        let text = diags.to_string();
        assert_eq!(diags.len(), 1, "{text}");
        assert!(text.contains("does not read as TOML"), "{text}");
        assert!(
            !text.contains("b3Blbn") && !text.contains("BEGIN"),
            "{text}"
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_are_all_reported() {
        let src = SourceFile::new("t.toml", "name = 3\nnmae = \"x\"\n");
        let mut diags = Diagnostics::new();
        let doc = parse_toml_document(&src, &mut diags).expect("valid TOML");
        let mut w = TableWalker::new(&src, doc.get_ref(), 0, "the scenario");
        let name: Option<String> = w.get("name", &mut diags);
        w.finish(&["name", "tags"], &mut diags);
        assert!(name.is_none());
        assert_eq!(diags.len(), 2, "{diags}");
        assert_eq!((diags.0[0].line, diags.0[0].column), (1, 8));
        assert_eq!((diags.0[1].line, diags.0[1].column), (2, 1));
        assert!(diags.0[1]
            .hint
            .as_deref()
            .unwrap_or("")
            .contains("did you mean `name`"));
    }

    #[test]
    fn a_syntax_error_is_reported_alone_first_and_located() {
        // Regression: one missing quote gave 52 errors, each a line the open string had
        // swallowed; the real one was somewhere among them.
        let mut lines: Vec<String> = (0..30).map(|i| format!("k{i} = \"v{i}\"")).collect();
        lines.push("name = { a = \"x, b = \"y\" }".to_string());
        lines.extend((30..60).map(|i| format!("k{i} = [\"v{i}\", \"w\"]")));
        let src = SourceFile::new("t.toml", lines.join("\n"));
        let mut diags = Diagnostics::new();
        assert!(parse_toml_document(&src, &mut diags).is_none());
        assert_eq!(diags.len(), 1, "{diags}");
        assert_eq!(diags.0[0].line, 31, "{diags}");
        assert!(diags.0[0].message.starts_with("invalid TOML"), "{diags}");
        let mut diags = Diagnostics::new();
        let _ = parse_toml_document(
            &SourceFile::new("t.toml", "a = \nb = [1,\nc = 'x\n"),
            &mut diags,
        );
        assert_eq!((diags.len(), diags.0[0].line), (1, 1), "{diags}");
    }
}
