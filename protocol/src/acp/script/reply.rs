//! Verbatim answers: `[opening]`, the lines the agent writes before it reads anything,
//! and `[[reply]]`, rules that answer a client request with lines given byte for byte
//! (or a typed error) in place of the agent's own answer. A recorded transcript
//! replays through them (`agy-harness convert`, docs/fidelity.md).

use super::model::ErrorSpec;
use crate::duration::GoDuration;
use crate::script::Times;
use serde::{Deserialize, Serialize};

/// `[opening]`: what the agent writes at start, before reading any message.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OpeningSpec {
    /// The steps (`line`, `stderr`, `sleep`; `error` has no request to answer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<ReplyStep>,
}

impl OpeningSpec {
    /// True when nothing is written at start.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// `[[reply]]`: how the agent answers one client request; first matching rule wins.
/// A rule with no steps leaves the request unanswered.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReplyRule {
    /// A label, recorded in the journal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Which requests this rule answers; none means any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<RequestMatch>,
    /// How many requests it answers; default 1 without `when`, always with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<Times>,
    /// What the agent writes, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<ReplyStep>,
}

/// Predicates on a client request; all given ones must hold.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestMatch {
    /// 1-based position of the request among the client's requests to this process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u32>,
    /// The request's method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The request's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<ReplyId>,
}

/// A JSON-RPC request id as a script names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ReplyId {
    /// A number id.
    Number(i64),
    /// A string id.
    Text(String),
}

/// One thing a reply (or the opening) writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyStep {
    /// One stdout line, these bytes exactly (a newline is added): a JSON value on one
    /// line, a JSON-RPC message or any other (a recorder's own form).
    Line(String),
    /// Answer the matched request with this JSON-RPC error (`data` kept in order).
    Error(ErrorSpec),
    /// A line on stderr.
    Stderr(String),
    /// Wait (multiplied by `FAKE_AGY_TIME_SCALE`); nothing else is read meanwhile.
    Sleep(GoDuration),
}

impl ReplyStep {
    /// The step's key as written in a script.
    pub fn name(&self) -> &'static str {
        match self {
            ReplyStep::Line(_) => "line",
            ReplyStep::Error(_) => "error",
            ReplyStep::Stderr(_) => "stderr",
            ReplyStep::Sleep(_) => "sleep",
        }
    }
}

/// Why a `line` cannot be written as one stdout line; `None` when it can.
pub fn line_problem(line: &str) -> Option<(String, &'static str)> {
    if let Some(at) = line.find(['\n', '\r']) {
        return Some((
            format!(
                "holds a line break at character {}",
                line[..at].chars().count() + 1
            ),
            "a `line` is one stdout line; split it into one `line` step per line",
        ));
    }
    match serde_json::from_str::<&serde_json::value::RawValue>(line) {
        Ok(_) => None,
        Err(e) => Some((
            format!("is not one JSON value: {e}"),
            "give the message as recorded, one JSON value; use the turn step `raw` for other bytes",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_must_be_one_json_value_on_one_line() {
        assert_eq!(line_problem(r#"{"direction": "agent", "a": [1, 2]}"#), None);
        let (broken, _) = line_problem("{\"a\":\n1}").expect("line break");
        assert!(broken.contains("character 6"), "{broken}");
        let (not_json, _) = line_problem("{\"a\":1} trailing").expect("not json");
        assert!(not_json.contains("not one JSON value"), "{not_json}");
    }
}
