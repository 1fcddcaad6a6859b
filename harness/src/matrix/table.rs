//! The adapter × version table: one row per scenario, one cell per agy version, and its
//! terminal, JSON and Markdown renderings.

use crate::report::{RunReport, ScenarioResult, Status};
use agy_protocol::version_evidence::UncertainSide;
use agy_protocol::AgyVersion;
use serde::Serialize;
use std::collections::BTreeMap;

/// One scenario under one version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cell {
    /// Every expectation held.
    Pass,
    /// An expectation broke, or the scenario errored or timed out.
    Fail,
    /// Failed as the adapter config expects.
    Xfail,
    /// Not run: the adapter lacks the profile, or the run was interrupted.
    Skip,
    /// The scenario does not apply to this version (its `versions` key), or to the
    /// adapter (a premise it does not offer).
    NotApplicable,
    /// The adapter config does not support this version (`agy_versions`): not run.
    Unsupported,
}

impl Cell {
    /// The word in tables.
    pub fn word(self) -> &'static str {
        match self {
            Cell::Pass => "pass",
            Cell::Fail => "fail",
            Cell::Xfail => "xfail",
            Cell::Skip => "skip",
            Cell::NotApplicable => "—",
            Cell::Unsupported => "unsupported",
        }
    }

    /// The cell a scenario's run status comes to.
    pub fn from_status(s: Status) -> Cell {
        match s {
            Status::Passed => Cell::Pass,
            Status::ExpectedFailure => Cell::Xfail,
            Status::Skipped | Status::Interrupted => Cell::Skip,
            Status::NotApplicable => Cell::NotApplicable,
            Status::Failed | Status::UnexpectedPass | Status::Error | Status::TimedOut => {
                Cell::Fail
            }
        }
    }
}

/// One scenario's row.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Scenario name.
    pub scenario: String,
    /// Profile.
    pub profile: String,
    /// Cells in the order of [`Matrix::versions`].
    pub cells: Vec<Cell>,
    /// The first broken expectation per failing version, with what was expected and
    /// observed; versions in version order (1.1.9 before 1.1.27).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub failures: BTreeMap<AgyVersion, String>,
}

/// The whole table.
#[derive(Debug, Clone, Serialize)]
pub struct Matrix {
    /// The adapter's name.
    pub adapter: String,
    /// Column order.
    pub versions: Vec<AgyVersion>,
    /// Rows in catalogue order.
    pub rows: Vec<Row>,
    /// Per version: the behaviours the record leaves uncertain there whose sides were
    /// both run (`matrix --uncertain both`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub uncertain: BTreeMap<AgyVersion, Vec<String>>,
}

impl Matrix {
    /// An empty table for `versions`.
    pub fn new(adapter: String, versions: Vec<AgyVersion>) -> Matrix {
        Matrix {
            adapter,
            versions,
            rows: Vec::new(),
            uncertain: BTreeMap::new(),
        }
    }

    /// Adds a scenario row (every cell not applicable until filled).
    pub fn add_row(&mut self, scenario: &str, profile: &str) {
        self.rows.push(Row {
            scenario: scenario.to_string(),
            profile: profile.to_string(),
            cells: vec![Cell::NotApplicable; self.versions.len()],
            failures: BTreeMap::new(),
        });
    }

    /// Fills column `col` from one version's run.
    pub fn fill(&mut self, col: usize, report: &RunReport) {
        self.fill_side(col, report, None);
    }

    /// Fills column `col` from one version's run under `side` of its uncertain
    /// behaviours (`None`: the version model's side, which sets each cell). A run under
    /// a named side only makes a cell worse: a failure there fails the cell, and its
    /// reason names the side.
    pub fn fill_side(&mut self, col: usize, report: &RunReport, side: Option<UncertainSide>) {
        let version = self.versions.get(col).copied();
        for r in &report.results {
            let Some(row) = self.rows.iter_mut().find(|row| row.scenario == r.name) else {
                continue;
            };
            let cell = Cell::from_status(r.status);
            if let Some(c) = row.cells.get_mut(col) {
                if side.is_none() || cell == Cell::Fail {
                    *c = cell;
                }
            }
            if let (Cell::Fail, Some(v)) = (cell, version) {
                let why = match side {
                    None => failure_reason(r),
                    Some(s) => format!(
                        "with FAKE_AGY_UNCERTAIN={}: {}",
                        s.as_str(),
                        failure_reason(r)
                    ),
                };
                row.failures
                    .entry(v)
                    .and_modify(|w| *w = format!("{w}; {why}"))
                    .or_insert(why);
            }
        }
        for name in &report.not_run {
            if let Some(c) = self
                .rows
                .iter_mut()
                .find(|row| &row.scenario == name)
                .and_then(|row| row.cells.get_mut(col))
            {
                *c = Cell::Skip;
            }
        }
    }

