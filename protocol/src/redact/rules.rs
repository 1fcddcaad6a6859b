//! The secret formats, kept as data in `protocol/redact-rules.toml` (each with its
//! public source), compiled once.

use regex::bytes::Regex;
use serde::Deserialize;
use std::sync::OnceLock;

/// The rule file, embedded so every binary redacts with the same rules.
pub const RULES_TOML: &str = include_str!("../../redact-rules.toml");

/// One secret format.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Rule id (`github-token`, `email`, …).
    pub id: String,
    /// The placeholder's name: a match becomes `[LABEL]`.
    pub label: String,
    /// Where the format is published.
    pub source: String,
    /// The compiled pattern.
    pub regex: Regex,
    /// The planted example of the property test.
    pub example: Example,
}

/// A planted example: `text` as it appears, `secret` the part that must never survive.
#[derive(Debug, Clone, Deserialize)]
pub struct Example {
    /// The text planted.
    pub text: String,
    /// The part of it no artefact may contain.
    pub secret: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    rule: Vec<RawRule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    label: String,
    source: String,
    regex: String,
    example: Example,
}

/// Why the rule file does not load.
#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    /// Not TOML, or a rule lacks a key.
    #[error("redact-rules.toml: {0}")]
    Toml(String),
    /// A pattern does not compile.
    #[error("redact-rules.toml: rule `{id}`: {message}")]
    Regex {
        /// The rule.
        id: String,
        /// What the regex crate said.
        message: String,
    },
}

/// Replaces the encoding placeholders (`{AT}`, `{SL}`, `{Q}`, `{COLON}`, `{SP}`) with
/// the alternatives they stand for.
pub fn expand_placeholders(pattern: &str) -> String {
    pattern
        .replace("{AT}", r"(?:@|%40|%2540|\\u0040)")
        .replace("{SL}", r"(?:/|%2[Ff]|\\/)")
        .replace("{Q}", r#"(?:\\*"|%22)"#)
        .replace("{COLON}", r"(?::|%3[Aa])")
        .replace("{SP}", r"(?:\s|%20|\+)*")
}

/// Parses and compiles a rule file.
pub fn parse_rules(text: &str) -> Result<Vec<Rule>, RuleError> {
    let file: RuleFile = toml::from_str(text).map_err(|e| RuleError::Toml(e.to_string()))?;
    file.rule
        .into_iter()
        .map(|r| {
            let regex =
                Regex::new(&expand_placeholders(&r.regex)).map_err(|e| RuleError::Regex {
                    id: r.id.clone(),
                    message: e.to_string(),
                })?;
            Ok(Rule {
                id: r.id,
                label: r.label,
                source: r.source,
                regex,
                example: r.example,
            })
        })
        .collect()
}

/// The embedded rules, compiled on first use.
pub fn builtin_rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    // The embedded file is checked by a unit test; should it ever fail to load, no
    // rule is better than a panic in a binary, and the test names the cause.
    RULES.get_or_init(|| parse_rules(RULES_TOML).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_rule_file_loads_and_every_rule_cites_a_source() {
        let rules = parse_rules(RULES_TOML).expect("redact-rules.toml loads");
        assert!(rules.len() >= 15);
        for r in &rules {
            assert!(!r.source.trim().is_empty(), "rule `{}` has no source", r.id);
            assert!(
                r.example.text.contains(&r.example.secret),
                "rule `{}`",
                r.id
            );
        }
    }

    #[test]
    fn every_example_matches_its_own_rule() {
        for r in builtin_rules() {
            assert!(
                r.regex.is_match(r.example.text.as_bytes()),
                "rule `{}`",
                r.id
            );
        }
    }

    #[test]
    fn a_bad_pattern_names_its_rule() {
        let text = "[[rule]]\nid = \"x\"\nlabel = \"T\"\nsource = \"s\"\nregex = \"(\"\nexample = { text = \"a\", secret = \"a\" }\n";
        let err = parse_rules(text).expect_err("bad regex");
        assert!(err.to_string().contains("rule `x`"), "{err}");
    }
}
