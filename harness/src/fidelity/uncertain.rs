//! `agy-harness fidelity --version V`: the behaviours of fake-agy's version model that
//! the record leaves uncertain at V (between the last version seen without a change and
//! the first seen with it), and the evidence V falls back to when the record has none
//! of its own.

use agy_protocol::version_evidence::{nearest_evidence, uncertain_at};
use agy_protocol::{AgyVersion, MODELLED_VERSIONS};
use std::fmt::Write as _;

/// The report for `v`.
pub fn uncertain_report(v: AgyVersion) -> String {
    let mut out = String::new();
    let (nearest, recorded) = nearest_evidence(v);
    if !recorded {
        let _ = writeln!(
            out,
            "agy {v}: no edge of the version model has evidence at this version; the nearest evidence is agy {nearest}"
        );
    }
    if !MODELLED_VERSIONS.contains(&v) {
        let _ = writeln!(
            out,
            "agy {v} is not one of the versions fake-agy models distinctly; it behaves by the version model's edges, and where the record is silent (below) by the side the model chose"
        );
    }
    let edges = uncertain_at(v);
    if edges.is_empty() {
        let _ = writeln!(out, "no behaviour is uncertain at agy {v}");
        return out;
    }
    let _ = writeln!(
        out,
        "{} behaviour(s) uncertain at agy {v} (pick a side with FAKE_AGY_UNCERTAIN=before|after):",
        edges.len()
    );
    for e in edges {
        let what = if e.ends { "ends" } else { "starts" };
        let _ = writeln!(
            out,
            "  {:<24} {what} {}; evidence: {}",
            e.behaviour,
            e.range(),
            e.evidence
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> AgyVersion {
        s.parse().expect("version")
    }

    #[test]
    fn a_version_between_records_lists_its_open_edges_and_its_fallback() {
        let r = uncertain_report(v("1.1.23"));
        assert!(
            r.contains("no edge of the version model has evidence at this version; the nearest evidence is agy 1.1.22"),
            "{r}"
        );
        assert!(r.contains("not one of the versions fake-agy models"), "{r}");
        assert!(
            r.contains("  DenialSuccess            starts after 1.1.22, before 1.1.27"),
            "{r}"
        );
        assert!(!r.contains("SearchToolsDropped"), "{r}");
    }

    #[test]
    fn a_recorded_modelled_version_says_so_without_pretending() {
        let r = uncertain_report(v("1.3.2"));
        assert_eq!(r, "no behaviour is uncertain at agy 1.3.2\n");
    }
}
