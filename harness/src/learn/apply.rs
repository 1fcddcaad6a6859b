//! A learned calibration: the base (the nearest built-in calibration) with every learned
//! field replaced and its evidence set to the recording that shows it; every field left
//! as the base has it is listed as inherited.

use super::observe::Learned;
use toml::{Table, Value};

/// The keys of a section that are not fields.
const EVIDENCE_KEYS: [&str; 2] = ["evidence", "unverified"];

/// What applying the learned fields gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// The calibration, as a TOML table.
    pub table: Table,
    /// `section.field` of every field taken from the base unchanged.
    pub inherited: Vec<String>,
    /// `section.field` of every learned field the base has no such field for.
    pub unplaced: Vec<String>,
}

/// `base` with `learned` applied.
pub fn apply_learned(base: &Table, learned: &Learned) -> Applied {
    let mut table = base.clone();
    // A learned calibration stands for the one version recorded: the base's range and
    // the edges it leaves open between versions are not the recording's.
    table.remove("unrecorded");
    let mut inherited = Vec::new();
    for (name, section) in table.iter_mut() {
        let Value::Table(section) = section else {
            continue;
        };
        let fields: Vec<String> = section
            .keys()
            .filter(|k| !EVIDENCE_KEYS.contains(&k.as_str()))
            .cloned()
            .collect();
        let mut taught = Vec::new();
        for field in fields {
            let key = format!("{name}.{field}");
            match learned.fields.get(&key) {
                Some(l) => {
                    section.insert(field.clone(), l.value.clone());
                    taught.push((field, format!("recording {}", l.evidence)));
                }
                None => inherited.push(key),
            }
        }
        if !taught.is_empty() {
            set_evidence(section, &taught);
        }
    }
    if let Some(Value::Table(id)) = table.get_mut("calibration") {
        if id.remove("covers").is_some() {
            mark_unverified(id, "covers");
            inherited.retain(|k| k != "calibration.covers");
        }
    }
    let unplaced = learned
        .fields
        .keys()
        .filter(|k| !inherited.contains(k) && !is_placed(&table, k))
        .cloned()
        .collect();
    Applied {
        table,
        inherited,
        unplaced,
    }
}

/// Marks `field` of a section unverified (the reader asks it of an optional field left
/// out), dropping its per-field evidence.
fn mark_unverified(section: &mut Table, field: &str) {
    if let Some(Value::Table(e)) = section.get_mut("evidence") {
        e.remove(field);
    }
    match section.get_mut("unverified") {
        Some(Value::Array(list)) => {
            if !list.iter().any(|v| v.as_str() == Some(field)) {
                list.push(Value::String(field.into()));
            }
        }
        Some(Value::Boolean(true)) => {}
        _ => {
            section.insert(
                "unverified".into(),
                Value::Array(vec![Value::String(field.into())]),
            );
        }
    }
}

fn is_placed(table: &Table, key: &str) -> bool {
    let Some((section, field)) = key.split_once('.') else {
        return false;
    };
    table
        .get(section)
        .and_then(Value::as_table)
        .is_some_and(|s| s.contains_key(field))
}

/// Gives each taught field its own evidence: a section-wide source becomes per-field
/// (the base's source kept for the fields it still covers), and a taught field leaves
/// the `unverified` list.
fn set_evidence(section: &mut Table, taught: &[(String, String)]) {
    let fields: Vec<String> = section
        .keys()
        .filter(|k| !EVIDENCE_KEYS.contains(&k.as_str()))
        .cloned()
        .collect();
    let mut per_field = match section.remove("evidence") {
        Some(Value::Table(t)) => t,
        Some(Value::String(all)) => fields
            .iter()
            .map(|f| (f.clone(), Value::String(all.clone())))
            .collect(),
        _ => Table::new(),
    };
    for (field, source) in taught {
        per_field.insert(field.clone(), Value::String(source.clone()));
    }
    section.insert("evidence".into(), Value::Table(per_field));
    match section.remove("unverified") {
        Some(Value::Array(list)) => {
            let left: Vec<Value> = list
                .into_iter()
                .filter(|v| !taught.iter().any(|(f, _)| v.as_str() == Some(f)))
                .collect();
            if !left.is_empty() {
                section.insert("unverified".into(), Value::Array(left));
            }
        }
        Some(Value::Boolean(true)) => {
            let left: Vec<Value> = fields
                .iter()
                .filter(|f| !taught.iter().any(|(t, _)| t == *f))
                .map(|f| Value::String(f.clone()))
                .collect();
            if !left.is_empty() {
                section.insert("unverified".into(), Value::Array(left));
            }
        }
        _ => {}
    }
}
