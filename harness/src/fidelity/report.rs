//! The fidelity report: per capture `same`, the differences, or why it was not compared;
//! the score per agy version and overall; the baseline verdict. Terminal, JSON and
//! Markdown.

use super::baseline::BaselineVerdict;
use super::compare::Difference;
use agy_protocol::AgyVersion;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What happened to one capture.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Outcome {
    /// fake-agy's default output has the capture's shape.
    Same,
    /// It differs.
    Different {
        /// Every difference, with the baseline's reason when it is accepted.
        differences: Vec<ReportedDifference>,
    },
    /// Not compared (unknown argv, ACP transcript, nothing recorded).
    Skipped {
        /// Why the measure did not compare it.
        reason: String,
        /// The baseline's reason for accepting that, when listed.
        #[serde(skip_serializing_if = "Option::is_none")]
        accepted: Option<String>,
    },
}

/// A difference and whether the baseline accepts it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportedDifference {
    /// The difference.
    #[serde(flatten)]
    pub difference: Difference,
    /// The baseline's reason, when listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accepted: Option<String>,
}

/// One capture's line of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaptureResult {
    /// Capture id.
    pub id: String,
    /// agy version, or `unknown`.
    pub agy_version: String,
    /// Capture kind.
    pub kind: String,
    /// What the comparison rests on besides agy's bytes: `elided`, `host.model`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rests_on: Vec<String>,
    /// What happened.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// Captures compared and captures with no difference.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Score {
    /// Captures compared.
    pub compared: usize,
    /// Captures with no difference.
    pub same: usize,
    /// `same / compared` (0 when nothing was compared).
    pub score: f64,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FidelityReport {
    /// The corpus folder.
    pub corpus: String,
    /// Overall score.
    pub overall: Score,
    /// The score over the captures that rest on agy's bytes alone (not on `elided` or
    /// `host.model`).
    pub unaided: Score,
    /// Captures not compared.
    pub skipped: usize,
    /// Score per agy version, oldest first (`unknown` last).
    pub by_version: Vec<(String, Score)>,
    /// Every capture, in corpus order.
    pub captures: Vec<CaptureResult>,
    /// Differences the baseline does not list (`capture: what`).
    pub new_divergences: Vec<String>,
    /// Listed divergences that disappeared (`capture: what`).
    pub gone_divergences: Vec<String>,
    /// Captures skipped without a baseline entry (`capture: why`).
    pub unexplained_skips: Vec<String>,
    /// Baseline skip entries of captures that were compared.
    pub stale_skips: Vec<String>,
    /// The committed counts and the run's, when they differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts_moved: Option<String>,
    /// True when the run shows exactly the baseline's divergences.
    pub holds: bool,
    /// The verdicts recorded when captures entered the corpus (corpus `first_sight`).
    pub first_sight: FirstSightScore,
}

/// The first-sight score: recorded verdicts, not this run's; skipped ones not counted.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct FirstSightScore {
    /// Over every capture with a `same` or `different` first-sight verdict.
    pub overall: Score,
    /// Per agy version, oldest first (`unknown` last).
    pub by_version: Vec<(String, Score)>,
}

/// Counts `(version, same)` pairs per version (oldest first, `unknown` last) and overall.
pub fn tally<'a>(verdicts: impl Iterator<Item = (&'a str, bool)>) -> (Score, Vec<(String, Score)>) {
    let mut versions: BTreeMap<(AgyVersion, String), Score> = BTreeMap::new();
    let mut overall = Score::default();
    for (version, same) in verdicts {
        // Unknown sorts after every version.
        let v = version
            .parse::<AgyVersion>()
            .unwrap_or(AgyVersion::new(u32::MAX, 0, 0));
        versions
            .entry((v, version.to_string()))
            .or_default()
            .count(same);
        overall.count(same);
    }
    let by_version = versions
        .into_iter()
        .map(|((_, name), s)| (name, s))
        .collect();
    (overall, by_version)
}

impl Score {
    fn count(&mut self, same: bool) {
        self.compared += 1;
        self.same += usize::from(same);
        self.score = self.same as f64 / self.compared as f64;
    }
}

