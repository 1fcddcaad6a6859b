//! The reproduction as data: the profile, agy's processes and, per turn, the script
//! steps that act out what the report shows. Built from the evidence (`build::build_case`);
//! shrunk by the minimiser; rendered as a scenario with the oracle's expectations.

use crate::scenario::Profile;
use agy_protocol::AgyVersion;
use std::fmt::Write;

/// The reproduction.
#[derive(Debug, Clone, PartialEq)]
pub struct ReproCase {
    /// The contract the adapter implements.
    pub profile: Profile,
    /// The agy version the report shows.
    pub version: Option<AgyVersion>,
    /// agy's processes: oneshot, one generate op each; session, one per model; acp,
    /// one per agent process.
    pub processes: Vec<Process>,
    /// acp: the client's permission policy (`acp_new`'s `permission`), when the
    /// transcript shows one other than the default `allow`.
    pub permission: Option<agy_protocol::driver::AcpPermission>,
}

/// One agy process.
#[derive(Debug, Clone, PartialEq)]
pub struct Process {
    /// `--model`, when the report gives it (session: the model the session opens or
    /// selects).
    pub model: Option<String>,
    /// oneshot: the prompt (`-p`).
    pub prompt: Option<String>,
    /// oneshot: `--print-timeout` in seconds, else the adapter's default.
    pub timeout_s: Option<u64>,
    /// The turns: oneshot exactly one; session one per stdin line.
    pub turns: Vec<Turn>,
    /// Where the report shows it (`invocation 1`).
    pub origin: String,
    /// acp: how the session was restored on this agent process (none for the first).
    pub restore: Option<Restore>,
}

/// acp: a restore of the session on a new agent process, as the agent answered it
/// (the `[acp.load]` / `[acp.resume]` script).
#[derive(Debug, Clone, PartialEq)]
pub struct Restore {
    /// `session/load` or `session/resume`.
    pub method: String,
    /// When the agent replayed the history: `before_response`, `after_response`,
    /// `none`.
    pub replay: String,
    /// The agent's error answer: code and message.
    pub error: Option<(i64, String)>,
    /// What the agent sent after its response, before the client's next request.
    pub late: Vec<ScriptStep>,
    /// Line of the transcript.
    pub line: usize,
}

/// One turn: the user's text and what agy does for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The text the user sends (session) or the prompt (oneshot).
    pub text: String,
    /// The script steps, in order.
    pub steps: Vec<ScriptStep>,
}

/// One script step and the report line it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptStep {
    /// The step as a one-key TOML table (`{ envelope = { … } }`).
    pub value: toml::Value,
    /// Line of the report (0: derived from a hint or an option).
    pub line: usize,
}

impl ScriptStep {
    /// A step from a key and its value.
    pub fn new(key: &str, value: toml::Value, line: usize) -> ScriptStep {
        let mut t = toml::Table::new();
        t.insert(key.to_string(), value);
        ScriptStep {
            value: toml::Value::Table(t),
            line,
        }
    }

    /// The step's key (`envelope`, `sleep`, …).
    pub fn key(&self) -> &str {
        self.value
            .as_table()
            .and_then(|t| t.keys().next())
            .map_or("", String::as_str)
    }

    /// The step's value.
    pub fn body(&self) -> Option<&toml::Value> {
        self.value.as_table().and_then(|t| t.values().next())
    }

    /// The step's value, mutably.
    pub fn body_mut(&mut self) -> Option<&mut toml::Value> {
        self.value
            .as_table_mut()
            .and_then(|t| t.iter_mut().next().map(|(_, v)| v))
    }
}

/// `<key> = [ … ]`, one step a line with the report line it came from.
pub fn write_steps(out: &mut String, key: &str, steps: &[ScriptStep]) {
    let _ = writeln!(out, "{key} = [");
    for s in steps {
        let origin = if s.line > 0 {
            format!("  # report line {}", s.line)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {},{origin}",
            crate::data_text::toml_inline(&s.value)
        );
    }
    let _ = writeln!(out, "]");
}
