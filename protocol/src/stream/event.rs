//! The three stream-json events: `init`, `step_update`, `result` (docs/agy-reference.md §3).
//!
//! Wire form: `{"event":"<name>","<name>":{…}}`, the payload nested under a key equal to
//! the event name; `init` also carries `conversation_id` at the top level (§3.2).

use crate::envelope::Envelope;
use crate::gojson::to_go_json_line;
use crate::layout::Layout;
use crate::usage::Usage;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// One line of stream-json output.
// Events live one at a time, a line each; boxing the payloads would only burden users.
#[allow(clippy::large_enum_variant)]
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
    /// An event the types do not know (agy 1.1.18's `command_result`), or a known one
    /// whose top-level keys are not the usual ones, kept whole in wire order.
    Other(Map<String, Value>),
}

/// The `init` payload. Keys in emitted order: `model` (only when `--model` was passed),
/// `cwd`, `tools` (sorted), `permission_mode` (§3.2).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
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
    /// Keys the types do not name, in wire order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// Where each key stood on the wire, when parsed.
    #[serde(skip)]
    pub layout: Layout,
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
    /// Keys the types do not name (`subagent_info`, 1.1.17's step-level `output`), in
    /// wire order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// Where each key stood on the wire, when parsed.
    #[serde(skip)]
    pub layout: Layout,
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
    /// Keys the types do not name, in wire order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{type, message}`, e.g. `TOOL_ERROR`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepError {
    /// Error kind, e.g. `TOOL_ERROR`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Human-readable message.
    pub message: String,
    /// Keys the types do not name, in wire order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
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

impl StreamEvent {
    /// The wire object of this event, keys in agy's order.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        let (name, payload) = match self {
            StreamEvent::Other(fields) => return Value::Object(fields.clone()),
            StreamEvent::Init {
                conversation_id,
                init,
            } => {
                m.insert("event".into(), "init".into());
                m.insert("conversation_id".into(), conversation_id.clone().into());
                ("init", init.layout.apply(to_value(init)))
            }
            StreamEvent::StepUpdate(step) => {
                m.insert("event".into(), "step_update".into());
                ("step_update", step.layout.apply(to_value(step)))
            }
            StreamEvent::Result(env) => {
                m.insert("event".into(), "result".into());
                ("result", env.to_value())
            }
        };
        m.insert(name.into(), payload);
        Value::Object(m)
    }

    /// Reads an event from its wire object; an unknown event, or a known one with
    /// unusual top-level keys, becomes [`StreamEvent::Other`].
    pub fn from_value(value: Value) -> Result<StreamEvent, serde_json::Error> {
        let Value::Object(m) = value else {
            return Err(serde_json::Error::custom(
                "a stream-json event is a JSON object",
            ));
        };
        let Some(Value::String(name)) = m.get("event") else {
            return Err(serde_json::Error::missing_field("event"));
        };
        let keys: Vec<&str> = m.keys().map(String::as_str).collect();
        let payload = |key: &str| m.get(key).cloned().unwrap_or(Value::Null);
        Ok(match (name.as_str(), keys.as_slice()) {
            ("init", ["event", "conversation_id", "init"]) => StreamEvent::Init {
                conversation_id: String::deserialize(payload("conversation_id"))?,
                init: {
                    let original = payload("init");
                    let mut init: Init = serde_json::from_value(original.clone())?;
                    init.layout = Layout::capture(&original, &to_value(&init));
                    init
                },
            },
            ("step_update", ["event", "step_update"]) => {
                let original = payload("step_update");
                let mut step: StepUpdate = serde_json::from_value(original.clone())?;
                step.layout = Layout::capture(&original, &to_value(&step));
                StreamEvent::StepUpdate(step)
            }
            ("result", ["event", "result"]) => {
                StreamEvent::Result(Envelope::from_value(payload("result"))?)
            }
            _ => StreamEvent::Other(m),
        })
    }
}

fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

