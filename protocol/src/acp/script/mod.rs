//! The ACP script: what the fake Antigravity ACP agent acts out.
//!
//! TOML, either a file of its own (`FAKE_AGY_ACP_SCRIPT=path`) or one table of a
//! scenario (`FAKE_AGY_ACP_SCRIPT_TABLE=acp`). The format is documented in
//! `docs/acp-fake-agent.md`.

mod model;
mod parse;
mod reply;
mod step;

pub use model::{
    AcpScript, AgentSpec, AuthState, CancelMode, CommandsTiming, ErrorSpec, PromptMatch,
    PromptRule, ReplayTiming, RestoreSpec, StartMode,
};
pub use parse::{
    parse_acp_script, parse_acp_script_file, parse_acp_script_value, render_acp_script,
};
pub use reply::{line_problem, OpeningSpec, ReplyId, ReplyRule, ReplyStep, RequestMatch};
pub use step::{
    AcpStep, PermissionSpec, StopReasonName, ToolCallSpec, ToolUpdateSpec, UsageUpdateSpec,
};
