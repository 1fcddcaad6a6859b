//! The plan of a reproduction (its ops and every expectation, each with its reason) and
//! the vocabulary the oracles of every profile share to write it.

use crate::scenario::{AcpExpect, HistoryExpect, JournalExpect, OpExpect, OutcomeSet};
use agy_protocol::driver::Outcome;
use agy_protocol::GoDuration;

/// One op of the scenario and what its reply must show.
#[derive(Debug, Clone, PartialEq)]
pub struct OpPlan {
    /// The op as TOML (`generate = { … }`).
    pub action: String,
    /// How long the reply may take, when not the default.
    pub reply_within: Option<String>,
    /// The expectation.
    pub expect: OpExpect,
    /// Why, as comment lines.
    pub why: Vec<String>,
}

/// Every expectation of a reproduction.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The ops in order.
    pub ops: Vec<OpPlan>,
    /// `[expect.journal]`.
    pub journal: JournalExpect,
    /// `[expect.history]`.
    pub history: Option<HistoryExpect>,
    /// `[expect.acp]` (acp only; the journal checks do not apply there).
    pub acp: Option<AcpExpect>,
    /// The behaviour, kebab-case (the file name).
    pub slug: String,
    /// One sentence on the behaviour (the description).
    pub summary: String,
    /// Turns that end without a result (the adapter waits for one until its timeout).
    pub unanswered: usize,
}

/// A TOML basic string.
pub fn quote(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn outcome(name: &str) -> Outcome {
    Outcome::ALL
        .into_iter()
        .find(|o| o.as_str() == name)
        .unwrap_or(Outcome::Permanent)
}

/// An outcome set from class names.
pub fn outcomes(names: &[&str]) -> Option<OutcomeSet> {
    match names {
        [] => None,
        [one] => Some(OutcomeSet::One(outcome(one))),
        many => Some(OutcomeSet::Any(many.iter().map(|n| outcome(n)).collect())),
    }
}

/// A Go duration literal of this file (`"10s"`).
pub fn duration(text: &str) -> Option<GoDuration> {
    GoDuration::parse(text).ok()
}

/// An error names an authentication failure (the documented and the recorded wording,
/// docs/agy-reference.md §2.2 item 3).
pub fn mentions_auth(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.contains("authentication required") || lower.contains("authentication failed")
}