impl Serialize for StreamEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for StreamEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        StreamEvent::from_value(Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

impl StreamEvent {
    /// The stdout line for this event, Go-encoded, with its `\n`.
    pub fn to_line(&self) -> String {
        to_go_json_line(&self.to_value())
    }

    /// Parses one stdout line.
    pub fn parse(line: &str) -> Result<StreamEvent, serde_json::Error> {
        serde_json::from_str(line)
    }

    /// The conversation id this event belongs to (`""` for an unknown event without one).
    pub fn conversation_id(&self) -> &str {
        match self {
            StreamEvent::Other(m) => m
                .get("conversation_id")
                .and_then(Value::as_str)
                .unwrap_or(""),
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
            extra: Map::new(),
            layout: Layout::default(),
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
    fn unknown_event_is_kept_whole_and_a_line_without_event_is_an_error() {
        let line = r#"{"event":"command_result","command":{"name":"models","data":{"b":1,"a":2}}}"#;
        let ev = StreamEvent::parse(line).expect("parses");
        assert!(matches!(ev, StreamEvent::Other(_)));
        assert_eq!(ev.to_line(), format!("{line}\n"));
        let err = StreamEvent::parse(r#"{"type":"result"}"#).expect_err("rejects");
        assert!(err.to_string().contains("`event`"), "{err}");
    }

    #[test]
    fn unknown_keys_keep_their_place_and_order() {
        // agy 1.1.27: `subagent_info` after `tool_name`; agy 1.1.17: `output` after
        // `tool_info` on the step itself.
        for line in [
            r#"{"event":"step_update","step_update":{"conversation_id":"c","step_index":2,"state":"ACTIVE","step_type":"subagent","tool_name":"invoke_subagent","subagent_info":{"subagents":[{"type_name":"research","role":"R"}]},"duration_seconds":1.5}}"#,
            r#"{"event":"step_update","step_update":{"conversation_id":"c","step_index":3,"state":"DONE","step_type":"tool","tool_name":"view_file","duration_seconds":0.061531,"tool_info":{"name":"view_file","parameters":{"AbsolutePath":"/t"},"x":1},"output":"55 lines"}}"#,
        ] {
            let ev = StreamEvent::parse(line).expect("parses");
            assert_eq!(ev.to_line(), format!("{line}\n"));
        }
    }

    fn arb_extra() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            any::<i64>().prop_map(Value::from),
            (-1e9f64..1e9).prop_map(Value::from),
            "[ -~<>&\u{e9}\n]{0,12}".prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
            Just(Value::Null),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
                proptest::collection::vec(("x_[a-z]{1,6}", inner), 0..3)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn generated_steps_with_unknown_keys_anywhere_round_trip(
            text in proptest::option::of("[ -~<>&]{0,10}"),
            tool in proptest::option::of("[a-z_]{1,10}"),
            duration in proptest::option::of(0.0f64..1000.0),
            extras in proptest::collection::vec(("x_[a-z]{1,8}", arb_extra(), 0usize..12), 0..4),
        ) {
            let mut step = StepUpdate::new("c", 3, StepState::Done, StepType::Tool);
            step.text_delta = text;
            step.tool_name = tool.clone();
            step.duration_seconds = duration;
            step.tool_info = tool.map(|name| ToolInfo {
                name,
                parameters: serde_json::json!({"B": 1, "A": "<x>"}),
                output: None,
                error: None,
                extra: Map::new(),
            });
            // The wire object: the known keys, with unknown ones inserted anywhere.
            let Value::Object(known) = to_value(&step) else { unreachable!() };
            let mut entries: Vec<(String, Value)> = known.into_iter().collect();
            for (key, value, at) in extras {
                if entries.iter().any(|(k, _)| *k == key) {
                    continue;
                }
                let at = at.min(entries.len());
                entries.insert(at, (key, value));
            }
            let line = crate::gojson::to_go_json(&serde_json::json!({
                "event": "step_update",
                "step_update": Value::Object(entries.into_iter().collect()),
            }));
            let ev = StreamEvent::parse(&line).map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            proptest::prop_assert_eq!(ev.to_line(), format!("{line}\n"));
        }
    }
}
