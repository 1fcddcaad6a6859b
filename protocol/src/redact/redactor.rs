//! The redactor: the secret formats of [`super::rules`] plus one person's
//! [`Identity`], applied to text and raw bytes alike.

use super::identity::Identity;
use super::key_block::KeyBlock;
use super::rules::{builtin_rules, Rule};
use super::wrapped::redact_wrapped;
use regex::bytes::{Captures, Regex};
use std::borrow::Cow;
use std::sync::Arc;

/// One compiled pattern and the placeholder its matches become.
#[derive(Debug, Clone)]
struct Pattern {
    regex: Regex,
    placeholder: Vec<u8>,
}

/// Removes secrets and identity facts from anything a live run produced. Cheap to
/// clone.
#[derive(Debug, Clone)]
pub struct Redactor {
    patterns: Arc<Vec<Pattern>>,
}

impl Default for Redactor {
    fn default() -> Redactor {
        Redactor::new(&Identity::default())
    }
}

impl Redactor {
    /// A redactor for the secret formats and this identity's facts.
    pub fn new(identity: &Identity) -> Redactor {
        let literal = |facts: &[String], label: &str, words: bool, min: usize| {
            facts
                .iter()
                .filter(|f| f.chars().count() >= min)
                .filter_map(|f| literal_pattern(f, words))
                .map(|regex| Pattern {
                    regex,
                    placeholder: format!("[{label}]").into_bytes(),
                })
                .collect::<Vec<_>>()
        };
        let mut patterns = Vec::new();
        // A home path holds the user name: it goes first, whole.
        patterns.extend(literal(&identity.homes, "HOME", false, 2));
        patterns.extend(literal(&identity.emails, "EMAIL", false, 3));
        patterns.extend(builtin_rules().iter().map(|r: &Rule| Pattern {
            regex: r.regex.clone(),
            placeholder: format!("[{}]", r.label).into_bytes(),
        }));
        patterns.extend(literal(&identity.names, "NAME", true, 3));
        patterns.extend(literal(&identity.users, "USER", true, 3));
        Redactor {
            patterns: Arc::new(patterns),
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
        let mut out: Cow<'_, [u8]> = Cow::Borrowed(input);
        if let Some(next) = redact_wrapped(&out, builtin_rules(), b"[TOKEN]") {
            out = Cow::Owned(next);
        }
        for p in self.patterns.iter() {
            if let Cow::Owned(next) = p
                .regex
                .replace_all(&out, |c: &Captures<'_>| replace(c, &p.placeholder))
            {
                out = Cow::Owned(next);
            }
        }
        block.redact(&out)
    }

    /// Redacts text.
    pub fn redact(&self, text: &str) -> String {
        let bytes = self.redact_bytes(text.as_bytes());
        String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// Redacts every string (and key) of a JSON value.
    pub fn redact_json(&self, value: &serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match value {
            Value::String(s) => Value::String(self.redact(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.redact_json(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (self.redact(k), self.redact_json(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// The earliest start of a match that reaches `cut` or beyond in `buf` (a secret
    /// that may continue past the end of what arrived so far).
    pub(crate) fn earliest_open_match(&self, buf: &[u8], cut: usize) -> Option<usize> {
        self.patterns
            .iter()
            .flat_map(|p| p.regex.find_iter(buf))
            .filter(|m| m.start() < cut && m.end() >= cut)
            .map(|m| m.start())
            .min()
    }
}

/// The whole match replaced, or only its `secret` group when the rule names one.
fn replace(c: &Captures<'_>, placeholder: &[u8]) -> Vec<u8> {
    let whole = c.get(0).map_or(&[][..], |m| m.as_bytes());
    match (c.get(0), c.name("secret")) {
        (Some(m), Some(s)) => {
            let mut out = whole[..s.start() - m.start()].to_vec();
            out.extend_from_slice(placeholder);
            out.extend_from_slice(&whole[s.end() - m.start()..]);
            out
        }
        _ => placeholder.to_vec(),
    }
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
}
