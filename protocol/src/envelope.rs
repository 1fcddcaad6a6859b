//! The single JSON envelope of `--output-format json`, which is also the payload of the
//! stream-json `result` event (docs/agy-reference.md §2.1, §3.4).

use crate::gojson::to_go_json_line;
use crate::layout::Layout;
use crate::status::Status;
use crate::usage::Usage;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One envelope. Field order is the order agy emits; optional fields are omitted when
/// empty, as Go's `omitempty` does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// The conversation's UUID; `""` for pre-turn errors and slash commands.
    pub conversation_id: String,
    /// Run status.
    pub status: Status,
    /// Final answer text (may be empty on SUCCESS and non-empty on ERROR).
    pub response: String,
    /// Error text; present only when non-empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
    /// Turn wall time in seconds; integer `0` for pre-turn errors and timeouts.
    pub duration_seconds: f64,
    /// User turns in the conversation so far.
    pub num_turns: u64,
    /// The answer constrained by `--json-schema` (the `finish` tool's parameters),
    /// between `num_turns` and `usage` (untether `json_schema_finish`, agy 1.3.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<serde_json::Value>,
    /// The `--json-schema` document, echoed after `structured_output` (same capture).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<serde_json::Value>,
    /// Cumulative token usage of the conversation.
    pub usage: Usage,
    /// Tools headless mode auto-denied (1.2.7+).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub denied_actions: Vec<DeniedAction>,
    /// Slash-command payload (`{"name":…,"data":…}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<serde_json::Value>,
    /// Keys the types do not name, in wire order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// Where each key stood on the wire, when parsed.
    #[serde(skip)]
    pub layout: Layout,
}

/// One entry of `denied_actions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeniedAction {
    /// Permission kind: `command`, `mcp`, …
    pub action: String,
    /// The tool's display name: `RunCommand`, `CallMcpTool`, …
    pub display_name: String,
    /// Keys the types do not name, in wire order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Envelope {
    /// An envelope with everything empty and zero, for `status`.
    pub fn empty(conversation_id: impl Into<String>, status: Status) -> Envelope {
        Envelope {
            conversation_id: conversation_id.into(),
            status,
            response: String::new(),
            error: String::new(),
            duration_seconds: 0.0,
            num_turns: 0,
            usage: Usage::ZERO,
            denied_actions: Vec::new(),
            command: None,
            structured_output: None,
            json_schema: None,
            extra: Map::new(),
            layout: Layout::default(),
        }
    }

    /// A pre-turn `ERROR` envelope: empty conversation id, zero usage (§1.4, §2.2).
    pub fn pre_turn_error(error: impl Into<String>) -> Envelope {
        Envelope {
            error: error.into(),
            ..Envelope::empty("", Status::Error)
        }
    }

    /// The line agy prints for this envelope in `--output-format json`.
    pub fn to_line(&self) -> String {
        if self.layout.is_canonical() {
            return to_go_json_line(self);
        }
        to_go_json_line(&self.to_value())
    }

    /// The wire object, keys in agy's order.
    pub fn to_value(&self) -> Value {
        self.layout
            .apply(serde_json::to_value(self).unwrap_or(Value::Null))
    }

    /// Reads an envelope from its wire object, remembering its key order.
    pub fn from_value(original: Value) -> Result<Envelope, serde_json::Error> {
        let mut env: Envelope = serde_json::from_value(original.clone())?;
        let canonical = serde_json::to_value(&env)?;
        env.layout = Layout::capture(&original, &canonical);
        Ok(env)
    }

    /// Parses one envelope from JSON text.
    pub fn parse(text: &str) -> Result<Envelope, serde_json::Error> {
        Envelope::from_value(serde_json::from_str(text)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pong_envelope_renders_byte_identical() {
        // docs/agy-reference.md §2.2 item 1 / the success-pong trace's result payload.
        let text = r#"{"conversation_id":"e1fea50a-738b-40bd-beb4-249481d6ab1e","status":"SUCCESS","response":"PONG\n","duration_seconds":2.696430565,"num_turns":1,"usage":{"input_tokens":12555,"output_tokens":214,"thinking_tokens":212,"cache_read_tokens":0,"total_tokens":12769}}"#;
        let env = Envelope::parse(text).expect("parses");
        assert_eq!(env.to_line(), format!("{text}\n"));
    }

    #[test]
    fn agy_1_3_1_structured_output_order_and_json_schema_round_trip() {
        let text = r#"{"conversation_id":"c","status":"SUCCESS","response":"{}\n","duration_seconds":7.35,"num_turns":1,"structured_output":{"count":3,"answer":"a"},"json_schema":{"type":"object"},"usage":{"input_tokens":1,"output_tokens":2,"thinking_tokens":0,"cache_read_tokens":0,"total_tokens":3}}"#;
        let env = Envelope::parse(text).expect("parses");
        let schema = env
            .json_schema
            .as_ref()
            .expect("json_schema is a named field");
        assert_eq!(schema["type"], "object");
        assert_eq!(env.to_line(), format!("{text}\n"));
    }

    #[test]
    fn pre_turn_error_has_zero_usage_and_no_conversation() {
        let line = Envelope::pre_turn_error("boom").to_line();
        assert_eq!(
            line,
            "{\"conversation_id\":\"\",\"status\":\"ERROR\",\"response\":\"\",\"error\":\"boom\",\"duration_seconds\":0,\"num_turns\":0,\"usage\":{\"input_tokens\":0,\"output_tokens\":0,\"thinking_tokens\":0,\"cache_read_tokens\":0,\"total_tokens\":0}}\n"
        );
    }
}
