//! The ACP script as a whole: agent knobs, restore behaviour, prompt rules.

use super::reply::{OpeningSpec, ReplyRule};
use super::step::AcpStep;
use crate::acp::AcpServerVersion;
use crate::duration::GoDuration;
use crate::script::Times;
use serde::{Deserialize, Serialize};

/// A parsed ACP script.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AcpScript {
    /// `[agent]`: knobs of the whole agent process.
    #[serde(default, skip_serializing_if = "AgentSpec::is_empty")]
    pub agent: AgentSpec,
    /// `[load]`: how `session/load` behaves.
    #[serde(default, skip_serializing_if = "RestoreSpec::is_empty")]
    pub load: RestoreSpec,
    /// `[resume]`: how `session/resume` behaves.
    #[serde(default, skip_serializing_if = "RestoreSpec::is_empty")]
    pub resume: RestoreSpec,
    /// `[[prompt]]`: what `session/prompt` turns do, first matching rule wins.
    #[serde(default, rename = "prompt", skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<PromptRule>,
    /// `[opening]`: lines written at start, before any message is read.
    #[serde(default, skip_serializing_if = "OpeningSpec::is_empty")]
    pub opening: OpeningSpec,
    /// `[[reply]]`: verbatim answers to client requests, first matching rule wins.
    #[serde(default, rename = "reply", skip_serializing_if = "Vec::is_empty")]
    pub replies: Vec<ReplyRule>,
}

/// `[agent]`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSpec {
    /// `agentInfo.version`, in any recorded format (overrides `FAKE_AGY_ACP_VERSION`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<AcpServerVersion>,
    /// Wait this long before the first answer, normally `initialize`'s (cold start,
    /// docs/agy-acp-reference.md §2.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_delay: Option<GoDuration>,
    /// `hang`: never answer `initialize` (RC01 hung in 2 of 4 starts, docs/agy-acp-reference.md §2.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<StartMode>,
    /// Write glog-style noise to stderr at start (default `true`, docs/agy-acp-reference.md §2.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_noise: Option<bool>,
    /// Whether the sandbox is signed in (default `signed_in`; `required` models a fresh
    /// install, docs/agy-acp-reference.md §2.4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthState>,
    /// What `session/cancel` does (default `honour`, docs/agy-acp-reference.md §1.7, §2.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<CancelMode>,
    /// Keep running on SIGTERM (RC01 did, docs/agy-acp-reference.md §2.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_sigterm: Option<bool>,
    /// The error for an unknown session id on load/resume/prompt (unrecorded for
    /// Antigravity; default the spec's -32002 "Resource not found", docs/agy-acp-reference.md §6.6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown_session: Option<ErrorSpec>,
    /// Send the legacy `models` object in session responses (default `true`, docs/agy-acp-reference.md §2.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy_models: Option<bool>,
    /// When `available_commands_update` is sent (default by version, docs/agy-acp-reference.md §2.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commands: Option<CommandsTiming>,
}

impl AgentSpec {
    /// True when no knob is set.
    pub fn is_empty(&self) -> bool {
        *self == AgentSpec::default()
    }
}

/// How the agent starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartMode {
    /// Answer `initialize` (after `start_delay`).
    Normal,
    /// Read requests but never answer `initialize`.
    Hang,
}

/// Whether the agent has credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthState {
    /// Signed in (a token is present).
    SignedIn,
    /// No token until `authenticate` succeeds; gated methods fail with -32000.
    Required,
}

/// What `session/cancel` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CancelMode {
    /// Stop the turn and answer the prompt with `stopReason: cancelled`.
    Honour,
    /// Let the turn run to completion (RC01-like, docs/agy-acp-reference.md §2.8).
    Ignore,
}

/// When `available_commands_update` is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandsTiming {
    /// Right after the `session/new` response (RC01, docs/agy-acp-reference.md §2.5, §6.2).
    AfterNew,
    /// At the start of the first prompt turn (1.3.0, docs/agy-acp-reference.md §2.5).
    FirstPrompt,
    /// Never.
    Never,
}

/// A JSON-RPC error to answer with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorSpec {
    /// Error code.
    pub code: i32,
    /// Error message.
    pub message: String,
    /// Optional `data`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl ErrorSpec {
    /// The JSON-RPC error the agent answers with.
    pub fn rpc_error(&self) -> agent_client_protocol_schema::v1::Error {
        agent_client_protocol_schema::v1::Error::new(self.code, self.message.clone())
            .data(self.data.clone())
    }

    /// The spec that answers with `e`.
    pub fn from_rpc_error(e: &agent_client_protocol_schema::v1::Error) -> ErrorSpec {
        ErrorSpec {
            code: e.code.into(),
            message: e.message.clone(),
            data: e.data.clone(),
        }
    }
}

/// `[load]` or `[resume]`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestoreSpec {
    /// When the history replay is sent. Default: `before_response` for load (the
    /// spec's order; Antigravity's is unrecorded, docs/agy-acp-reference.md §2.9), `none` for resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<ReplayTiming>,
    /// Steps acted out after the response (late notifications, late permission
    /// requests).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub late: Vec<AcpStep>,
    /// Fail the call with this error instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorSpec>,
}

impl RestoreSpec {
    /// True when nothing is set.
    pub fn is_empty(&self) -> bool {
        *self == RestoreSpec::default()
    }
}

/// When the replay of a restored session is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayTiming {
    /// Replay, then respond (the spec's order, docs/agy-acp-reference.md §1.5).
    BeforeResponse,
    /// Respond, then replay (gemini-cli's order, docs/agy-acp-reference.md §2.9).
    AfterResponse,
    /// No replay (hydra #6 / openab pattern on load; the spec's rule on resume).
    None,
}

/// `[[prompt]]`: what one `session/prompt` does.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptRule {
    /// A label, recorded in the journal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Which prompts this rule serves; none means any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<PromptMatch>,
    /// How many prompts it serves; default 1 without `when`, always with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<Times>,
    /// What the turn does; steps after `respond` run after the response.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<AcpStep>,
}

/// Predicates on a prompt; all given ones must hold.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptMatch {
    /// 1-based index of the prompt within the agent process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u32>,
    /// The prompt's text contains this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
}
