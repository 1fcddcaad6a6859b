//! Where each field of a calibration section is recorded: `evidence` (one source for
//! the section, or one per field) and `unverified` (the section, or the fields no record
//! shows). Every field is covered by one of them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `evidence = "…"` or `evidence = { field = "…" }`: capture ids of traces/corpus.toml
/// or sources named in docs/agy-versions.md.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Sources {
    /// One source for the whole section.
    All(String),
    /// A source per field.
    Fields(BTreeMap<String, String>),
}

/// `unverified = true` or `unverified = ["field", …]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Unverified {
    /// The whole section (`true`), or nothing (`false`).
    All(bool),
    /// These fields.
    Fields(Vec<String>),
}

/// A problem with a section's evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvidenceGap {
    /// A field neither sourced nor marked unverified.
    Uncovered(String),
    /// A name in `evidence` or `unverified` that is not a field of the section.
    NotAField {
        /// `evidence` or `unverified`.
        key: &'static str,
        /// The name.
        name: String,
    },
    /// A source that is blank.
    Blank(String),
}

/// What is wrong with how `fields` are covered.
pub fn gaps(
    fields: &[&str],
    sources: Option<&Sources>,
    unverified: Option<&Unverified>,
) -> Vec<EvidenceGap> {
    let mut out = Vec::new();
    let mut named = |key: &'static str, name: &str| {
        if !fields.contains(&name) {
            out.push(EvidenceGap::NotAField {
                key,
                name: name.to_string(),
            });
        }
    };
    if let Some(Sources::Fields(map)) = sources {
        map.keys().for_each(|k| named("evidence", k));
    }
    if let Some(Unverified::Fields(list)) = unverified {
        list.iter().for_each(|k| named("unverified", k));
    }
    match sources {
        Some(Sources::All(s)) if s.trim().is_empty() => out.push(EvidenceGap::Blank("*".into())),
        Some(Sources::Fields(map)) => out.extend(
            map.iter()
                .filter(|(_, s)| s.trim().is_empty())
                .map(|(k, _)| EvidenceGap::Blank(k.clone())),
        ),
        _ => {}
    }
    for f in fields {
        if !covers(sources, unverified, f) {
            out.push(EvidenceGap::Uncovered(f.to_string()));
        }
    }
    out
}

/// True when `field` has a source or is marked unverified.
pub fn covers(sources: Option<&Sources>, unverified: Option<&Unverified>, field: &str) -> bool {
    let sourced = match sources {
        Some(Sources::All(_)) => true,
        Some(Sources::Fields(map)) => map.contains_key(field),
        None => false,
    };
    let marked = match unverified {
        Some(Unverified::All(all)) => *all,
        Some(Unverified::Fields(list)) => list.iter().any(|f| f == field),
        None => false,
    };
    sourced || marked
}

/// True when `field` is marked unverified.
pub fn is_unverified(unverified: Option<&Unverified>, field: &str) -> bool {
    covers(None, unverified, field)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_needs_a_source_or_the_unverified_mark() {
        let fields = ["status", "notice"];
        let per_field = Sources::Fields([("status".to_string(), "x-1".to_string())].into());
        assert_eq!(
            gaps(&fields, Some(&per_field), None),
            vec![EvidenceGap::Uncovered("notice".into())]
        );
        let marked = Unverified::Fields(vec!["notice".into()]);
        assert!(gaps(&fields, Some(&per_field), Some(&marked)).is_empty());
        assert!(gaps(&fields, None, Some(&Unverified::All(true))).is_empty());
        assert_eq!(gaps(&fields, None, Some(&Unverified::All(false))).len(), 2);
        let typo = Unverified::Fields(vec!["notise".into()]);
        assert!(
            gaps(&fields, Some(&Sources::All("y".into())), Some(&typo)).contains(
                &EvidenceGap::NotAField {
                    key: "unverified",
                    name: "notise".into()
                }
            )
        );
    }
}
