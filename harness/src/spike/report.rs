//! The spike report: terminal, JSON and Markdown renderings.

use super::judge::{FactReport, Verdict};
use serde::Serialize;
use std::fmt::Write;

/// Everything a spikes run found.
#[derive(Debug, Clone, Serialize)]
pub struct SpikeReport {
    /// The binary probed.
    pub target: String,
    /// True for a live agy.
    pub live: bool,
    /// What `--version` said.
    pub agy_version: Option<String>,
    /// The recorded version facts were judged against.
    pub baseline: String,
    /// Date of the run (UTC).
    pub date: String,
    /// Counts.
    pub summary: Summary,
    /// Every fact.
    pub facts: Vec<FactReport>,
    /// Quirks the run showed gone, with what can be retired.
    pub quirks_gone: Vec<String>,
    /// Live invocations used, when a budget applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invocations_used: Option<u32>,
    /// Set when posting the report to `--notify` failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notify_error: Option<String>,
}

/// Verdict counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Facts that hold.
    pub holds: usize,
    /// Facts that drifted.
    pub drifted: usize,
    /// Facts that could not be checked.
    pub unverified: usize,
}

impl SpikeReport {
    /// Builds a report from judged facts.
    pub fn new(
        target: String,
        live: bool,
        agy_version: Option<String>,
        baseline: String,
        facts: Vec<FactReport>,
    ) -> SpikeReport {
        let count = |v| facts.iter().filter(|f| f.verdict == v).count();
        let summary = Summary {
            holds: count(Verdict::Holds),
            drifted: count(Verdict::Drifted),
            unverified: count(Verdict::Unverified),
        };
        let quirks_gone = facts
            .iter()
            .filter_map(|f| {
                Some(format!(
                    "{} ({}): {}",
                    f.quirk.as_ref()?,
                    f.fact,
                    f.quirk_gone.as_ref()?
                ))
            })
            .collect();
        SpikeReport {
            target,
            live,
            agy_version,
            baseline,
            date: time::OffsetDateTime::now_utc().date().to_string(),
            summary,
            facts,
            quirks_gone,
            invocations_used: None,
            notify_error: None,
        }
    }

    /// The ids of drifted facts.
    pub fn drifted(&self) -> Vec<&str> {
        self.facts
            .iter()
            .filter(|f| f.verdict == Verdict::Drifted)
            .map(|f| f.fact.as_str())
            .collect()
    }

    /// JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// JSON with every string redacted before it is serialised, so a secret is found in
    /// its plain form rather than after escaping (`\u0040`, `\/`) hid it.
    pub fn to_redacted_json(&self, redactor: &agy_protocol::redact::Redactor) -> String {
        let value = serde_json::to_value(self).unwrap_or_default();
        serde_json::to_string_pretty(&redactor.redact_json(&value)).unwrap_or_default()
    }

    /// Text for a terminal; `color` adds ANSI colours.
    pub fn to_terminal(&self, color: bool) -> String {
        let paint = |code: &str, s: &str| paint(color, code, s);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "spikes against {} ({}), agy {} — judged against the record of agy {}",
            self.target,
            if self.live { "live" } else { "fake" },
            self.agy_version.as_deref().unwrap_or("unknown"),
            self.baseline
        );
        let mut spike = "";
        for f in &self.facts {
            if f.spike != spike {
                spike = &f.spike;
                let _ = writeln!(out, "\n{spike}");
            }
            let (mark, code) = match f.verdict {
                Verdict::Holds => ("✓", "32"),
                Verdict::Drifted => ("✗", "31"),
                Verdict::Unverified => ("?", "33"),
            };
            let quirk = f
                .quirk
                .as_ref()
                .map(|q| format!(" [quirk: {q}]"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {} {} — {}{quirk}",
                paint(code, mark),
                f.fact,
                f.claim
            );
            match f.verdict {
                Verdict::Holds => {}
                Verdict::Unverified => {
                    let _ = writeln!(
                        out,
                        "      unverified: {}",
                        f.reason.as_deref().unwrap_or("")
                    );
                }
                Verdict::Drifted => write_drift(&mut out, f, color),
            }
        }
        let s = self.summary;
        let _ = writeln!(
            out,
            "\n{} holds, {} drifted, {} unverified",
            s.holds, s.drifted, s.unverified
        );
        for q in &self.quirks_gone {
            let _ = writeln!(out, "quirk gone: {q}");
        }
        if let Some(n) = self.invocations_used {
            let _ = writeln!(out, "live agy invocations used: {n}");
        }
        if let Some(e) = &self.notify_error {
            let _ = writeln!(out, "notify failed: {e}");
        }
        out
    }

