//! The three stream-json events: `init`, `step_update`, `result` (PROTOCOL.md §3).
//!
//! Wire form: `{"event":"<name>","<name>":{…}}`, the payload nested under a key equal to
//! the event name; `init` also carries `conversation_id` at the top level (§3.2).

use crate::envelope::Envelope;
use crate::gojson::to_go_json_line;
use crate::usage::Usage;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One line of stream-json output.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// First line of a run (after the first stdin line in persistent mode).
    Init {
        /// The conversation this process works on.
        conversation_id: String,
        /// The init payload.
        init: Init,
    },
    /// A step started, streamed text, or finished.
    StepUpdate(StepUpdate),
    /// The end of a turn; the payload is an [`Envelope`].
    Result(Envelope),
}

/// The `init` payload. Keys in emitted order: `model` (only when `--model` was passed),
/// `cwd`, `tools` (sorted), `permission_mode` (§3.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Init {
    /// Echo of `--model`; absent without the flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The process cwd.
    pub cwd: String,
    /// Tool names, sorted.
    pub tools: Vec<String>,
    /// `request-review`, or `always-proceed` under `--dangerously-skip-permissions`.
    pub permission_mode: String,
    /// The `--json-schema` document (untether `json_schema_finish`, agy 1.3.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<serde_json::Value>,
}

/// A `step_update` payload. Keys in emitted order, omitted when empty (§3.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepUpdate {
    /// The conversation, on every step.
    pub conversation_id: String,
    /// Index within the conversation; continues across turns and processes, may skip.
    pub step_index: u64,
    /// `ACTIVE`, `DONE` or `ERROR`.
    pub state: StepState,
    /// `user_input`, `agent_response`, `tool`, …
    pub step_type: StepType,
    /// Append-only text fragment (agent_response only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_delta: Option<String>,
    /// Tool name, on tool steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// Step duration, on DONE/ERROR lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_seconds: Option<f64>,
    /// `{name, parameters, output?, error?}` on tool steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_info: Option<ToolInfo>,
    /// This step's model call usage (agent_response DONE only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Step-level error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<StepError>,
}

/// Tool call details of a tool step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    /// Equals the step's `tool_name`.
    pub name: String,
    /// agy's PascalCase arguments (`CommandLine`, `ImageName`, `Prompt`, …).
    pub parameters: serde_json::Value,
    /// Tool output, when the tool has one (`generate_image` has none: S3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// `{type, message}` when the tool failed or was denied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<StepError>,
}

/// `{type, message}`, e.g. `TOOL_ERROR`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepError {
    /// Error kind, e.g. `TOOL_ERROR`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Human-readable message.
    pub message: String,
}

macro_rules! open_string_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident = $wire:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vm])* $variant,)*
            /// A value not in the recorded vocabulary, kept verbatim.
            Other(String),
        }
        impl $name {
            /// The wire spelling.
            pub fn as_str(&self) -> &str {
                match self { $($name::$variant => $wire,)* $name::Other(s) => s }
            }
            /// Parses the wire spelling; never fails.
            pub fn parse(s: &str) -> Self {
                match s { $($wire => $name::$variant,)* other => $name::Other(other.to_string()) }
            }
        }
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> { s.serialize_str(self.as_str()) }
        }
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Ok(Self::parse(&String::deserialize(d)?))
            }
        }
    };
}

open_string_enum! {
    /// Step state (§3.3).
    StepState {
        /// Running; text chunks arrive.
        Active = "ACTIVE",
        /// Finished.
        Done = "DONE",
        /// Failed (tool steps).
        Error = "ERROR",
    }
}

open_string_enum! {
    /// Step type (§3.3); the set is open in practice.
    StepType {
        /// The user's line, always DONE.
        UserInput = "user_input",
        /// A model call; carries text and usage.
        AgentResponse = "agent_response",
        /// A tool call.
        Tool = "tool",
        /// Seen on resumed turns.
        SystemMessage = "system_message",
        /// Compaction / bookkeeping.
        Checkpoint = "checkpoint",
        /// A fatal mid-turn error.
        ErrorMessage = "error_message",
    }
}

