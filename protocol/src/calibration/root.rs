//! The sections of a calibration, each read on its own with every problem located.

use super::evidence::{gaps, EvidenceGap};
use super::model::Calibration;
use super::section::{Section, EVIDENCE_KEYS, SECTIONS};
use super::validate::Check;
use crate::diag::{closest, Diagnostic, Diagnostics, SourceFile, TableWalker};
use serde::de::DeserializeOwned;
use toml::de::{DeTable, DeValue, ValueDeserializer};
use toml::Spanned;

/// Every section of `root` but `unrecorded`; `None` when one is missing or wrong.
pub(super) fn parse_root(
    src: &SourceFile,
    root: &DeTable<'_>,
    at: usize,
    diags: &mut Diagnostics,
) -> Option<Calibration> {
    let mut w = TableWalker::new(src, root, at, "the calibration");
    let _ = w.raw("unrecorded");
    let calibration = section(src, &mut w, diags);
    let models = section(src, &mut w, diags);
    let init = section(src, &mut w, diags);
    let errors = section(src, &mut w, diags);
    let turns = section(src, &mut w, diags);
    let denial = section(src, &mut w, diags);
    let print_timeout = section(src, &mut w, diags);
    let usage = section(src, &mut w, diags);
    let files = section(src, &mut w, diags);
    let signed_out = section(src, &mut w, diags);
    let persistent = section(src, &mut w, diags);
    let prompt = section(src, &mut w, diags);
    let conversation = section(src, &mut w, diags);
    let image = section(src, &mut w, diags);
    let known: Vec<&str> = SECTIONS.iter().copied().chain(["unrecorded"]).collect();
    w.finish(&known, diags);
    Some(Calibration {
        calibration: calibration?,
        models: models?,
        init: init?,
        errors: errors?,
        turns: turns?,
        denial: denial?,
        print_timeout: print_timeout?,
        usage: usage?,
        files: files?,
        signed_out: signed_out?,
        persistent: persistent?,
        prompt: prompt?,
        conversation: conversation?,
        image: image?,
        unrecorded: Vec::new(),
    })
}

/// One `[section]`: unknown keys, missing fields, each bad value, evidence gaps and
/// value problems, all reported.
fn section<T: Section + Check + DeserializeOwned>(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    diags: &mut Diagnostics,
) -> Option<T> {
    let name = T::NAME;
    let Some(value) = w.raw(name) else {
        diags.push(
            Diagnostic::at(
                src,
                w.span_start(),
                format!("missing `[{name}]` in the calibration"),
            )
            .with_hint(format!(
                "add a `[{name}]` table (docs/calibration-format.md)"
            )),
        );
        return None;
    };
    let walker = TableWalker::from_value(src, value, format!("`[{name}]`"), diags)?;
    let DeValue::Table(table) = value.get_ref() else {
        return None;
    };
    let known: Vec<&str> = T::REQUIRED
        .iter()
        .chain(T::OPTIONAL)
        .chain(EVIDENCE_KEYS)
        .copied()
        .collect();
    let mut work = table.clone();
    let unknown: Vec<String> = table
        .iter()
        .map(|(k, _)| k.get_ref().to_string())
        .filter(|k| !known.contains(&k.as_str()))
        .collect();
    for k in &unknown {
        work.remove(k.as_str());
    }
    let mut walker = walker;
    for k in &known {
        let _ = walker.raw(k);
    }
    walker.finish(&known, diags);
    let mut complete = true;
    for field in T::REQUIRED {
        if table.get(*field).is_none() {
            complete = false;
            diags.push(
                Diagnostic::at(
                    src,
                    value.span().start,
                    format!("missing `{field}` in `[{name}]`"),
                )
                .with_hint(format!("`[{name}]` gives {}", list(T::REQUIRED))),
            );
        }
    }
    let parsed: T = deserialize_all(src, value.span(), work, name, diags)?;
    report_gaps(src, value, table, &parsed, diags);
    for p in parsed.problems() {
        let at = field_offset(table, p.field, p.index).unwrap_or(value.span().start);
        diags.push(
            Diagnostic::at(src, at, format!("{} in `[{name}]`", p.message)).with_hint(p.hint),
        );
    }
    complete.then_some(parsed)
}

/// Deserializes `work`; on a bad value reports it, drops its key and tries again, so
/// every bad value of the table is reported. `None` when any was bad or a field is
/// missing.
fn deserialize_all<T: DeserializeOwned>(
    src: &SourceFile,
    span: std::ops::Range<usize>,
    mut work: DeTable<'_>,
    name: &str,
    diags: &mut Diagnostics,
) -> Option<T> {
    let mut clean = true;
    for _ in 0..=work.len() {
        let value = Spanned::new(span.clone(), DeValue::Table(work.clone()));
        let err = match T::deserialize(ValueDeserializer::from(value)) {
            Ok(t) => return clean.then_some(t),
            Err(e) => e,
        };
        let message = err
            .message()
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        if message.starts_with("missing field") {
            return None;
        }
        clean = false;
        let offset = err.span().map_or(span.start, |s| s.start);
        let hint = crate::diag::hint_for_serde_message(&message)
            .unwrap_or_else(|| "see docs/calibration-format.md for the values it takes".into());
        diags.push(Diagnostic::at(src, offset, format!("{message} in `[{name}]`")).with_hint(hint));
        let key = work
            .iter()
            .find(|(k, v)| v.span().contains(&offset) || k.span().contains(&offset))
            .map(|(k, _)| k.get_ref().to_string());
        work.remove(key?.as_str());
    }
    None
}

fn report_gaps<T: Section>(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    table: &DeTable<'_>,
    parsed: &T,
    diags: &mut Diagnostics,
) {
    let name = T::NAME;
    let fields: Vec<&str> = T::REQUIRED.iter().chain(T::OPTIONAL).copied().collect();
    let (sources, unverified) = parsed.evidence();
    for gap in gaps(&fields, sources, unverified) {
        let d = match gap {
            EvidenceGap::Uncovered(f) => Diagnostic::at(
                src,
                field_offset(table, &f, None).unwrap_or(value.span().start),
                format!("`{f}` of `[{name}]` has no evidence"),
            )
            .with_hint("name its captures in `evidence` (traces/corpus.toml ids, or a source in docs/agy-versions.md), or add it to `unverified`"),
            EvidenceGap::NotAField { key, name: n } => {
                let at = field_offset(table, key, None).unwrap_or(value.span().start);
                let hint = match closest(&n, fields.iter().copied()) {
                    Some(best) => format!("did you mean `{best}`? `[{name}]` has {}", list(&fields)),
                    None => format!("`[{name}]` has {}", list(&fields)),
                };
                Diagnostic::at(src, at, format!("`{key}` names `{n}`, not a field of `[{name}]`")).with_hint(hint)
            }
            EvidenceGap::Blank(f) => Diagnostic::at(
                src,
                field_offset(table, "evidence", None).unwrap_or(value.span().start),
                format!("the evidence of `{f}` in `[{name}]` is blank"),
            )
            .with_hint("name its captures, or mark it `unverified`"),
        };
        diags.push(d);
    }
}

/// Where `field` (its `index`th element) is in `table`.
fn field_offset(table: &DeTable<'_>, field: &str, index: Option<usize>) -> Option<usize> {
    let value = table.get(field)?;
    match (value.get_ref(), index) {
        (DeValue::Array(items), Some(i)) => items.get(i).map(|v| v.span().start),
        _ => Some(value.span().start),
    }
}

fn list(items: &[&str]) -> String {
    items
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
