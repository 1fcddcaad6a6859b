//! Secrets wrapped in base64 (a token inside a base64 `Authorization` value, a config
//! blob): a run of base64 that decodes to text one of the rules matches is replaced
//! whole.

use super::rules::Rule;
use base64::Engine;
use regex::bytes::Regex;
use std::sync::OnceLock;

/// The shortest base64 run decoded: shorter ones cannot hold a token the rules know.
const MIN_RUN: usize = 24;
/// The longest run decoded; longer ones (images, archives) are not credentials.
const MAX_RUN: usize = 4096;

/// `text` with every base64 run that wraps a secret of `rules` replaced by
/// `placeholder`.
pub(crate) fn redact_wrapped(text: &[u8], rules: &[Rule], placeholder: &[u8]) -> Option<Vec<u8>> {
    static RUN: OnceLock<Option<Regex>> = OnceLock::new();
    let run = RUN
        .get_or_init(|| Regex::new(r"[A-Za-z0-9+/_\-]{24,}={0,2}").ok())
        .as_ref()?;
    let mut changed = false;
    let out = run.replace_all(text, |c: &regex::bytes::Captures<'_>| {
        let found = c.get(0).map_or(&[][..], |m| m.as_bytes());
        if wraps_a_secret(found, rules) {
            changed = true;
            placeholder.to_vec()
        } else {
            found.to_vec()
        }
    });
    changed.then(|| out.into_owned())
}

fn wraps_a_secret(run: &[u8], rules: &[Rule]) -> bool {
    if run.len() < MIN_RUN || run.len() > MAX_RUN {
        return false;
    }
    let trimmed: Vec<u8> = run.iter().copied().filter(|&b| b != b'=').collect();
    let engines = [
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    engines
        .iter()
        .filter_map(|e| e.decode(&trimmed).ok())
        .any(|decoded| rules.iter().any(|r| r.regex.is_match(&decoded)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::rules::builtin_rules;

    #[test]
    fn a_wrapped_token_is_replaced_and_plain_base64_kept() {
        let wrapped = base64::engine::general_purpose::STANDARD
            .encode("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
        let text = format!("creds {wrapped} end");
        let out = redact_wrapped(text.as_bytes(), builtin_rules(), b"[TOKEN]").expect("changed");
        assert_eq!(String::from_utf8_lossy(&out), "creds [TOKEN] end");
        let plain =
            base64::engine::general_purpose::STANDARD.encode("just an ordinary sentence here");
        assert_eq!(
            redact_wrapped(plain.as_bytes(), builtin_rules(), b"[TOKEN]"),
            None
        );
    }
}
