//! The maintained rule list: gitleaks' default configuration, vendored verbatim in
//! `protocol/gitleaks/gitleaks.toml` (MIT, provenance in `protocol/gitleaks/README.md`,
//! refreshed by `scripts/refresh-gitleaks-rules`). Each rule's `regex`, `secretGroup`,
//! `entropy` and `keywords` are read as gitleaks reads them; allow-lists are not (a
//! redactor would rather hide a false positive than show a secret). A rule that cannot
//! be used here is skipped with its reason ([`skipped_gitleaks_rules`]).

use super::rules::{compile, Label, Rule, SecretGroup};
use serde::Deserialize;
use std::sync::OnceLock;

/// The vendored gitleaks configuration.
pub const GITLEAKS_TOML: &str = include_str!("../../gitleaks/gitleaks.toml");

/// Rules of the list the kit replaces with its own, and why.
const SUPERSEDED: &[(&str, &str)] = &[(
    "private-key",
    "spans lines; the kit's `private-key` rule and key blocks redact it line by line, keeping each line end",
)];

#[derive(Deserialize)]
struct ConfigFile {
    #[serde(default)]
    rules: Vec<RawRule>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawRule {
    id: String,
    #[serde(default)]
    description: String,
    regex: Option<String>,
    path: Option<String>,
    secret_group: Option<usize>,
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
}

/// A rule of the list that is not used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The gitleaks rule id.
    pub id: String,
    /// Why it is not used.
    pub reason: String,
}

/// The list's rules that compile, and the ones skipped.
#[derive(Debug, Default)]
pub struct Loaded {
    /// Compiled rules, ids prefixed `gitleaks:`.
    pub rules: Vec<Rule>,
    /// Rules not used, with the reason.
    pub skipped: Vec<Skipped>,
}

/// Reads a gitleaks configuration.
pub fn parse_gitleaks(text: &str) -> Result<Loaded, super::rules::RuleError> {
    let file: ConfigFile = toml::from_str(text).map_err(|e| super::rules::RuleError::Toml {
        file: "gitleaks.toml",
        message: e.to_string(),
    })?;
    let mut loaded = Loaded::default();
    for raw in file.rules {
        match convert(&raw) {
            Ok(rule) => loaded.rules.push(rule),
            Err(reason) => loaded.skipped.push(Skipped { id: raw.id, reason }),
        }
    }
    Ok(loaded)
}

/// One gitleaks rule as a [`Rule`], or why it is skipped.
fn convert(raw: &RawRule) -> Result<Rule, String> {
    if let Some((_, why)) = SUPERSEDED.iter().find(|(id, _)| *id == raw.id) {
        return Err(format!("superseded: {why}"));
    }
    let Some(pattern) = &raw.regex else {
        return Err(format!(
            "path-only: matches file names (`{}`), not text",
            raw.path.as_deref().unwrap_or("")
        ));
    };
    let regex = compile(pattern).map_err(|e| format!("does not compile: {e}"))?;
    let secret = match raw.secret_group {
        Some(i) if i >= regex.captures_len() => {
            return Err(format!("secretGroup {i} names no group of the regex"))
        }
        Some(i) if i > 0 => SecretGroup::Index(i),
        _ => SecretGroup::FirstNonEmpty,
    };
    Ok(Rule {
        id: format!("gitleaks:{}", raw.id),
        label: Label::Token,
        source: format!("gitleaks {}: {}", raw.id, raw.description),
        regex,
        secret,
        keywords: raw
            .keywords
            .iter()
            .map(|k| k.to_ascii_lowercase())
            .collect(),
        entropy: raw.entropy.filter(|e| *e > 0.0),
        example: None,
    })
}

fn loaded() -> &'static Loaded {
    static LOADED: OnceLock<Loaded> = OnceLock::new();
    // The vendored file is checked by a unit test; should it ever fail to load, the
    // kit's own rules still run, and the test names the cause.
    LOADED.get_or_init(|| parse_gitleaks(GITLEAKS_TOML).unwrap_or_default())
}

/// The vendored list's rules, compiled on first use.
pub fn gitleaks_rules() -> &'static [Rule] {
    &loaded().rules
}

/// The vendored list's rules that are not used, with the reason.
pub fn skipped_gitleaks_rules() -> &'static [Skipped] {
    &loaded().skipped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vendored_list_loads_and_only_the_known_rules_are_skipped() {
        // A refresh that adds a rule the regex crate cannot read, or drops one of
        // these, fails here: no rule is lost without a line in this list.
        let loaded = parse_gitleaks(GITLEAKS_TOML).expect("gitleaks.toml loads");
        let mut skipped: Vec<&str> = loaded.skipped.iter().map(|s| s.id.as_str()).collect();
        skipped.sort_unstable();
        assert_eq!(
            skipped,
            ["pkcs12-file", "private-key"],
            "{:#?}",
            loaded.skipped
        );
        assert!(loaded.rules.len() >= 200, "{}", loaded.rules.len());
    }

    #[test]
    fn the_provenance_names_the_vendored_files_hash() {
        // A refresh that does not update protocol/gitleaks/README.md fails here.
        use sha2::{Digest, Sha256};
        let hash: String = Sha256::digest(GITLEAKS_TOML.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let readme = include_str!("../../gitleaks/README.md");
        assert!(readme.contains(&hash), "README.md lacks sha256 {hash}");
    }

    #[test]
    fn every_rule_has_keywords() {
        for r in gitleaks_rules() {
            assert!(!r.keywords.is_empty(), "{}", r.id);
        }
    }

    #[test]
    fn a_rule_with_a_bad_pattern_is_skipped_with_the_reason() {
        let text = "[[rules]]\nid = \"bad\"\nregex = '''(?<=x)y'''\nkeywords = [\"y\"]\n";
        let loaded = parse_gitleaks(text).expect("parses");
        assert!(loaded.rules.is_empty());
        assert!(loaded.skipped[0].reason.contains("does not compile"));
    }
}
