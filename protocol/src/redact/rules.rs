//! One secret rule, compiled: the maintained rule list ([`super::gitleaks`]) and the
//! kit's own additions for formats that list lacks (`protocol/redact-rules.toml`, each
//! citing its public source) share this shape.

use super::secret_name::is_secret_name;
use regex::bytes::{Captures, Match, Regex, RegexBuilder};
use serde::Deserialize;
use std::sync::OnceLock;

/// The kit's own rule file, embedded so every binary redacts with the same rules.
pub const RULES_TOML: &str = include_str!("../../redact-rules.toml");

/// The largest compiled program one rule may have (some maintained rules repeat a
/// class a few hundred times).
const SIZE_LIMIT: usize = 32 << 20;

/// The most memory one rule's lazy DFA may cache: the broad rules (gitleaks'
/// `generic-api-key`) rebuild their states over and over in the default 2 MiB.
const DFA_CACHE: usize = 16 << 20;

/// What a match becomes: `[TOKEN]`, `[EMAIL]`, … Declared in the order in which
/// overlapping matches are named (a home path holding a user name is `[HOME]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Label {
    /// A home path.
    Home,
    /// An e-mail address.
    Email,
    /// A token, key, password or any other secret.
    Token,
    /// An account's display name.
    Name,
    /// A user name.
    User,
}

impl Label {
    /// The placeholder written instead of a match.
    pub fn placeholder(self) -> &'static str {
        match self {
            Label::Home => "[HOME]",
            Label::Email => "[EMAIL]",
            Label::Token => "[TOKEN]",
            Label::Name => "[NAME]",
            Label::User => "[USER]",
        }
    }

    fn parse(s: &str) -> Option<Label> {
        match s {
            "TOKEN" => Some(Label::Token),
            "EMAIL" => Some(Label::Email),
            _ => None,
        }
    }
}

/// Which part of a match is the secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretGroup {
    /// The group named `secret` when it took part, else the whole match (the kit's rules).
    Named,
    /// This numbered group (a maintained rule's `secretGroup`).
    Index(usize),
    /// The first group that matched something, else the whole match (a maintained
    /// rule without `secretGroup`, read as gitleaks reads it).
    FirstNonEmpty,
}

/// One secret format.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Rule id (`github-token`, `gitleaks:gitlab-pat`, …).
    pub id: String,
    /// What a match becomes.
    pub label: Label,
    /// Where the format is published.
    pub source: String,
    /// The compiled pattern.
    pub regex: Regex,
    /// Which part of a match is replaced.
    pub secret: SecretGroup,
    /// Words one of which the text must hold (any case) for the rule to run; none: it
    /// always runs.
    pub keywords: Vec<String>,
    /// A secret whose Shannon entropy (bits per byte) is at most this is no secret.
    pub entropy: Option<f64>,
    /// The planted example of the property tests (the kit's rules carry one).
    pub example: Option<Example>,
}

impl Rule {
    /// The secret part of one match, when the match is a secret: its group per
    /// [`SecretGroup`], its name (a group `name`) a secret name, its entropy above the
    /// rule's floor.
    pub fn secret_of<'h>(&self, caps: &Captures<'h>) -> Option<Match<'h>> {
        if let Some(name) = caps.name("name") {
            if !is_secret_name(&String::from_utf8_lossy(name.as_bytes())) {
                return None;
            }
        }
        let whole = caps.get(0)?;
        let secret = match self.secret {
            SecretGroup::Named => caps.name("secret").unwrap_or(whole),
            SecretGroup::Index(i) => caps.get(i)?,
            SecretGroup::FirstNonEmpty => (1..caps.len())
                .filter_map(|i| caps.get(i))
                .find(|m| !m.is_empty())
                .unwrap_or(whole),
        };
        let low = self
            .entropy
            .is_some_and(|floor| shannon_entropy(secret.as_bytes()) <= floor);
        (!secret.is_empty() && !low).then_some(secret)
    }
}

/// Bits per byte of `bytes` (gitleaks' `shannonEntropy`).
pub fn shannon_entropy(bytes: &[u8]) -> f64 {
    if bytes.is_empty() {
        return 0.0;
    }
    let mut counts = [0usize; 256];
    bytes.iter().for_each(|&b| counts[usize::from(b)] += 1);
    let n = bytes.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// Compiles a pattern as RE2 reads it: ASCII classes (`\w`, `\s`, `\b`), bytes.
pub fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .unicode(false)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(DFA_CACHE)
        .build()
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
    #[serde(default)]
    keywords: Vec<String>,
    example: Example,
}

/// Why a rule file does not load.
#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    /// Not TOML, or a rule lacks a key.
    #[error("{file}: {message}")]
    Toml {
        /// The rule file.
        file: &'static str,
        /// What the TOML reader said (with the line and column).
        message: String,
    },
    /// A pattern does not compile.
    #[error("{file}: rule `{id}`: {message}")]
    Regex {
        /// The rule file.
        file: &'static str,
        /// The rule.
        id: String,
        /// What the regex crate said.
        message: String,
    },
    /// A label the redactor does not write.
    #[error(
        "redact-rules.toml: rule `{id}`: unknown label `{label}` (expected `TOKEN` or `EMAIL`)"
    )]
    Label {
        /// The rule.
        id: String,
        /// The label.
        label: String,
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

/// Parses and compiles the kit's rule file.
pub fn parse_rules(text: &str) -> Result<Vec<Rule>, RuleError> {
    const FILE: &str = "redact-rules.toml";
    let file: RuleFile = toml::from_str(text).map_err(|e| RuleError::Toml {
        file: FILE,
        message: e.to_string(),
    })?;
    file.rule
        .into_iter()
        .map(|r| {
            let regex = compile(&expand_placeholders(&r.regex)).map_err(|e| RuleError::Regex {
                file: FILE,
                id: r.id.clone(),
                message: e.to_string(),
            })?;
            let label = Label::parse(&r.label).ok_or_else(|| RuleError::Label {
                id: r.id.clone(),
                label: r.label.clone(),
            })?;
            Ok(Rule {
                id: r.id,
                label,
                source: r.source,
                regex,
                secret: SecretGroup::Named,
                keywords: r.keywords,
                entropy: None,
                example: Some(r.example),
            })
        })
        .collect()
}

/// The kit's own rules (`redact-rules.toml`), compiled on first use.
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
            let ex = r.example.as_ref().expect("example");
            assert!(ex.text.contains(&ex.secret), "rule `{}`", r.id);
        }
    }

    #[test]
    fn every_example_matches_its_own_rule() {
        for r in builtin_rules() {
            let ex = r.example.as_ref().expect("example");
            let found = r
                .regex
                .captures_iter(ex.text.as_bytes())
                .any(|c| r.secret_of(&c).is_some());
            assert!(found, "rule `{}`", r.id);
        }
    }

    #[test]
    fn a_bad_pattern_names_its_rule() {
        let text = "[[rule]]\nid = \"x\"\nlabel = \"TOKEN\"\nsource = \"s\"\nregex = \"(\"\nexample = { text = \"a\", secret = \"a\" }\n";
        let err = parse_rules(text).expect_err("bad regex");
        assert!(err.to_string().contains("rule `x`"), "{err}");
    }

    #[test]
    fn entropy_is_measured_in_bits_per_byte() {
        assert_eq!(shannon_entropy(b"aaaa"), 0.0);
        assert!((shannon_entropy(b"abcd") - 2.0).abs() < 1e-9);
    }
}