#[derive(Serialize)]
struct InitWire<'a> {
    event: &'static str,
    conversation_id: &'a str,
    init: &'a Init,
}
#[derive(Serialize)]
struct StepWire<'a> {
    event: &'static str,
    step_update: &'a StepUpdate,
}
#[derive(Serialize)]
struct ResultWire<'a> {
    event: &'static str,
    result: &'a Envelope,
}

impl Serialize for StreamEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            StreamEvent::Init {
                conversation_id,
                init,
            } => InitWire {
                event: "init",
                conversation_id,
                init,
            }
            .serialize(s),
            StreamEvent::StepUpdate(step) => StepWire {
                event: "step_update",
                step_update: step,
            }
            .serialize(s),
            StreamEvent::Result(env) => ResultWire {
                event: "result",
                result: env,
            }
            .serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for StreamEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Any {
            event: String,
            #[serde(default)]
            conversation_id: Option<String>,
            #[serde(default)]
            init: Option<Init>,
            #[serde(default)]
            step_update: Option<StepUpdate>,
            #[serde(default)]
            result: Option<Envelope>,
        }
        let any = Any::deserialize(d)?;
        match any.event.as_str() {
            "init" => Ok(StreamEvent::Init {
                conversation_id: any.conversation_id.unwrap_or_default(),
                init: any.init.ok_or_else(|| D::Error::missing_field("init"))?,
            }),
            "step_update" => Ok(StreamEvent::StepUpdate(
                any.step_update
                    .ok_or_else(|| D::Error::missing_field("step_update"))?,
            )),
            "result" => Ok(StreamEvent::Result(
                any.result
                    .ok_or_else(|| D::Error::missing_field("result"))?,
            )),
            other => Err(D::Error::custom(format!(
                "unknown stream-json event `{other}`"
            ))),
        }
    }
}

impl StreamEvent {
    /// The stdout line for this event, Go-encoded, with its `\n`.
    pub fn to_line(&self) -> String {
        to_go_json_line(self)
    }

    /// Parses one stdout line.
    pub fn parse(line: &str) -> Result<StreamEvent, serde_json::Error> {
        serde_json::from_str(line)
    }

    /// The conversation id this event belongs to.
    pub fn conversation_id(&self) -> &str {
        match self {
            StreamEvent::Init {
                conversation_id, ..
            } => conversation_id,
            StreamEvent::StepUpdate(s) => &s.conversation_id,
            StreamEvent::Result(e) => &e.conversation_id,
        }
    }
}

impl StepUpdate {
    /// A step with only the required fields set.
    pub fn new(
        conversation_id: impl Into<String>,
        step_index: u64,
        state: StepState,
        step_type: StepType,
    ) -> StepUpdate {
        StepUpdate {
            conversation_id: conversation_id.into(),
            step_index,
            state,
            step_type,
            text_delta: None,
            tool_name: None,
            duration_seconds: None,
            tool_info: None,
            usage: None,
            error: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOL_DONE: &str = r#"{"event":"step_update","step_update":{"conversation_id":"1e9ea07f-4f78-4018-9988-7bc8cb67cb64","step_index":4,"state":"DONE","step_type":"tool","tool_name":"run_command","duration_seconds":0.03355835,"tool_info":{"name":"run_command","parameters":{"CommandLine":"python3 -c 'print(6*7)'"},"output":"42\r\n"}}}"#;

    #[test]
    fn recorded_tool_step_round_trips_byte_for_byte() {
        let ev = StreamEvent::parse(TOOL_DONE).expect("parses");
        assert_eq!(ev.to_line(), format!("{TOOL_DONE}\n"));
    }

    #[test]
    fn unknown_event_name_is_an_error_naming_it() {
        let err = StreamEvent::parse(r#"{"event":"message"}"#).expect_err("rejects");
        assert!(err.to_string().contains("`message`"), "{err}");
    }
}
