//! The spike file model: the question, the probes, the facts expected.

use super::measure::Measure;
use agy_protocol::{AgyVersion, GoDuration};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One spike file (`spikes/S3.toml`).
#[derive(Debug, Clone, PartialEq)]
pub struct Spike {
    /// `S1` … `S8`.
    pub id: String,
    /// Short title.
    pub title: String,
    /// The question the spike answers.
    pub question: String,
    /// Where the file was read from.
    pub path: String,
    /// What is run.
    pub probes: Vec<Probe>,
    /// What is expected.
    pub facts: Vec<Fact>,
}

/// One probe: an argv template run `repeat` times, `concurrency` at a time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Probe {
    /// Name, unique within the spike.
    pub name: String,
    /// argv after the binary; `{prompt}`, `{workdir}`, `{fixtures}` are substituted.
    pub argv: Vec<String>,
    /// The prompt substituted for `{prompt}`.
    #[serde(default)]
    pub prompt: String,
    /// How many runs.
    #[serde(default = "one")]
    pub repeat: u32,
    /// How many runs at once.
    #[serde(default = "one")]
    pub concurrency: u32,
    /// Extra environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Give the run a profile of its own (empty HOME) even on live runs, where the
    /// user's credentials are otherwise needed (S6a).
    #[serde(default)]
    pub isolated_profile: bool,
    /// Files created in `{fixtures}` before the run.
    #[serde(default)]
    pub fixtures: Vec<Fixture>,
    /// Kill a run after this long (live default 15m; scaled on fake runs).
    #[serde(default)]
    pub timeout: Option<GoDuration>,
    /// Lines written to the run's stdin, then stdin is closed (none: stdin is empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stdin: Vec<String>,
}

fn one() -> u32 {
    1
}

/// A fixture file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    /// File name inside `{fixtures}`.
    pub name: String,
    /// A solid-colour PNG of this size.
    #[serde(default)]
    pub png: Option<[u32; 2]>,
    /// Its colour, `#rrggbb`.
    #[serde(default)]
    pub color: Option<String>,
    /// Or text content.
    #[serde(default)]
    pub text: Option<String>,
}

/// One fact: a measure of a probe's runs, and what each recorded agy version showed.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// `S3.widescreen-size`.
    pub id: String,
    /// What the fact says, in words.
    pub claim: String,
    /// The probe whose runs are measured.
    pub probe: String,
    /// What is measured.
    pub measure: Measure,
    /// Judged only on runs where this measure holds (else `unverified`).
    pub only_when: Option<(Measure, Comparator)>,
    /// Marked as a quirk adapters work around.
    pub quirk: Option<Quirk>,
    /// Why the fact cannot be checked automatically, when it cannot.
    pub manual: Option<String>,
    /// What was recorded, per agy version, oldest first.
    pub recorded: Vec<Recorded>,
}

/// A quirk and what its disappearance means.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quirk {
    /// Short name (`timeout-as-success`).
    pub name: String,
    /// What can be retired when the quirk is gone.
    pub gone: String,
}

/// The expectation recorded on one agy version.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The version it was recorded on.
    pub agy: AgyVersion,
    /// When.
    pub date: String,
    /// Where the record is.
    pub source: String,
    /// What was seen.
    pub expect: Expectation,
}

/// A comparator and its tolerance over repeated runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// The check on one run's value.
    pub comparator: Comparator,
    /// How many runs must pass; `None` means all.
    pub at_least: Option<u32>,
}

/// A check on a measured value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Comparator {
    /// Equal to this JSON value.
    Equals(serde_json::Value),
    /// Equal to one of these.
    OneOf(Vec<serde_json::Value>),
    /// A list containing each of these items, or a string containing this text.
    Contains(serde_json::Value),
    /// A list containing none of these items, or a string not containing this text.
    Lacks(serde_json::Value),
    /// A list with exactly these items, in any order.
    SetEquals(Vec<serde_json::Value>),
    /// A string starting with this text.
    StartsWith(String),
    /// A string (or every line of a list of strings) matching this regular expression.
    Matches(String),
    /// A number at least this.
    Min(f64),
    /// A number at most this.
    Max(f64),
    /// A number in `[low, high]`.
    Between([f64; 2]),
}

impl Comparator {
    /// The comparator's key as written.
    pub fn name(&self) -> &'static str {
        match self {
            Comparator::Equals(_) => "equals",
            Comparator::OneOf(_) => "one_of",
            Comparator::Contains(_) => "contains",
            Comparator::Lacks(_) => "lacks",
            Comparator::SetEquals(_) => "set_equals",
            Comparator::StartsWith(_) => "starts_with",
            Comparator::Matches(_) => "matches",
            Comparator::Min(_) => "min",
            Comparator::Max(_) => "max",
            Comparator::Between(_) => "between",
        }
    }
}

impl Fact {
    /// The expectation recorded for `baseline`: the newest record at or before it, or
    /// the oldest record when the baseline predates them all.
    pub fn recorded_for(&self, baseline: AgyVersion) -> Option<&Recorded> {
        self.recorded
            .iter()
            .filter(|r| r.agy <= baseline)
            .max_by_key(|r| r.agy)
            .or_else(|| self.recorded.iter().min_by_key(|r| r.agy))
    }
}
