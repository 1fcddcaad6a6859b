//! A capture's first-sight verdict: how fake-agy's default behaviour compared with it
//! when it entered the corpus, before fake-agy was changed for it (corpus.toml
//! `first_sight`). The fitted score is measured on every run; this one is recorded once.

use serde::{Deserialize, Serialize};

/// `first_sight = { verdict = "same", fake = "7f78eed", scored = "2026-12-01" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FirstSight {
    /// What `agy-harness fidelity` said about the capture.
    pub verdict: FirstSightVerdict,
    /// The short commit of the fake-agy it was scored against.
    pub fake: String,
    /// When it was scored, `YYYY-MM-DD`.
    pub scored: String,
    /// Why it was skipped, or its first difference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The verdict of a first-sight run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FirstSightVerdict {
    /// No difference found.
    Same,
    /// At least one difference.
    Different,
    /// Not compared (argv unknown, ACP transcript).
    Skipped,
}

impl FirstSight {
    /// What is wrong with the entry, if anything: the hint to show. (`scored` is checked
    /// as a date by the corpus reader, with the other dates.)
    pub fn problem(&self) -> Option<&'static str> {
        let short_commit =
            (7..=40).contains(&self.fake.len()) && self.fake.chars().all(|c| c.is_ascii_hexdigit());
        if !short_commit {
            return Some("`fake` is the short commit (7–40 hex digits) fake-agy was scored at");
        }
        let noted = self.note.as_deref().is_some_and(|n| !n.trim().is_empty());
        if self.verdict != FirstSightVerdict::Same && !noted {
            return Some("a `different` or `skipped` verdict says why in `note` (the first difference, or why it was not compared)");
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sight(
        verdict: FirstSightVerdict,
        fake: &str,
        scored: &str,
        note: Option<&str>,
    ) -> FirstSight {
        FirstSight {
            verdict,
            fake: fake.into(),
            scored: scored.into(),
            note: note.map(str::to_string),
        }
    }

    #[test]
    fn a_verdict_needs_a_commit_a_date_and_a_reason_unless_same() {
        use FirstSightVerdict::*;
        assert_eq!(sight(Same, "7f78eed", "2026-12-01", None).problem(), None);
        assert_eq!(
            sight(Different, "7f78eed", "2026-12-01", Some("exit: 1 vs 0")).problem(),
            None
        );
        for bad in [
            sight(Same, "main", "2026-12-01", None),
            sight(Different, "7f78eed", "2026-12-01", None),
            sight(Skipped, "7f78eed", "2026-12-01", Some(" ")),
        ] {
            assert!(bad.problem().is_some(), "{bad:?}");
        }
    }
}