    /// Markdown fit to paste into an issue or a pull request.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let s = self.summary;
        let _ = writeln!(out, "## agy spike report — {}\n", self.date);
        let _ = writeln!(
            out,
            "Target: `{}` ({}), agy **{}**, judged against the record of agy {}.\n",
            self.target,
            if self.live { "live" } else { "fake-agy" },
            self.agy_version.as_deref().unwrap_or("unknown"),
            self.baseline
        );
        let _ = writeln!(
            out,
            "**{} holds · {} drifted · {} unverified**\n",
            s.holds, s.drifted, s.unverified
        );
        if !self.quirks_gone.is_empty() {
            let _ = writeln!(out, "### Quirks gone\n");
            for q in &self.quirks_gone {
                let _ = writeln!(out, "- {q}");
            }
            let _ = writeln!(out);
        }
        let _ = writeln!(out, "| fact | verdict | claim | runs |\n|---|---|---|---|");
        for f in &self.facts {
            let v = match f.verdict {
                Verdict::Holds => "✅ holds",
                Verdict::Drifted => "❌ drifted",
                Verdict::Unverified => "❔ unverified",
            };
            let runs = if f.judged > 0 {
                format!("{}/{}", f.passed, f.judged)
            } else {
                "—".into()
            };
            let _ = writeln!(
                out,
                "| `{}` | {v} | {} | {runs} |",
                f.fact,
                f.claim.replace('|', "\\|")
            );
        }
        markdown_drift(&mut out, &self.facts);
        let unverified: Vec<&FactReport> = self
            .facts
            .iter()
            .filter(|f| f.verdict == Verdict::Unverified)
            .collect();
        if !unverified.is_empty() {
            let _ = writeln!(out, "\n### Unverified\n");
            for f in unverified {
                let _ = writeln!(out, "- `{}`: {}", f.fact, f.reason.as_deref().unwrap_or(""));
            }
        }
        out
    }
}

/// The drift evidence of a Markdown report: one folded section per drifted fact.
fn markdown_drift(out: &mut String, facts: &[FactReport]) {
    let drifted: Vec<&FactReport> = facts
        .iter()
        .filter(|f| f.verdict == Verdict::Drifted)
        .collect();
    if !drifted.is_empty() {
        let _ = writeln!(out, "\n### Drift evidence\n");
        for f in drifted {
            let _ = writeln!(
                out,
                "<details><summary><code>{}</code> — {}</summary>\n",
                f.fact, f.claim
            );
            let _ = writeln!(
                out,
                "- measure: `{}`\n- expected: {}",
                f.measure, f.expected
            );
            if let Some(rec) = &f.recorded {
                let _ = writeln!(
                    out,
                    "- recorded: agy {} on {} ({})",
                    rec.agy, rec.date, rec.source
                );
            }
            for r in &f.observed {
                let _ = writeln!(
                    out,
                    "- run {}: `{}`{}",
                    r.run,
                    r.shown,
                    if r.pass { " (ok)" } else { "" }
                );
            }
            let _ = writeln!(out, "\n</details>\n");
        }
    }
}

/// `s` in ANSI colour `code` when `color`.
fn paint(color: bool, code: &str, s: &str) -> String {
    if color {
        format!("\x1b[{code}m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

/// A drifted fact's lines: the measure, what was expected and seen, the record.
fn write_drift(out: &mut String, f: &FactReport, color: bool) {
    let _ = writeln!(out, "      {}", f.measure);
    let _ = writeln!(out, "      expected: {}", f.expected);
    for r in &f.observed {
        let mark = if r.pass { "ok " } else { "got" };
        let _ = writeln!(out, "      {mark} run {}: {}", r.run, r.shown);
    }
    if let Some(rec) = &f.recorded {
        let _ = writeln!(
            out,
            "      recorded: agy {} on {} ({})",
            rec.agy, rec.date, rec.source
        );
    }
    if let Some(gone) = &f.quirk_gone {
        let _ = writeln!(
            out,
            "      {}",
            paint(color, "1", &format!("quirk gone: {gone}"))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::redact::Redactor;

    #[test]
    fn values_are_redacted_before_json_escapes_them() {
        // Regression: redacting the serialised report missed `\u0040` and `\/` forms
        // that escaping had doubled (`\\u0040`), which traces redact.
        let target = r"agy for alice.liddell\u0040example.com at https:\/\/x?token=opaque-42";
        let report = SpikeReport::new(target.into(), true, None, "1.2.6".into(), Vec::new());
        let redactor = Redactor::default();
        // The serialised report is clean too now: the redactor decodes the doubled
        // escapes before it matches.
        assert!(!redactor.redact(&report.to_json()).contains("alice.liddell"));
        let json = report.to_redacted_json(&redactor);
        assert!(
            !json.contains("alice.liddell") && !json.contains("opaque-42"),
            "{json}"
        );
    }
}
