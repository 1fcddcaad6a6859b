//! The agy script: what fake-agy acts out, per invocation and per stdin line.
//!
//! A script is TOML, either a file of its own (`FAKE_AGY_SCRIPT=path`) or the `[agy]`
//! table of a scenario (`FAKE_AGY_SCRIPT=scenario.toml`, `FAKE_AGY_SCRIPT_TABLE=agy`).
//! The format is documented in `docs/script-format.md`.

/// The exit code fake-agy uses when the fake itself is broken (unreadable script,
/// bad command-line knob). Scripts may not use it, so a broken fake is never mistaken
/// for a scripted failure.
pub const FAKE_BROKEN_EXIT: i32 = 70;

mod flag;
mod json_object;
pub mod limits;
mod model;
mod model_turn;
mod parse;
pub(crate) mod rule;
mod step;

pub use flag::{Flag, True};
pub use json_object::JsonObject;
pub use model::{
    AlwaysWord, Exhausted, InitAt, InvocationMatch, InvocationRule, MalformedLines, RunMode,
    Script, ScriptHeader, Times, TurnMatch, TurnRule,
};
pub use model_turn::{ModelCall, ModelResponse, ModelTurn, SUBAGENT_TOOL};
pub use parse::{parse_script, parse_script_file, parse_script_value, render_script};
pub use step::{
    CommandResultSpec, CrashKind, DefaultSpec, DenySpec, EnvelopeSpec, FileSpec, HexBytes,
    ImageFormat, ImageSpec, InitSpec, Pattern, PrintTimeoutSpec, QuestionSpec, QuotaSpec,
    ResultFormat, SignalAction, SignalNamed, Step, StepErrorSpec, StepSpec, ToolChildSpec,
    UsageName, UsageSpec,
};
