//! The redactor: the secret rules of [`super::rule_set`] plus one person's
//! [`Identity`], matched in a text and in each of its decoded views
//! ([`super::decode`]), applied to text, raw bytes, JSON values and environment maps.

use super::decode::views;
use super::identity::Identity;
use super::key_block::KeyBlock;
use super::rule_set::{Found, RuleSet};
use super::rules::Label;
use super::secret_name::{is_secret_name, NAMED_SECRET};
use regex::bytes::Regex;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Inputs longer than this are redacted a piece at a time, cut at line ends, so the
/// decoded views of one piece bound the memory used.
const PIECE: usize = 1 << 20;

/// One identity fact's pattern and the placeholder its matches become.
#[derive(Debug, Clone)]
struct Literal {
    regex: Regex,
    label: Label,
}

/// Removes secrets and identity facts from anything a live run produced. Cheap to
/// clone.
#[derive(Debug, Clone)]
pub struct Redactor {
    literals: Arc<Vec<Literal>>,
    rules: &'static RuleSet,
}

impl Default for Redactor {
    fn default() -> Redactor {
        Redactor::new(&Identity::default())
    }
}

impl Redactor {
    /// A redactor for the secret rules and this identity's facts.
    pub fn new(identity: &Identity) -> Redactor {
        let mut literals = Vec::new();
        let mut add = |facts: &[String], label: Label, words: bool, min: usize| {
            literals.extend(
                facts
                    .iter()
                    .filter(|f| f.chars().count() >= min)
                    .filter_map(|f| literal_pattern(f, words))
                    .map(|regex| Literal { regex, label }),
            );
        };
        add(&identity.homes, Label::Home, false, 2);
        add(&identity.emails, Label::Email, false, 3);
        add(&identity.names, Label::Name, true, 3);
        add(&identity.users, Label::User, true, 3);
        Redactor {
            literals: Arc::new(literals),
            rules: RuleSet::builtin(),
        }
    }

    /// The redactor for the current user (`HOME`, `USER`).
    pub fn for_current_user() -> Redactor {
        Redactor::new(&Identity::from_env())
    }

    /// Redacts raw bytes (valid UTF-8 or not).
    pub fn redact_bytes(&self, input: &[u8]) -> Vec<u8> {
        self.redact_bytes_in(input, &mut KeyBlock::default())
    }

    /// Redacts bytes that continue a stream whose private-key state is `block`.
    pub(crate) fn redact_bytes_in(&self, input: &[u8], block: &mut KeyBlock) -> Vec<u8> {
        let mut out = Vec::with_capacity(input.len());
        for piece in pieces(input) {
            let replaced = replace(piece, &self.spans(piece));
            out.extend_from_slice(&block.redact(&replaced));
        }
        out
    }

