//! Requests, replies and events of driver protocol v1.

use super::outcome::Outcome;
use super::permission::{AcpPermission, AgentPermission, AgyPermission};
use crate::profile::Profile;
use serde::{Deserialize, Serialize};

/// The protocol version this build speaks.
pub const DRIVER_PROTOCOL_VERSION: u32 = 1;

/// A request from the harness: `{"v":1,"id":N,"op":"…",…}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Protocol version ([`DRIVER_PROTOCOL_VERSION`]).
    pub v: u32,
    /// Request id; the reply carries it back.
    pub id: u64,
    /// The operation and its arguments.
    #[serde(flatten)]
    pub op: RequestOp,
}

/// Operations, by profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum RequestOp {
    /// Handshake: the driver answers with its name and the profiles it implements.
    Hello {},
    /// `oneshot`: generate one image.
    Generate {
        /// The user's prompt.
        prompt: String,
        /// Aspect ratio asked for (`16:9`, `1:1`), if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        aspect: Option<String>,
        /// The adapter's timeout in seconds (before the time scale).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_s: Option<f64>,
        /// Reference image paths.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        references: Vec<String>,
        /// Adapter settings for this request (model, effort, skip_permissions, …).
        #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
        settings: serde_json::Map<String, serde_json::Value>,
    },
    /// `session`: open a conversation.
    Open {
        /// Session handle chosen by the harness.
        session: String,
        /// Model selection.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        /// Effort selection.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        effort: Option<String>,
        /// Permission selection (`skip` for `--dangerously-skip-permissions`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        permission: Option<AgyPermission>,
    },
    /// `session`: one user turn.
    Turn {
        /// Session handle.
        session: String,
        /// The user's message.
        text: String,
    },
    /// `session`: select model / effort / permission for later turns.
    Select {
        /// Session handle.
        session: String,
        /// Model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        /// Effort.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        effort: Option<String>,
        /// Permission.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        permission: Option<AgyPermission>,
    },
    /// `session` / `acp`: cancel the running turn.
    Cancel {
        /// Session handle.
        session: String,
    },
    /// `session` / `acp`: close the conversation and release its process.
    Close {
        /// Session handle.
        session: String,
    },
    /// Ask the driver to exit cleanly.
    Shutdown {},
    /// `text`: one question, answered by one print-mode agy run.
    Ask(AskRequest),
    /// `acp`: start the agent and create a new external session (`session/new`).
    AcpNew {
        /// Session handle chosen by the harness (also names the client's checkpoint).
        session: String,
        /// Model to select with `session/set_config_option` (re-applied after a restore).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        /// Mode to select (`default`, `auto_edit`, `yolo`), re-applied after a restore.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<String>,
        /// How permission requests of a turn are answered: `allow` (default), `deny`
        /// or `ask` (left pending).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        permission: Option<AcpPermission>,
    },
    /// `acp`: one prompt turn (`session/prompt`); a session saved by an earlier client
    /// process is restored first.
    AcpPrompt {
        /// Session handle.
        session: String,
        /// The user's message.
        text: String,
    },
    /// `acp`: cancel the running turn (`session/cancel`).
    AcpCancel {
        /// Session handle.
        session: String,
    },
    /// `acp`: restore a session saved by an earlier client process (or an agent that
    /// was restarted) from the state directory, without prompting.
    AcpRestore {
        /// Session handle.
        session: String,
    },
    /// `acp`: kill the agent process, start a new one and restore the session on it.
    AcpRestartAgent {
        /// Session handle.
        session: String,
    },
    /// `acp`: the client's canonical history and restore state, without acting.
    AcpStatus {
        /// Session handle.
        session: String,
    },
    /// `acp`: close the session and stop its agent process (the checkpoint is kept).
    AcpClose {
        /// Session handle.
        session: String,
    },
    /// `mcp`: list the tools the MCP server offers (`tools/list`).
    ToolList {},
    /// `mcp`: one call of the adapter's agy tool (`tools/call`), its arguments mapped
    /// by the adapter config's `[mcp]` table.
    ToolCall {
        /// The prompt.
        prompt: String,
        /// The model to ask for, through the config's model argument.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        /// A conversation handle chosen by the harness: calls with the same handle
        /// continue one conversation, through the config's conversation argument.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        conversation: Option<String>,
        /// The tool's timeout in seconds (before the time scale), through the config's
        /// timeout argument.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_s: Option<f64>,
    },
    /// `acp-agent`: start the agent if it is not running and send `initialize`; the
    /// result's `extra` is the agent's `initialize` result.
    AgentInitialize {},
    /// `acp-agent`: `session/new` (the agent is started and initialized first if needed).
    AgentNew {
        /// Session handle chosen by the harness.
        session: String,
        /// How the session's permission requests are answered: `allow` (default),
        /// `deny` or `cancel`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        permission: Option<AgentPermission>,
        /// The session's working directory, a folder inside the bridge's work
        /// directory (created, and sent as `session/new`'s absolute `cwd`); the work
        /// directory itself when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    /// `acp-agent`: one `session/prompt`; the result's `text` is every
    /// `agent_message_chunk` of the turn.
    AgentPrompt {
        /// Session handle.
        session: String,
        /// The user's message.
        text: String,
    },
    /// `acp-agent`: `session/cancel` for the session's running prompt.
    AgentCancel {
        /// Session handle.
        session: String,
    },
    /// `acp-agent`: continue a session on a fresh agent (after `agent_kill` or
    /// `agent_close`) with `session/load`, or `session/resume` when only that is
    /// advertised.
    AgentLoad {
        /// Session handle.
        session: String,
    },
    /// `acp-agent`: SIGKILL the agent process.
    AgentKill {},
    /// `acp-agent`: close the agent's stdin and wait for it to exit; the result's `text`
    /// is every message chunk the agent sent outside a prompt.
    AgentClose {},
}