impl FidelityReport {
    /// Builds the report from each capture's result and the baseline verdict.
    pub fn new(corpus: String, captures: Vec<CaptureResult>, verdict: &BaselineVerdict) -> Self {
        let mut versions: BTreeMap<(Option<AgyVersion>, String), Score> = BTreeMap::new();
        let mut overall = Score::default();
        let mut unaided = Score::default();
        let mut skipped = 0;
        for c in &captures {
            let same = match &c.outcome {
                Outcome::Same => true,
                Outcome::Different { .. } => false,
                Outcome::Skipped { .. } => {
                    skipped += 1;
                    continue;
                }
            };
            if c.rests_on.is_empty() {
                unaided.count(same);
            }
            // Unknown sorts after every version.
            let key = match c.agy_version.parse::<AgyVersion>() {
                Ok(v) => (Some(v), c.agy_version.clone()),
                Err(_) => (Some(AgyVersion::new(u32::MAX, 0, 0)), c.agy_version.clone()),
            };
            versions.entry(key).or_default().count(same);
            overall.count(same);
        }
        FidelityReport {
            corpus,
            overall,
            unaided,
            skipped,
            first_sight: FirstSightScore::default(),
            by_version: versions
                .into_iter()
                .map(|((_, name), s)| (name, s))
                .collect(),
            captures,
            new_divergences: verdict
                .new
                .iter()
                .map(|(c, d)| format!("{c}: {}", d.what))
                .collect(),
            gone_divergences: verdict
                .gone
                .iter()
                .map(|d| format!("{}: {}", d.capture, d.what))
                .collect(),
            unexplained_skips: verdict
                .unexplained_skips
                .iter()
                .map(|(c, why)| format!("{c}: {why}"))
                .collect(),
            stale_skips: verdict
                .stale_skips
                .iter()
                .map(|s| s.capture.clone())
                .collect(),
            counts_moved: verdict.counts_moved.clone(),
            holds: verdict.holds(),
        }
    }

    /// The JSON report.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The terminal report.
    pub fn to_terminal(&self) -> String {
        let mut out = String::new();
        for c in &self.captures {
            match &c.outcome {
                Outcome::Same => {
                    let _ = writeln!(out, "same     {} (agy {})", c.id, c.agy_version);
                }
                Outcome::Skipped { reason, accepted } => {
                    let mark = if accepted.is_some() { "" } else { " [NEW]" };
                    let _ = writeln!(
                        out,
                        "skipped  {} (agy {}): {reason}{mark}",
                        c.id, c.agy_version
                    );
                }
                Outcome::Different { differences } => {
                    let _ = writeln!(
                        out,
                        "differs  {} (agy {}): {} difference(s)",
                        c.id,
                        c.agy_version,
                        differences.len()
                    );
                    for d in differences {
                        let mark = if d.accepted.is_some() {
                            "accepted"
                        } else {
                            "NEW"
                        };
                        let _ = writeln!(out, "    {} [{mark}]", d.difference.what);
                        let _ = writeln!(out, "      expected: {}", d.difference.expected);
                        let _ = writeln!(out, "      observed: {}", d.difference.observed);
                    }
                }
            }
        }
        let _ = writeln!(out, "\nfidelity score");
        write_terminal_rows(&mut out, self.score_rows());
        let _ = writeln!(out, "{}", self.summary());
        if self.first_sight.overall.compared > 0 {
            let _ = writeln!(
                out,
                "\nfirst-sight score (recorded when each capture was added)"
            );
            write_terminal_rows(&mut out, self.first_sight_rows());
        }
        out.push_str(&self.baseline_text());
        out
    }

    /// Each version's first-sight score, then the overall one.
    fn first_sight_rows(&self) -> impl Iterator<Item = (String, &Score)> {
        rows(&self.first_sight.by_version, &self.first_sight.overall)
    }

    /// The skipped count and the score without captures that rest on the publisher's
    /// trimming or on stated model decisions.
    fn summary(&self) -> String {
        format!(
            "  skipped      {}
  without elided / host.model  {}/{} ({:.0}%)",
            self.skipped,
            self.unaided.same,
            self.unaided.compared,
            self.unaided.score * 100.0
        )
    }

    /// Each version's score, then the overall one.
    fn score_rows(&self) -> impl Iterator<Item = (String, &Score)> {
        rows(&self.by_version, &self.overall)
    }

    fn baseline_text(&self) -> String {
        let mut out = String::new();
        if self.holds {
            let _ = writeln!(out, "baseline holds");
            return out;
        }
        for n in &self.new_divergences {
            let _ = writeln!(out, "new divergence (not in the baseline): {n}");
        }
        for g in &self.gone_divergences {
            let _ = writeln!(
                out,
                "listed divergence no longer seen (update the baseline): {g}"
            );
        }
        for s in &self.unexplained_skips {
            let _ = writeln!(out, "skipped without a baseline entry: {s}");
        }
        for s in &self.stale_skips {
            let _ = writeln!(out, "listed skip now compared (update the baseline): {s}");
        }
        if let Some(m) = &self.counts_moved {
            let _ = writeln!(
                out,
                "counts moved (rewrite the baseline with a reason): {m}"
            );
        }
        out
    }