    /// Redacts text.
    pub fn redact(&self, text: &str) -> String {
        let bytes = self.redact_bytes(text.as_bytes());
        String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// Redacts every string (and key) of a JSON value; a string under a secret name
    /// (`"SecretAccessKey"`, `"Cookie"`) goes whole.
    pub fn redact_json(&self, value: &serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match value {
            Value::String(s) => Value::String(self.redact(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.redact_json(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let v = match v {
                            Value::String(s) if is_secret_name(k) && !s.is_empty() => {
                                Value::String(NAMED_SECRET.into())
                            }
                            v => self.redact_json(v),
                        };
                        (self.redact(k), v)
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// Redacts an environment map: the value of a secret name (`*_KEY`, `*TOKEN*`,
    /// `*SECRET*`, `*PASSWORD*`, `*COOKIE*`, …) goes whole, every other value is
    /// redacted as text.
    pub fn redact_env(&self, env: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        env.iter()
            .map(|(k, v)| {
                let v = if is_secret_name(k) && !v.is_empty() {
                    NAMED_SECRET.to_string()
                } else {
                    self.redact(v)
                };
                (self.redact(k), v)
            })
            .collect()
    }

    /// The earliest start of a secret that reaches `cut` or beyond in `buf` (one that
    /// may continue past the end of what arrived so far).
    pub(crate) fn earliest_open_match(&self, buf: &[u8], cut: usize) -> Option<usize> {
        self.spans(buf)
            .into_iter()
            .filter(|f| f.start < cut && f.end >= cut)
            .map(|f| f.start)
            .min()
    }

    /// Every secret of `input`, found in it or in one of its decoded views, as
    /// disjoint spans of `input` in order.
    fn spans(&self, input: &[u8]) -> Vec<Found> {
        let mut found = Vec::new();
        self.scan(input, &mut found);
        for view in views(input) {
            let mut in_view = Vec::new();
            self.scan(&view.bytes, &mut in_view);
            found.extend(in_view.into_iter().map(|f| {
                let (start, end) = view.original(f.start, f.end);
                Found { start, end, ..f }
            }));
        }
        merge(found)
    }

    fn scan(&self, text: &[u8], out: &mut Vec<Found>) {
        self.rules.find(text, out);
        for l in self.literals.iter() {
            for caps in l.regex.captures_iter(text) {
                if let Some(m) = caps.name("secret").or_else(|| caps.get(0)) {
                    out.push(Found {
                        start: m.start(),
                        end: m.end(),
                        label: l.label,
                    });
                }
            }
        }
    }
}

/// `input` cut at line ends into pieces of about [`PIECE`] bytes.
fn pieces(input: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = input;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let cut = if rest.len() <= PIECE {
            rest.len()
        } else {
            rest[PIECE..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(rest.len(), |i| PIECE + i + 1)
        };
        let (piece, tail) = rest.split_at(cut);
        rest = tail;
        Some(piece)
    })
}

/// Overlapping spans joined, each named by the first label of [`Label`]'s order
/// among those it joins.
fn merge(mut found: Vec<Found>) -> Vec<Found> {
    found.retain(|f| f.start < f.end);
    found.sort_by_key(|f| (f.start, f.end));
    let mut out: Vec<Found> = Vec::with_capacity(found.len());
    for f in found {
        match out.last_mut() {
            Some(last) if f.start < last.end => {
                last.end = last.end.max(f.end);
                last.label = last.label.min(f.label);
            }
            _ => out.push(f),
        }
    }
    out
}

/// `input` with each span replaced by its placeholder; a span over several lines
/// keeps its line ends, one placeholder per line.
fn replace(input: &[u8], spans: &[Found]) -> Vec<u8> {
    if spans.is_empty() {
        return input.to_vec();
    }
    let mut out = Vec::with_capacity(input.len());
    let mut at = 0;
    for f in spans {
        out.extend_from_slice(&input[at..f.start]);
        for line in input[f.start..f.end].split_inclusive(|&b| b == b'\n') {
            out.extend_from_slice(f.label.placeholder().as_bytes());
            if line.ends_with(b"\r\n") {
                out.extend_from_slice(b"\r\n");
            } else if line.ends_with(b"\n") {
                out.push(b'\n');
            }
        }
        at = f.end;
    }
    out.extend_from_slice(&input[at..]);
    out
}

/// A pattern matching `fact` plain, JSON-escaped and URL-encoded; `words` makes it
/// match whole words only, case-insensitively (names and user names).
fn literal_pattern(fact: &str, words: bool) -> Option<Regex> {
    let mut forms = vec![fact.to_string()];
    let json = serde_json::to_string(fact).unwrap_or_default();
    let json = json.trim_matches('"').to_string();
    forms.push(json.replace('/', "\\/"));
    forms.push(json);
    forms.push(percent_encode(fact, false));
    forms.push(percent_encode(fact, true));
    forms.push(percent_encode(fact, false).replace("%20", "+"));
    forms.sort();
    forms.dedup();
    let alternatives = forms
        .iter()
        .map(|f| regex::escape(f))
        .collect::<Vec<_>>()
        .join("|");
    let pattern = if words {
        // A word may follow an escape (`%20alice`, `\nalice`), where `\b` sees none.
        format!(r"(?i)(?:%[0-9A-Fa-f]{{2}}|\\[nrt]|\b)(?P<secret>{alternatives})\b")
    } else {
        format!("(?:{alternatives})")
    };
    Regex::new(&pattern).ok()
}

/// `s` with every byte outside RFC 3986's unreserved set percent-encoded.
pub fn percent_encode(s: &str, lower: bool) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else if lower {
            out.push_str(&format!("%{b:02x}"));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alice() -> Redactor {
        Redactor::new(&Identity {
            homes: vec!["/home/alice".into()],
            users: vec!["alice".into()],
            names: vec!["Alice Liddell".into(), "Liddell".into()],
            emails: vec![],
        })
    }

    #[test]
    fn home_user_email_and_tokens_are_replaced() {
        let out = alice().redact(
            "cwd /home/alice/work by alice <alice@example.com> token ya29.a0AbC-123_x Bearer abcdef.ghi",
        );
        assert_eq!(
            out,
            "cwd [HOME]/work by [USER] <[EMAIL]> token [TOKEN] Bearer [TOKEN]"
        );
    }

    #[test]
    fn short_user_names_are_not_redacted_everywhere() {
        let r = Redactor::new(&Identity {
            users: vec!["al".into()],
            ..Identity::default()
        });
        assert_eq!(r.redact("all along"), "all along");
    }

    #[test]
    fn identity_facts_go_in_every_encoding() {
        let out = alice().redact(
            r#"{"cwd":"\/home\/alice\/x","u":"%2Fhome%2Falice","n":"Alice Liddell","m":"LIDDELL"}"#,
        );
        assert_eq!(
            out,
            r#"{"cwd":"[HOME]\/x","u":"[HOME]","n":"[NAME]","m":"[NAME]"}"#
        );
    }

    #[test]
    fn only_the_secret_group_of_a_json_field_is_replaced() {
        let r = Redactor::default();
        assert_eq!(
            r.redact(r#"{"access_token":"opaque","expires_in":3599}"#),
            r#"{"access_token":"[TOKEN]","expires_in":3599}"#
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_redacted_too() {
        let mut line = b"\xff\xfe token ghp_abcdefghijklmnopqrstuvwxyz0123456789 \xc3".to_vec();
        line.push(b'\n');
        let out = Redactor::default().redact_bytes(&line);
        assert_eq!(out, b"\xff\xfe token [TOKEN] \xc3\n");
    }

    #[test]
    fn a_secret_under_an_escape_goes_with_the_escapes_around_it() {
        let out = Redactor::default().redact(r"tok glpat\u002dAbCdEfGhIjKlMnOpQrSt end");
        assert_eq!(out, "tok [TOKEN] end");
    }

    #[test]
    fn a_jwt_goes_whole_with_its_signature() {
        let jwt = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
        let out = Redactor::default().redact(&format!("id_token: {jwt}\n"));
        assert_eq!(out, "id_token: [TOKEN]\n");
    }

    #[test]
    fn an_env_map_loses_secret_names_values_and_secrets_in_others() {
        let env: BTreeMap<String, String> = [
            ("GEMINI_API_KEY", "AQ.opaque-key-value-42"),
            ("NOTE", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
            ("HOME", "/tmp/h"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let out = Redactor::default().redact_env(&env);
        assert_eq!(out["GEMINI_API_KEY"], "[TOKEN]");
        assert_eq!(out["NOTE"], "[TOKEN]");
        assert_eq!(out["HOME"], "/tmp/h");
    }

    #[test]
    fn overlapping_spans_join_under_the_first_label() {
        let f = |start, end, label| Found { start, end, label };
        let merged = merge(vec![
            f(5, 9, Label::User),
            f(0, 11, Label::Home),
            f(11, 12, Label::Token),
        ]);
        assert_eq!(merged, vec![f(0, 11, Label::Home), f(11, 12, Label::Token)]);
    }
}
