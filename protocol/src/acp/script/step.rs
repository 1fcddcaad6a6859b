//! Steps of an ACP prompt turn or of a restore's late phase: one-key tables such as
//! `{ text = "Done." }`.

use crate::duration::GoDuration;
use crate::script::{CrashKind, Flag, True};
use serde::{Deserialize, Serialize};

/// One thing the agent does during a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AcpStep {
    /// The default turn for this prompt (docs/agy-acp-reference.md §2.6, §6.3).
    Default(True),
    /// One `agent_message_chunk` with this text (a true delta, docs/agy-acp-reference.md §2.6).
    Text(String),
    /// One `agent_thought_chunk`.
    Thought(String),
    /// A `tool_call` (gated edits are `kind = "edit"`, `status = "pending"`, docs/agy-acp-reference.md §2.7).
    ToolCall(ToolCallSpec),
    /// A `tool_call_update` of the last (or a named) tool call.
    ToolUpdate(ToolUpdateSpec),
    /// Re-send the last `tool_call` verbatim, same id (docs/agy-acp-reference.md §2.7 quirk a).
    DuplicateToolCall(True),
    /// `session/request_permission` for the last tool call, then wait for the answer.
    Permission(Flag<PermissionSpec>),
    /// A `usage_update`.
    Usage(Flag<UsageUpdateSpec>),
    /// An `available_commands_update` (`plan`, `logout`; docs/agy-acp-reference.md §2.5).
    Commands(True),
    /// A `session/update` whose `update` is this table, written as is (off-schema
    /// variants such as `subagent_spawned`, docs/agy-acp-reference.md §7 item 13).
    Update(serde_json::Value),
    /// A raw line on stdout (invalid frames).
    Raw(String),
    /// A line on stderr.
    Stderr(String),
    /// Wait (multiplied by `FAKE_AGY_TIME_SCALE`).
    Sleep(GoDuration),
    /// Wait until `session/cancel` arrives (forever when cancel is ignored).
    WaitForCancel(True),
    /// Answer the prompt now; later steps are late notifications.
    Respond(StopReasonName),
    /// Die by a signal now (SIGKILL: the agent killed after acknowledging a prompt).
    Crash(CrashKind),
    /// Stop answering anything; keep running until killed.
    Hang(True),
    /// Exit with this code now.
    Exit(i32),
}

impl AcpStep {
    /// The step's key as written in a script.
    pub fn name(&self) -> &'static str {
        match self {
            AcpStep::Default(_) => "default",
            AcpStep::Text(_) => "text",
            AcpStep::Thought(_) => "thought",
            AcpStep::ToolCall(_) => "tool_call",
            AcpStep::ToolUpdate(_) => "tool_update",
            AcpStep::DuplicateToolCall(_) => "duplicate_tool_call",
            AcpStep::Permission(_) => "permission",
            AcpStep::Usage(_) => "usage",
            AcpStep::Commands(_) => "commands",
            AcpStep::Update(_) => "update",
            AcpStep::Raw(_) => "raw",
            AcpStep::Stderr(_) => "stderr",
            AcpStep::Sleep(_) => "sleep",
            AcpStep::WaitForCancel(_) => "wait_for_cancel",
            AcpStep::Respond(_) => "respond",
            AcpStep::Crash(_) => "crash",
            AcpStep::Hang(_) => "hang",
            AcpStep::Exit(_) => "exit",
        }
    }

    /// True for steps that end the process or stop it from answering.
    pub fn ends_process(&self) -> bool {
        matches!(
            self,
            AcpStep::Crash(_) | AcpStep::Hang(_) | AcpStep::Exit(_)
        )
    }
}

/// A tool call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallSpec {
    /// `toolCallId`; default a 32-hex id (one of the recorded formats, docs/agy-acp-reference.md §2.7 c).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Title; default `Run create_file?`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Kind (`edit`, `read`, `execute`, …); default `edit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Status; default `pending`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// File the tool writes (relative paths resolve against the session's cwd); adds
    /// a diff, `locations` and `rawInput` as Antigravity does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// New file text for the diff; default `ok\n`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_text: Option<String>,
}

/// A tool call update.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolUpdateSpec {
    /// `toolCallId`; default the last tool call's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// New status (`in_progress`, `completed`, `failed`).
    pub status: String,
    /// `rawOutput` display string (docs/agy-acp-reference.md §2.7 e).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// A permission request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PermissionSpec {
    /// `toolCall.toolCallId`; default the last tool call's (or `interaction_<n>` for a
    /// question).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Ask a question instead: one `allow_once` option per answer (docs/agy-acp-reference.md §2.7, §6.7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// The answers of a question.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<String>,
    /// Do not wait for the answer (the turn goes on; the answer is journaled when it
    /// comes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_wait: Option<bool>,
}

/// A `usage_update`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageUpdateSpec {
    /// Context tokens used; default grows with the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used: Option<u64>,
    /// Context size; default 1048576 (docs/agy-acp-reference.md §6.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// A stop reason (docs/agy-acp-reference.md §1.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReasonName {
    /// `end_turn` (the only one observed from Antigravity, docs/agy-acp-reference.md §2.6).
    EndTurn,
    /// `max_tokens`.
    MaxTokens,
    /// `max_turn_requests`.
    MaxTurnRequests,
    /// `refusal`.
    Refusal,
    /// `cancelled`.
    Cancelled,
}

impl StopReasonName {
    /// The wire spelling (`end_turn`).
    pub fn as_str(self) -> &'static str {
        match self {
            StopReasonName::EndTurn => "end_turn",
            StopReasonName::MaxTokens => "max_tokens",
            StopReasonName::MaxTurnRequests => "max_turn_requests",
            StopReasonName::Refusal => "refusal",
            StopReasonName::Cancelled => "cancelled",
        }
    }
}