    /// Marks every applicable cell of column `col` unsupported: the adapter does not
    /// support that version, so nothing of it ran.
    pub fn mark_unsupported(&mut self, col: usize, applicable: &[String]) {
        for row in self
            .rows
            .iter_mut()
            .filter(|r| applicable.contains(&r.scenario))
        {
            if let Some(c) = row.cells.get_mut(col) {
                *c = Cell::Unsupported;
            }
        }
    }

    /// How many cells of column `col` are `cell`.
    pub fn count(&self, col: usize, cell: Cell) -> usize {
        self.rows
            .iter()
            .filter(|r| r.cells.get(col) == Some(&cell))
            .count()
    }

    /// True when some cell failed.
    pub fn any_failed(&self) -> bool {
        self.rows.iter().any(|r| r.cells.contains(&Cell::Fail))
    }

    /// The table as aligned text: a header, one line per scenario, a totals line.
    pub fn to_text(&self) -> String {
        let name_w = self
            .rows
            .iter()
            .map(|r| r.scenario.chars().count())
            .chain(["scenario".len()])
            .max()
            .unwrap_or(8);
        let cols: Vec<String> = self.versions.iter().map(|v| v.to_string()).collect();
        let col_w: Vec<usize> = cols.iter().map(|c| c.len().max(5)).collect();
        let mut out = format!("{:name_w$}", "scenario");
        for (c, w) in cols.iter().zip(&col_w) {
            out.push_str(&format!("  {c:>w$}"));
        }
        out.push('\n');
        for r in &self.rows {
            out.push_str(&pad(&r.scenario, name_w));
            for (cell, w) in r.cells.iter().zip(&col_w) {
                out.push_str(&format!("  {:>w$}", cell.word()));
            }
            out.push('\n');
        }
        out.push_str(&pad("passed / applicable", name_w));
        for (i, w) in col_w.iter().enumerate() {
            let text = format!("{}/{}", self.count(i, Cell::Pass), self.applicable(i));
            out.push_str(&format!("  {text:>w$}"));
        }
        out.push('\n');
        for (v, behaviours) in &self.uncertain {
            out.push_str(&format!(
                "agy {v}: run on both sides of {} uncertain behaviour(s): {}\n",
                behaviours.len(),
                behaviours.join(", ")
            ));
        }
        out
    }

    /// The table in Markdown, with the failing cells' reasons below it.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("# {} × agy version\n\n| scenario |", self.adapter);
        for v in &self.versions {
            out.push_str(&format!(" {v} |"));
        }
        out.push_str("\n|---|");
        out.push_str(&"---|".repeat(self.versions.len()));
        out.push('\n');
        for r in &self.rows {
            out.push_str(&format!("| `{}` |", r.scenario));
            for c in &r.cells {
                out.push_str(&format!(" {} |", c.word()));
            }
            out.push('\n');
        }
        out.push_str("| passed / applicable |");
        for i in 0..self.versions.len() {
            out.push_str(&format!(
                " {}/{} |",
                self.count(i, Cell::Pass),
                self.applicable(i)
            ));
        }
        out.push('\n');
        if !self.uncertain.is_empty() {
            out.push_str("\n## Uncertain behaviours run on both sides\n\n");
            for (v, behaviours) in &self.uncertain {
                out.push_str(&format!("- agy {v}: {}\n", behaviours.join(", ")));
            }
        }
        let failing: Vec<&Row> = self
            .rows
            .iter()
            .filter(|r| !r.failures.is_empty())
            .collect();
        if !failing.is_empty() {
            out.push_str("\n## Failures\n\n");
            for r in failing {
                for (v, why) in &r.failures {
                    out.push_str(&format!("- `{}` under {v}: {why}\n", r.scenario));
                }
            }
        }
        out
    }

    /// The table as pretty JSON.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self)
    }

    /// The cells of column `col` that ran to a verdict: not the ones whose scenario
    /// does not apply to the version, nor the ones skipped or never run.
    pub(super) fn applicable(&self, col: usize) -> usize {
        self.rows
            .iter()
            .filter(|r| {
                r.cells
                    .get(col)
                    .is_some_and(|c| matches!(c, Cell::Pass | Cell::Fail | Cell::Xfail))
            })
            .count()
    }
}

