//! The drift table: each learned field beside the nearest built-in calibration's value,
//! with the recording that shows it, as Markdown a user can paste into an issue.

use crate::learn::Learned;

/// One row: a learned field that differs from the built-in, or agrees with it.
#[derive(Debug, Clone, PartialEq)]
pub struct DriftRow {
    /// `section.field`.
    pub field: String,
    /// The built-in's value (`(none)` when the built-in has no such field).
    pub builtin: String,
    /// The learned value.
    pub learned: String,
    /// The recording that shows it.
    pub evidence: String,
    /// True when the values differ.
    pub drifted: bool,
}

/// The longest value shown in a cell; longer ones are cut with their length.
const CELL_CHARS: usize = 80;

/// A row per learned field but the version, drifted ones first, each group in field
/// order.
pub fn drift_rows(learned: &Learned, builtin: &toml::Table) -> Vec<DriftRow> {
    // The version is the heading's: a built-in stands for a range and names its first.
    let mut rows: Vec<DriftRow> = learned
        .fields
        .iter()
        .filter(|(field, _)| field.as_str() != "calibration.agy")
        .map(|(field, f)| {
            let base = field
                .split_once('.')
                .and_then(|(s, k)| builtin.get(s)?.get(k));
            DriftRow {
                field: field.clone(),
                builtin: base.map_or("(none)".into(), cell),
                learned: cell(&f.value),
                evidence: f.evidence.clone(),
                drifted: base != Some(&f.value),
            }
        })
        .collect();
    rows.sort_by_key(|r| !r.drifted);
    rows
}

fn cell(v: &toml::Value) -> String {
    let text = v.to_string();
    let shown: String = text.chars().take(CELL_CHARS).collect();
    let shown = if shown.len() < text.len() {
        format!("{shown}… ({} chars)", text.chars().count())
    } else {
        shown
    };
    shown.replace('|', "\\|").replace('\n', " ")
}

/// The table as Markdown, headed with the versions compared.
pub fn drift_table(rows: &[DriftRow], learned_version: &str, builtin: &str) -> String {
    let drifted = rows.iter().filter(|r| r.drifted).count();
    let mut out = format!(
        "### agy {learned_version} against {builtin}: {drifted} of {} learned field(s) drifted\n\n",
        rows.len()
    );
    out.push_str("| field | built-in | learned | evidence |\n|---|---|---|---|\n");
    for r in rows {
        let mark = if r.drifted { " **drifted**" } else { "" };
        out.push_str(&format!(
            "| `{}`{mark} | `{}` | `{}` | {} |\n",
            r.field, r.builtin, r.learned, r.evidence
        ));
    }
    out
}