    /// The Markdown report.
    pub fn to_markdown(&self) -> String {
        let mut out = String::from("# fake-agy fidelity\n\n");
        let _ = writeln!(out, "Corpus: `{}`\n", self.corpus);
        out.push_str("| agy version | same | compared | score |\n|---|---|---|---|\n");
        write_markdown_rows(&mut out, self.score_rows());
        let _ = writeln!(out, "\n```\n{}\n```", self.summary());
        out.push('\n');
        if self.first_sight.overall.compared > 0 {
            out.push_str("First sight (recorded when each capture was added):\n\n| agy version | same | compared | score |\n|---|---|---|---|\n");
            write_markdown_rows(&mut out, self.first_sight_rows());
            out.push('\n');
        }
        for c in &self.captures {
            let _ = writeln!(out, "## `{}` (agy {}, {})\n", c.id, c.agy_version, c.kind);
            match &c.outcome {
                Outcome::Same => out.push_str("same\n\n"),
                Outcome::Skipped { reason, .. } => {
                    let _ = writeln!(out, "not compared: {reason}\n");
                }
                Outcome::Different { differences } => {
                    out.push_str("| what | expected (capture) | observed (fake-agy) | baseline |\n|---|---|---|---|\n");
                    for d in differences {
                        let _ = writeln!(
                            out,
                            "| `{}` | {} | {} | {} |",
                            d.difference.what,
                            cell(&d.difference.expected),
                            cell(&d.difference.observed),
                            d.accepted
                                .as_deref()
                                .map(cell)
                                .unwrap_or_else(|| "**new**".into())
                        );
                    }
                    out.push('\n');
                }
            }
        }
        out.push_str(&self.baseline_text());
        out
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Each version's score, then the overall one, labelled for a report.
fn rows<'a>(
    by_version: &'a [(String, Score)],
    overall: &'a Score,
) -> impl Iterator<Item = (String, &'a Score)> {
    by_version
        .iter()
        .map(|(v, s)| (format!("agy {v}"), s))
        .chain(std::iter::once(("overall".to_string(), overall)))
}

/// Score rows as the terminal shows them.
fn write_terminal_rows<'a>(out: &mut String, rows: impl Iterator<Item = (String, &'a Score)>) {
    for (name, sc) in rows {
        let _ = writeln!(
            out,
            "  {name:<12} {}/{} ({:.0}%)",
            sc.same,
            sc.compared,
            sc.score * 100.0
        );
    }
}

/// Score rows of a Markdown table (`| agy version | same | compared | score |`).
fn write_markdown_rows<'a>(out: &mut String, rows: impl Iterator<Item = (String, &'a Score)>) {
    for (name, sc) in rows {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {:.0}% |",
            sc.same,
            sc.compared,
            sc.score * 100.0
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(id: &str, version: &str, outcome: Outcome) -> CaptureResult {
        CaptureResult {
            id: id.into(),
            agy_version: version.into(),
            kind: "persistent".into(),
            rests_on: Vec::new(),
            outcome,
        }
    }

    #[test]
    fn scores_count_compared_captures_per_version() {
        let diff = ReportedDifference {
            difference: Difference {
                what: "exit".into(),
                expected: "1".into(),
                observed: "0".into(),
            },
            accepted: None,
        };
        let r = FidelityReport::new(
            "traces".into(),
            vec![
                result("a", "1.2.17", Outcome::Same),
                result(
                    "b",
                    "1.2.17",
                    Outcome::Different {
                        differences: vec![diff],
                    },
                ),
                result(
                    "c",
                    "unknown",
                    Outcome::Skipped {
                        reason: "argv unknown".into(),
                        accepted: None,
                    },
                ),
                result("d", "1.2.7", Outcome::Same),
            ],
            &BaselineVerdict::default(),
        );
        assert_eq!((r.overall.same, r.overall.compared), (2, 3));
        let versions: Vec<&str> = r.by_version.iter().map(|(v, _)| v.as_str()).collect();
        assert_eq!(versions, vec!["1.2.7", "1.2.17"]);
        assert_eq!(r.by_version[1].1.score, 0.5);
        assert!(
            r.to_terminal().contains("  overall      2/3 (67%)"),
            "{}",
            r.to_terminal()
        );
        assert!(r.to_markdown().contains("| overall | 2 | 3 | 67% |"));
        assert!(r.to_markdown().contains("| `exit` | 1 | 0 | **new** |"));
        let json: serde_json::Value = serde_json::from_str(&r.to_json()).expect("json");
        assert_eq!(json["captures"][1]["verdict"], "different");
        assert_eq!(json["captures"][1]["differences"][0]["what"], "exit");
    }
}