impl RequestOp {
    /// The op's wire name.
    pub fn name(&self) -> &'static str {
        match self {
            RequestOp::Hello {} => "hello",
            RequestOp::Generate { .. } => "generate",
            RequestOp::Open { .. } => "open",
            RequestOp::Turn { .. } => "turn",
            RequestOp::Select { .. } => "select",
            RequestOp::Cancel { .. } => "cancel",
            RequestOp::Close { .. } => "close",
            RequestOp::Shutdown {} => "shutdown",
            RequestOp::Ask(_) => "ask",
            RequestOp::AcpNew { .. } => "acp_new",
            RequestOp::AcpPrompt { .. } => "acp_prompt",
            RequestOp::AcpCancel { .. } => "acp_cancel",
            RequestOp::AcpRestore { .. } => "acp_restore",
            RequestOp::AcpRestartAgent { .. } => "acp_restart_agent",
            RequestOp::AcpStatus { .. } => "acp_status",
            RequestOp::AcpClose { .. } => "acp_close",
            RequestOp::ToolList {} => "tool_list",
            RequestOp::ToolCall { .. } => "tool_call",
            RequestOp::AgentInitialize {} => "agent_initialize",
            RequestOp::AgentNew { .. } => "agent_new",
            RequestOp::AgentPrompt { .. } => "agent_prompt",
            RequestOp::AgentCancel { .. } => "agent_cancel",
            RequestOp::AgentLoad { .. } => "agent_load",
            RequestOp::AgentKill {} => "agent_kill",
            RequestOp::AgentClose {} => "agent_close",
        }
    }
}

/// A reply: `{"id":N,"ok":…,"outcome":…,"retryable":…,"error":…,"result":…}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The request id.
    pub id: u64,
    /// True when the operation succeeded.
    pub ok: bool,
    /// The outcome class; a driver that only knows its adapter's error names may omit it
    /// and let the adapter config map `error.name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// Whether the adapter would retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// The adapter's own error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    /// What the operation produced.
    #[serde(default, skip_serializing_if = "OpResult::is_empty")]
    pub result: OpResult,
}

/// `ask` (profile `text`): one question for a print-mode client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AskRequest {
    /// The conversation label chosen by the harness: a second `ask` with the same label
    /// continues the first one's conversation. None: a question of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The user's question.
    pub prompt: String,
    /// An agy conversation id to continue (one a reply gave as `conversation_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    /// Model selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Effort selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// Permission selection (`skip` for `--dangerously-skip-permissions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<AgyPermission>,
    /// The adapter's timeout in seconds (before the time scale).
    pub timeout_s: f64,
    /// The work directory agy runs in, relative to the sandbox's work folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workdir: Option<String>,
    /// The output format the adapter is asked to read (`json`, `stream-json`, `text`),
    /// for an adapter that offers the choice; one with a single mode ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// The adapter's own error name and message (`ProviderTimeoutError`, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorInfo {
    /// Error type name.
    pub name: String,
    /// Message.
    #[serde(default)]
    pub message: String,
    /// What the user should do about it (`install the Antigravity CLI`), when the
    /// adapter's errors carry a hint beside the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// Results, by op. Every field is optional.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OpResult {
    /// `hello`: the driver's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    /// `hello`: profiles implemented (`oneshot`, `session`, `acp`); names this protocol
    /// does not know are skipped.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "crate::profile::known_profiles"
    )]
    pub profiles: Vec<Profile>,
    /// `generate`: the image the adapter delivered (a path the harness can read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// `turn`: the turn's text as the adapter delivered it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// `ask`: the agy conversation the answer belongs to, when the adapter knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// `turn` / `close` / ACP ops: the adapter's view of the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<HistoryEntry>>,
    /// ACP ops: the client's restore state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restore_state: Option<AcpRestoreState>,
    /// `turn` / `generate`: the token usage the adapter attributes to this turn (what it
    /// would record as the turn's cost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TurnUsage>,
    /// Anything else the driver wants in the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<serde_json::Value>,
}