/// Why a failed scenario failed: its first broken expectation with what was expected
/// and observed, else its note, else its status.
fn failure_reason(r: &ScenarioResult) -> String {
    r.failures
        .first()
        .map(|f| {
            format!(
                "{} (expected {}, observed {})",
                f.headline(),
                f.expected,
                f.observed
            )
        })
        .or_else(|| r.note.clone())
        .unwrap_or_else(|| r.status.word().to_string())
}

fn pad(s: &str, w: usize) -> String {
    let n = s.chars().count();
    format!("{s}{}", " ".repeat(w.saturating_sub(n)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ScenarioResult;

    fn result(name: &str, status: Status) -> ScenarioResult {
        ScenarioResult {
            note: Some("driver exited".into()),
            ..ScenarioResult::bare(name, "", "oneshot", status)
        }
    }

    fn report(results: Vec<ScenarioResult>) -> RunReport {
        RunReport {
            adapter: "a".into(),
            started: String::new(),
            duration_ms: 0,
            time_scale: 1.0,
            complete: true,
            results,
            not_run: vec![],
        }
    }

    #[test]
    fn cells_come_from_each_versions_run_and_totals_count_applicable_ones() {
        let v = |s: &str| s.parse::<AgyVersion>().expect("version");
        let mut m = Matrix::new("ref".into(), vec![v("1.2.6"), v("1.3.1")]);
        m.add_row("oneshot/a", "oneshot");
        m.add_row("oneshot/b", "oneshot");
        m.fill(
            0,
            &report(vec![
                result("oneshot/a", Status::Passed),
                result("oneshot/b", Status::Failed),
            ]),
        );
        m.fill(
            1,
            &report(vec![result("oneshot/a", Status::ExpectedFailure)]),
        );
        assert_eq!(m.rows[0].cells, vec![Cell::Pass, Cell::Xfail]);
        assert_eq!(m.rows[1].cells, vec![Cell::Fail, Cell::NotApplicable]);
        assert_eq!(
            m.rows[1].failures.get(&v("1.2.6")).map(String::as_str),
            Some("driver exited")
        );
        assert!(m.any_failed());
        let mut order = Matrix::new("ref".into(), vec![v("1.1.27"), v("1.1.9")]);
        order.add_row("oneshot/x", "oneshot");
        order.fill(0, &report(vec![result("oneshot/x", Status::Failed)]));
        order.fill(1, &report(vec![result("oneshot/x", Status::Failed)]));
        let md = order.to_markdown();
        let (early, late) = (
            md.find("under 1.1.9").expect("1.1.9"),
            md.find("under 1.1.27").expect("1.1.27"),
        );
        assert!(early < late, "{md}");
        let mut unsupported = Matrix::new("ref".into(), vec![v("1.1.9"), v("1.3.1")]);
        unsupported.add_row("oneshot/u", "oneshot");
        unsupported.add_row("oneshot/only-new", "oneshot");
        unsupported.mark_unsupported(0, &["oneshot/u".to_string()]);
        unsupported.fill(1, &report(vec![result("oneshot/u", Status::Passed)]));
        assert_eq!(
            unsupported.rows[0].cells,
            vec![Cell::Unsupported, Cell::Pass]
        );
        assert_eq!(unsupported.rows[1].cells[0], Cell::NotApplicable);
        assert!(unsupported
            .to_text()
            .lines()
            .last()
            .unwrap_or("")
            .ends_with("0/0    1/1"));
        m.add_row("session/c", "session");
        m.fill(0, &report(vec![result("session/c", Status::Skipped)]));
        let text = m.to_text();
        assert!(
            text.lines().last().unwrap_or("").ends_with("  1/2    0/1"),
            "{text}"
        );
        let md = m.to_markdown();
        assert!(md.contains("| `oneshot/b` | fail | — |"), "{md}");
        assert!(
            md.contains("- `oneshot/b` under 1.2.6: driver exited"),
            "{md}"
        );
    }
}
