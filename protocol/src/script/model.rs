//! The script as a whole: header knobs, invocation rules and turn rules.

use super::model_turn::ModelTurn;
use super::step::{Pattern, Step};
use crate::duration::GoDuration;
use crate::version::AgyVersion;
use serde::{Deserialize, Serialize};

/// A parsed agy script.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Script {
    /// Knobs that apply to every invocation.
    #[serde(default, skip_serializing_if = "ScriptHeader::is_empty")]
    pub script: ScriptHeader,
    /// Rules that pick what an invocation does, in file order.
    #[serde(default, rename = "invocation", skip_serializing_if = "Vec::is_empty")]
    pub invocations: Vec<InvocationRule>,
    /// Turn rules for persistent invocations whose rule has no turns of its own.
    #[serde(default, rename = "turn", skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<TurnRule>,
    /// The model's decisions, one per turn: default turns render them instead of the
    /// fake's own model (`[[model]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub model: Vec<ModelTurn>,
}

/// `[script]`: knobs of the default behaviour.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptHeader {
    /// The agy version to model (overrides `FAKE_AGY_VERSION`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agy: Option<AgyVersion>,
    /// A calibration file, relative to the script's folder: what fake-agy presents as
    /// agy (overrides `agy`; `FAKE_AGY_CALIBRATION` overrides it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<String>,
    /// How long a default text turn takes (before the time scale).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_duration: Option<GoDuration>,
    /// How long a default image turn takes (before the time scale).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_duration: Option<GoDuration>,
    /// What an invocation that matches no rule does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_exhausted: Option<Exhausted>,
    /// What a persistent-mode stdin line without `message` or content, or that is not
    /// JSON, does (agy's reaction is unrecorded: docs/agy-reference.md §4.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub malformed_lines: Option<MalformedLines>,
    /// `true`: agy is signed out (no credentials): `models` and every turn fail auth
    /// (overrides `FAKE_AGY_SIGNED_OUT`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed_out: Option<bool>,
    /// When persistent mode writes `init` (overrides `FAKE_AGY_INIT_AT`; the record is
    /// split: docs/agy-reference.md, "When `init` is written").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_at: Option<InitAt>,
}

/// When agy writes `init` in persistent mode (`--input-format stream-json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InitAt {
    /// Once the first stdin line has arrived, before its turn (agentty's lifecycle
    /// comment; the modelled side).
    #[default]
    FirstLine,
    /// At start, before stdin is read (a published stand-in modelled on agy 1.2.2 says
    /// so; unverified).
    Start,
}

impl InitAt {
    /// Reads `first_line` or `start` (the spelling of `FAKE_AGY_INIT_AT` and of the
    /// script key).
    pub fn parse(s: &str) -> Option<InitAt> {
        match s {
            "first_line" => Some(InitAt::FirstLine),
            "start" => Some(InitAt::Start),
            _ => None,
        }
    }

    /// The spelling [`InitAt::parse`] reads.
    pub fn as_str(self) -> &'static str {
        match self {
            InitAt::FirstLine => "first_line",
            InitAt::Start => "start",
        }
    }
}

/// How fake-agy treats a malformed persistent-mode stdin line whose handling agy's
/// record leaves open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MalformedLines {
    /// Like the recorded missing-`event` case: an ERROR result, exit 1.
    #[default]
    Fatal,
    /// Like the recorded unsupported-event case: a stderr warning, the line is skipped.
    Skip,
}

impl ScriptHeader {
    /// True when no knob is set.
    pub fn is_empty(&self) -> bool {
        *self == ScriptHeader::default()
    }
}

/// What happens once no rule matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exhausted {
    /// Act out the default behaviour.
    #[default]
    Default,
    /// Fail as a broken fake (reserved exit code), so an unexpected extra call shows.
    Fail,
}

/// `[[invocation]]`: what one agy process does.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InvocationRule {
    /// A label, recorded in the journal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Which invocations this rule serves; none means any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<InvocationMatch>,
    /// How many invocations it serves; default 1 without `when`, always with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<Times>,
    /// Steps acted out at start (in print mode: the whole run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    /// Per-stdin-line rules in persistent mode.
    #[serde(default, rename = "turn", skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<TurnRule>,
}

/// `[[turn]]`: what one stdin line does in persistent mode.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnRule {
    /// A label, recorded in the journal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Which lines this rule serves; none means any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<TurnMatch>,
    /// How many lines it serves; default 1 without `when`, always with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<Times>,
    /// What the turn does.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
}

/// Predicates on an invocation; all given ones must hold.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InvocationMatch {
    /// 1-based index of the invocation within the scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u32>,
    /// The `-p` prompt contains this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_contains: Option<String>,
    /// The `-p` prompt matches this regular expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_matches: Option<Pattern>,
    /// argv contains each of these (a token, or `flag value` as two adjacent tokens).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub argv_has: Vec<String>,
    /// argv contains none of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub argv_lacks: Vec<String>,
    /// The run mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<RunMode>,
}

/// Predicates on a stdin line; all given ones must hold.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnMatch {
    /// 1-based index of the line within the process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The prompt contains this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_contains: Option<String>,
    /// The prompt matches this regular expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_matches: Option<Pattern>,
}

/// How agy was asked to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunMode {
    /// `-p` with `--output-format text`.
    Text,
    /// `-p` with `--output-format json`.
    Json,
    /// `-p` with `--output-format stream-json`.
    StreamJson,
    /// `--input-format stream-json`, no `-p`.
    Persistent,
    /// A subcommand or a slash command (`models`, `-p /usage`).
    Command,
    /// Neither `-p` nor `--input-format` (or `-i`): agy starts its interactive UI
    /// (docs/agy-reference.md §1.2), which no headless caller can drive.
    Interactive,
}

/// How many invocations or lines a rule serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Times {
    /// Exactly this many.
    Count(u32),
    /// `"always"`: without limit.
    Always(AlwaysWord),
}

/// The word `always`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlwaysWord {
    /// `always`
    Always,
}

impl Times {
    /// The limit, `None` for unlimited; `has_when` picks the default.
    pub fn limit(times: Option<Times>, has_when: bool) -> Option<u32> {
        match times {
            Some(Times::Count(n)) => Some(n),
            Some(Times::Always(_)) => None,
            None if has_when => None,
            None => Some(1),
        }
    }
}