impl OpResult {
    /// True when nothing is set.
    pub fn is_empty(&self) -> bool {
        *self == OpResult::default()
    }
}

/// The token counters an adapter reports for one turn; every field is optional, and
/// unknown ones are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TurnUsage {
    /// Input tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// All tokens of the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
}

/// One entry of an adapter's conversation history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// `user`, `assistant`, or `gap` (an explicit history gap).
    pub role: String,
    /// The text.
    #[serde(default)]
    pub text: String,
    /// The turn this entry belongs to (1-based), when the adapter numbers turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
}

/// An ACP client's restore state (seed 003).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AcpRestoreState {
    /// Live session, nothing to restore.
    Ready,
    /// A saved session can be restored.
    Restorable,
    /// Restored with `session/resume` or `session/load`.
    Restored,
    /// Restored, but a prompt may have progressed: history has an explicit gap.
    HistoryGap,
    /// No saved session id: the history can be read, not continued.
    HistoryOnly,
}

/// A notification from the driver (not a reply).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriverEvent {
    /// `log`, `progress`, …
    pub event: String,
    /// Free text.
    #[serde(default)]
    pub message: String,
}

/// One line a driver wrote.
#[derive(Debug, Clone, PartialEq)]
pub enum DriverLine {
    /// A reply to a request.
    Reply(Box<Reply>),
    /// A notification.
    Event(DriverEvent),
}

