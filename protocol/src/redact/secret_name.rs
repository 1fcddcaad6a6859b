//! Names whose value is a secret whatever it looks like: an environment variable
//! (`GEMINI_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`, `SESSION_COOKIE`), a JSON field
//! (`"SecretAccessKey"`, `"refresh_token"`), an HTTP header (`Authorization`,
//! `Cookie`, `Set-Cookie`, `x-goog-api-key`). A value found under such a name is
//! replaced whole: an opaque key has no format a rule could know it by.

use std::collections::BTreeMap;

/// Parts that make a name secret wherever they appear in it (upper-cased, with `-`
/// and `.` read as `_`).
const SECRET_PARTS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "COOKIE",
    "CREDENTIAL",
    "AUTHORIZATION",
    "APIKEY",
    "API_KEY",
    "ACCESSKEY",
    "ACCESS_KEY",
    "PRIVATEKEY",
    "PRIVATE_KEY",
    "SESSIONKEY",
    "SESSION_KEY",
];

/// Words one of which every secret name holds (any case): the keywords of the rules
/// that match by name (`named-*` in `redact-rules.toml`).
pub const NAME_KEYWORDS: &[&str] = &[
    "key",
    "pass",
    "auth",
    "token",
    "secret",
    "cookie",
    "credential",
];

/// Whole names that are secret (headers and settings without a telling part).
const SECRET_NAMES: &[&str] = &["KEY", "PASS", "AUTH"];

/// Parts that look secret but name something public (`TOKEN_COUNT`, `MAX_TOKENS`,
/// `PUBLIC_KEY`): their values are numbers or public data, and keeping them readable
/// keeps reports useful. A number value is never redacted anyway.
const PUBLIC_NAMES: &[&str] = &["PUBLIC_KEY", "PUBLICKEY", "KEY_ID", "KEYID"];

/// Whether a value named `name` is a secret: `*_KEY`, `*TOKEN*`, `*SECRET*`,
/// `*PASSWORD*`, `*COOKIE*`, `*CREDENTIAL*`, `Authorization`-like headers, and their
/// camel-case and kebab-case spellings (`apiKey`, `SecretAccessKey`, `x-api-key`).
pub fn is_secret_name(name: &str) -> bool {
    if name.is_empty() || name.len() > 200 {
        return false;
    }
    let upper = normalise(name);
    if PUBLIC_NAMES.iter().any(|p| upper.ends_with(p)) {
        return false;
    }
    SECRET_NAMES.contains(&upper.as_str())
        || upper.ends_with("_KEY")
        || SECRET_PARTS.iter().any(|p| upper.contains(p))
}

/// `name` upper-cased with `-`, `.` and a camel-case step (`apiKey`) read as `_`.
fn normalise(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(match c {
            '-' | '.' | ' ' => '_',
            c => c.to_ascii_uppercase(),
        });
    }
    out
}

/// The placeholder a value under a secret name becomes.
pub const NAMED_SECRET: &str = "[TOKEN]";

/// `env` with the value of every secret name replaced by [`NAMED_SECRET`]; other
/// values are kept as they are. Needs no rule: what a fake writes into a journal goes
/// through this before it is stored.
pub fn redact_env_by_name(env: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    env.iter()
        .map(|(k, v)| {
            let v = if is_secret_name(k) && !v.is_empty() {
                NAMED_SECRET.to_string()
            } else {
                v.clone()
            };
            (k.clone(), v)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_in_every_spelling_are_known() {
        for name in [
            "GEMINI_API_KEY",
            "ANTHROPIC_API_KEY",
            "GITHUB_TOKEN",
            "HF_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "DB_PASSWORD",
            "SESSION_COOKIE",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "Authorization",
            "Proxy-Authorization",
            "Cookie",
            "Set-Cookie",
            "x-goog-api-key",
            "X-Api-Key",
            "SecretAccessKey",
            "apiKey",
            "client_secret",
            "refresh_token",
            "privateKey",
            "STRIPE_KEY",
            "key",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn every_secret_name_holds_a_name_keyword_and_the_named_rules_use_them() {
        // The rules that match by name run only where a keyword is: a secret part
        // without one would never be looked for.
        for part in SECRET_PARTS.iter().chain(SECRET_NAMES) {
            let lower = part.to_ascii_lowercase();
            assert!(NAME_KEYWORDS.iter().any(|k| lower.contains(k)), "{part}");
        }
        let named: Vec<_> = crate::redact::rules::builtin_rules()
            .iter()
            .filter(|r| r.id.starts_with("named-"))
            .collect();
        assert_eq!(named.len(), 3);
        for r in named {
            assert_eq!(r.keywords, NAME_KEYWORDS, "{}", r.id);
        }
    }

    #[test]
    fn ordinary_names_are_kept() {
        for name in [
            "HOME",
            "PATH",
            "PWD",
            "CI",
            "ANTIGRAVITY_APP_DATA_DIR",
            "FAKE_AGY_SCRIPT",
            "keyboard",
            "monkey",
            "public_key",
            "private_key_id",
            "",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn an_env_map_loses_only_the_values_of_secret_names() {
        let env: BTreeMap<String, String> = [
            ("GEMINI_API_KEY", "AQ.opaque-key-value-42"),
            ("HOME", "/tmp/sandbox/home"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let out = redact_env_by_name(&env);
        assert_eq!(out["GEMINI_API_KEY"], "[TOKEN]");
        assert_eq!(out["HOME"], "/tmp/sandbox/home");
    }
}
