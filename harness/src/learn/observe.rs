//! Learned fields: what the recordings show, each with the recording that shows it, and
//! where two recordings disagree.

use super::rules::observe_invocation;
use agy_protocol::trace::Trace;
use std::collections::BTreeMap;

/// One field's learned value.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnedField {
    /// The value, as the calibration file spells it.
    pub value: toml::Value,
    /// The recording that shows it: `file.jsonl#N`.
    pub evidence: String,
    /// Recordings that showed another value (`file.jsonl#N: value`).
    pub disagreements: Vec<String>,
}

/// Every field the recordings show, keyed `section.field` (`usage.keys`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Learned {
    /// The learned fields.
    pub fields: BTreeMap<String, LearnedField>,
}

impl Learned {
    /// Records `value` for `field` from `evidence`: the first recording (in the order
    /// given) sets it; a later one that differs is kept as a disagreement.
    pub fn observe(&mut self, field: &str, value: toml::Value, evidence: &str) {
        match self.fields.get_mut(field) {
            None => {
                self.fields.insert(
                    field.to_string(),
                    LearnedField {
                        value,
                        evidence: evidence.to_string(),
                        disagreements: Vec::new(),
                    },
                );
            }
            Some(f) if f.value != value => f.disagreements.push(format!("{evidence}: {value}")),
            Some(_) => {}
        }
    }

    /// The learned value of `field`.
    pub fn get(&self, field: &str) -> Option<&toml::Value> {
        self.fields.get(field).map(|f| &f.value)
    }
}

/// Learns from `traces` (`(file name, trace)`, in the order given): every invocation of
/// every trace through every rule, and the version from the trace headers when no
/// `--version` run shows it.
pub fn learn_from_traces(traces: &[(String, Trace)]) -> Learned {
    let mut learned = Learned::default();
    for (name, trace) in traces {
        for (n, inv) in trace.invocations.iter().enumerate() {
            let origin = format!("{name}#{}", n + 1);
            for (field, value) in observe_invocation(inv) {
                learned.observe(field, value, &origin);
            }
        }
    }
    if learned.get("calibration.agy").is_none() {
        for (name, trace) in traces {
            if trace
                .header
                .agy_version
                .parse::<agy_protocol::AgyVersion>()
                .is_ok()
            {
                let v = toml::Value::String(trace.header.agy_version.clone());
                learned.observe("calibration.agy", v, &format!("{name} (header)"));
            }
        }
    }
    learned
}