/// Parses one line a driver wrote; the error says what is wrong and where (column).
pub fn parse_driver_line(line: &str) -> Result<DriverLine, String> {
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("column {}: not JSON: {e}", e.column()))?;
    if value.get("id").is_some() {
        serde_json::from_value(value)
            .map(|r| DriverLine::Reply(Box::new(r)))
            .map_err(|e| format!("not a valid reply: {e}"))
    } else if value.get("event").is_some() {
        serde_json::from_value(value)
            .map(DriverLine::Event)
            .map_err(|e| format!("not a valid event: {e}"))
    } else {
        Err("a driver line needs `id` (a reply) or `event` (a notification)".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn design_example_request_and_reply_parse() {
        let req: Request = serde_json::from_str(
            r#"{"v":1,"id":1,"op":"generate","prompt":"a purple hexagon","aspect":"16:9","timeout_s":1}"#,
        )
        .expect("request");
        assert!(matches!(req.op, RequestOp::Generate { .. }));
        let line = r#"{"id":1,"ok":false,"outcome":"timeout","retryable":true,"error":{"name":"ProviderTimeoutError","message":"agy print timeout (empty SUCCESS)"}}"#;
        match parse_driver_line(line).expect("reply") {
            DriverLine::Reply(r) => {
                assert_eq!(r.outcome, Some(Outcome::Timeout));
                assert_eq!(r.retryable, Some(true));
            }
            other => panic!("expected a reply, got {other:?}"),
        }
    }

    #[test]
    fn acp_ops_use_their_wire_names() {
        let req: Request =
            serde_json::from_str(r#"{"v":1,"id":4,"op":"acp_prompt","session":"s","text":"hi"}"#)
                .expect("request");
        assert_eq!(req.op.name(), "acp_prompt");
        let req: Request =
            serde_json::from_str(r#"{"v":1,"id":5,"op":"acp_restart_agent","session":"s"}"#)
                .expect("request");
        assert_eq!(req.op.name(), "acp_restart_agent");
        let reply = r#"{"id":5,"ok":true,"result":{"history":[{"role":"gap","text":"","turn":2}],"restore_state":"history_gap"}}"#;
        match parse_driver_line(reply).expect("reply") {
            DriverLine::Reply(r) => {
                assert_eq!(r.result.restore_state, Some(AcpRestoreState::HistoryGap));
            }
            other => panic!("expected a reply, got {other:?}"),
        }
    }

    fn arb_op() -> impl Strategy<Value = RequestOp> {
        prop_oneof![
            Just(RequestOp::Hello {}),
            Just(RequestOp::Shutdown {}),
            (
                "\\PC{0,20}",
                proptest::option::of("[0-9]{1,2}:[0-9]{1,2}"),
                proptest::option::of(0.0f64..1000.0)
            )
                .prop_map(|(prompt, aspect, timeout_s)| RequestOp::Generate {
                    prompt,
                    aspect,
                    timeout_s,
                    references: Vec::new(),
                    settings: serde_json::Map::new()
                }),
            ("[a-z0-9]{1,6}", "\\PC{0,20}")
                .prop_map(|(session, text)| RequestOp::Turn { session, text }),
            "[a-z0-9]{1,6}".prop_map(|session| RequestOp::Close { session }),
            (
                proptest::option::of("[a-z0-9]{1,6}"),
                "\\PC{0,20}",
                proptest::option::of(Just(AgyPermission::Skip)),
                0.0f64..1000.0
            )
                .prop_map(|(session, prompt, permission, timeout_s)| RequestOp::Ask(
                    AskRequest {
                        session,
                        prompt,
                        conversation: None,
                        model: None,
                        effort: None,
                        permission,
                        timeout_s,
                        workdir: None,
                        output: None,
                    }
                )),
            (
                "[a-z0-9]{1,6}",
                proptest::option::of("[a-z0-9.-]{1,12}"),
                proptest::option::of("[a-z_]{1,8}"),
                proptest::option::of(prop_oneof![
                    Just(AcpPermission::Allow),
                    Just(AcpPermission::Deny),
                    Just(AcpPermission::Ask)
                ])
            )
                .prop_map(|(session, model, mode, permission)| RequestOp::AcpNew {
                    session,
                    model,
                    mode,
                    permission
                }),
            ("[a-z0-9]{1,6}", "\\PC{0,20}")
                .prop_map(|(session, text)| RequestOp::AcpPrompt { session, text }),
            "[a-z0-9]{1,6}".prop_map(|session| RequestOp::AcpCancel { session }),
            "[a-z0-9]{1,6}".prop_map(|session| RequestOp::AcpRestore { session }),
            "[a-z0-9]{1,6}".prop_map(|session| RequestOp::AcpRestartAgent { session }),
            "[a-z0-9]{1,6}".prop_map(|session| RequestOp::AcpStatus { session }),
            "[a-z0-9]{1,6}".prop_map(|session| RequestOp::AcpClose { session }),
            Just(RequestOp::ToolList {}),
            (
                "\\PC{0,20}",
                proptest::option::of("[a-z0-9.-]{1,12}"),
                proptest::option::of("[a-z0-9]{1,6}"),
                proptest::option::of(0.0f64..1000.0)
            )
                .prop_map(|(prompt, model, conversation, timeout_s)| {
                    RequestOp::ToolCall {
                        prompt,
                        model,
                        conversation,
                        timeout_s,
                    }
                }),
            Just(RequestOp::AgentInitialize {}),
            (
                "[a-z0-9]{1,6}",
                proptest::option::of(prop_oneof![
                    Just(AgentPermission::Allow),
                    Just(AgentPermission::Deny),
                    Just(AgentPermission::Cancel)
                ]),
                proptest::option::of("[a-z0-9]{1,6}(/[a-z0-9]{1,6}){0,2}")
            )
                .prop_map(|(session, permission, cwd)| RequestOp::AgentNew {
                    session,
                    permission,
                    cwd
                }),
            ("[a-z0-9]{1,6}", "\\PC{0,20}")
                .prop_map(|(session, text)| RequestOp::AgentPrompt { session, text }),
            "[a-z0-9]{1,6}".prop_map(|session| RequestOp::AgentCancel { session }),
            "[a-z0-9]{1,6}".prop_map(|session| RequestOp::AgentLoad { session }),
            Just(RequestOp::AgentKill {}),
            Just(RequestOp::AgentClose {}),
        ]
    }

    proptest! {
        #[test]
        fn arbitrary_driver_output_never_panics(s in "\\PC*") {
            let _ = parse_driver_line(&s);
        }

        #[test]
        fn requests_round_trip(id in any::<u64>(), op in arb_op()) {
            let req = Request { v: DRIVER_PROTOCOL_VERSION, id, op };
            let text = serde_json::to_string(&req).expect("serializes");
            let back: Request = serde_json::from_str(&text).expect("parses");
            prop_assert_eq!(back, req);
        }
    }
}
