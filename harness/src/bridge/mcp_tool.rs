//! The adapter's agy tool as the bridge calls it: its name and which arguments take the
//! prompt, model, conversation and timeout (the adapter config's `[mcp]` table), and
//! the reply a tool result comes to.

use super::mcp_class::ToolClass;
use super::mcp_error::ArgumentError;
use agy_protocol::driver::{ErrorInfo, OpResult, Reply};
use rmcp::model::{CallToolResult, JsonObject};

/// How the tool takes its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolShape {
    /// The tool's name.
    pub tool: String,
    /// The argument that takes the prompt.
    pub prompt_arg: String,
    /// The argument that takes the model.
    pub model_arg: Option<String>,
    /// The argument that takes the conversation.
    pub conversation_arg: Option<String>,
    /// The argument that takes the timeout in seconds.
    pub timeout_arg: Option<String>,
    /// The tool that continues a conversation, when it is not `tool`.
    pub continue_tool: Option<String>,
    /// What the conversation argument takes for a handle.
    pub conversation_from: crate::mcp_table::ConversationFrom,
    /// The field of a result that names its conversation.
    pub conversation_field: String,
    /// Arguments every call carries.
    pub fixed: JsonObject,
}

/// What a `tool_call` asks for.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolAsk {
    /// The prompt.
    pub prompt: String,
    /// The model.
    pub model: Option<String>,
    /// The conversation argument's value (the handle, or the id a result named).
    pub conversation: Option<String>,
    /// The timeout in seconds.
    pub timeout_s: Option<f64>,
}

impl ToolShape {
    /// The tool's arguments for `ask`; an error names a value the tool has no argument
    /// for. A timeout is the caller's bound on the call, not part of what it asks: a
    /// tool with no timeout argument runs on its own, and the scenarios about the
    /// caller's timeout require `caller-timeout`, which such a tool does not offer.
    pub fn arguments(&self, ask: &ToolAsk) -> Result<JsonObject, ArgumentError> {
        let mut args = self.fixed.clone();
        args.insert(self.prompt_arg.clone(), ask.prompt.clone().into());
        if let (Some(name), Some(t)) = (&self.timeout_arg, ask.timeout_s) {
            args.insert(name.clone(), seconds(t));
        }
        let optional = [
            ("model", &self.model_arg, ask.model.clone().map(Into::into)),
            (
                "conversation",
                &self.conversation_arg,
                ask.conversation.clone().map(Into::into),
            ),
        ];
        for (what, name, value) in optional {
            let Some(value) = value else { continue };
            let Some(name) = name else {
                return Err(ArgumentError::NoArgumentFor(what));
            };
            args.insert(name.clone(), value);
        }
        Ok(args)
    }
}

/// Seconds as JSON: a whole number as an integer (a schema may say `integer`).
fn seconds(s: f64) -> serde_json::Value {
    if s.fract() == 0.0 && s.abs() < 1e15 {
        serde_json::Value::from(s as i64)
    } else {
        serde_json::Value::from(s)
    }
}

/// The field a tool result names its conversation in, unless `[mcp]
/// conversation_field` names another.
pub const DEFAULT_CONVERSATION_FIELD: &str = "conversation_id";

/// The conversation id a tool result names in `field`: `structuredContent.<field>`, else
/// the field of its text when the text is a JSON object (`null` names none), else
/// `<field>` in its text followed by `=`, `:` or `":"` and the id.
pub fn named_conversation(result: &CallToolResult, field: &str) -> Option<String> {
    let from_json = |v: &serde_json::Value| -> Option<Option<String>> {
        let value = v.get(field)?;
        Some(
            value
                .as_str()
                .filter(|id| !id.is_empty())
                .map(str::to_string),
        )
    };
    if let Some(named) = result.structured_content.as_ref().and_then(from_json) {
        return named;
    }
    let text = result_text(result);
    if let Ok(object) = serde_json::from_str::<serde_json::Value>(text.trim()) {
        if let Some(named) = from_json(&object) {
            return named;
        }
    }
    let at = text.find(field)? + field.len();
    let rest = text[at..].trim_start_matches(['"', ':', '=', ' ']);
    let id: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    (!id.is_empty()).then_some(id)
}

/// The text of a tool result: its text blocks, joined by newlines.
pub fn result_text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The reply to request `id` that a tool result comes to: a success (not `isError`)
/// with its text, or a failure of the class the text names.
pub fn tool_reply(id: u64, result: &CallToolResult) -> Reply {
    let text = result_text(result);
    let result_part = OpResult {
        text: Some(text.clone()),
        ..OpResult::default()
    };
    if result.is_error != Some(true) {
        return Reply {
            id,
            ok: true,
            outcome: Some(agy_protocol::driver::Outcome::Success),
            retryable: None,
            error: None,
            result: result_part,
        };
    }
    let class = ToolClass::of(&text);
    Reply {
        id,
        ok: false,
        outcome: Some(class.outcome()),
        retryable: Some(class.outcome().default_retryable()),
        error: Some(ErrorInfo {
            name: class.as_str().to_string(),
            message: text,
            hint: None,
        }),
        result: result_part,
    }
}

/// A failure of the bridge's own, not a tool result: what its reply's error is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BridgeFailure {
    /// The MCP server did not start or initialise.
    Start,
    /// A JSON-RPC error instead of a tool result (`tools/list`, `tools/call`).
    Mcp,
    /// A request the bridge cannot make a call of.
    BadRequest,
}

impl BridgeFailure {
    /// Every failure, for telling the bridge's replies from an adapter's.
    pub const ALL: [BridgeFailure; 3] = [
        BridgeFailure::Start,
        BridgeFailure::Mcp,
        BridgeFailure::BadRequest,
    ];

    /// The error name its reply carries.
    pub fn as_str(self) -> &'static str {
        match self {
            BridgeFailure::Start => "McpStartError",
            BridgeFailure::Mcp => "McpError",
            BridgeFailure::BadRequest => "BadRequestError",
        }
    }

    /// Whether an error named `name` is a failure of the bridge's own.
    pub fn is_named(name: &str) -> bool {
        BridgeFailure::ALL.iter().any(|f| f.as_str() == name)
    }
}

/// A failure reply of the bridge's own: a JSON-RPC error instead of a tool result, a
/// server that is gone, a bad request. It has no outcome class: a host cannot act on
/// it as on a tool result.
pub fn bridge_failure(id: u64, failure: BridgeFailure, message: String) -> Reply {
    Reply {
        id,
        ok: false,
        outcome: None,
        retryable: None,
        error: Some(ErrorInfo {
            name: failure.as_str().to_string(),
            message,
            hint: None,
        }),
        result: OpResult::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::driver::Outcome;
    use rmcp::model::ContentBlock;

    fn shape() -> ToolShape {
        ToolShape {
            tool: "ask".into(),
            prompt_arg: "q".into(),
            model_arg: Some("m".into()),
            conversation_arg: None,
            timeout_arg: Some("t".into()),
            continue_tool: None,
            conversation_from: crate::mcp_table::ConversationFrom::Handle,
            conversation_field: DEFAULT_CONVERSATION_FIELD.into(),
            fixed: JsonObject::new(),
        }
    }

    #[test]
    fn a_result_names_its_conversation_in_text_or_structure() {
        let text = |t: &str| CallToolResult::success(vec![ContentBlock::text(t)]);
        let cases = [
            (
                "PONG\n\n[agy] status=SUCCESS conversation_id=4b1f-9c total_tokens=3",
                Some("4b1f-9c"),
            ),
            (
                "{\"conversation_id\":\"abc_1\",\"status\":\"SUCCESS\"}",
                Some("abc_1"),
            ),
            ("conversation_id: x9", Some("x9")),
            ("no id here", None),
            ("conversation_id=", None),
        ];
        for (t, want) in cases {
            assert_eq!(
                named_conversation(&text(t), DEFAULT_CONVERSATION_FIELD).as_deref(),
                want,
                "{t}"
            );
        }
        let mut structured = text("PONG");
        structured.structured_content = Some(serde_json::json!({"conversation_id": "s-1"}));
        assert_eq!(
            named_conversation(&structured, DEFAULT_CONVERSATION_FIELD).as_deref(),
            Some("s-1")
        );
    }

    /// agy-mcp 0.1.9 names the conversation `SESSION_ID` (agy_mcp/models.py:328).
    #[test]
    fn a_null_conversation_names_none() {
        // Regression: agenthub-gateway 1.2.4 answers `"session_id": null` when agy
        // named no conversation; it was read as the id `null`.
        let text = |t: &str| CallToolResult::success(vec![ContentBlock::text(t)]);
        let r = text("{\"ok\": true, \"reply\": \"hi\", \"session_id\": null}");
        assert_eq!(named_conversation(&r, "session_id"), None);
        let named = text("{\"ok\": true, \"session_id\": \"c-1\"}");
        assert_eq!(
            named_conversation(&named, "session_id").as_deref(),
            Some("c-1")
        );
    }

    #[test]
    fn a_conversation_named_in_another_field_is_read_from_that_field() {
        let text = |t: &str| CallToolResult::success(vec![ContentBlock::text(t)]);
        let r = text("{\"success\": true, \"SESSION_ID\": \"c-42\", \"agent_messages\": \"PONG\"}");
        assert_eq!(
            named_conversation(&r, "SESSION_ID").as_deref(),
            Some("c-42")
        );
        assert_eq!(named_conversation(&r, DEFAULT_CONVERSATION_FIELD), None);
    }

    #[test]
    fn a_timeout_without_a_timeout_argument_is_left_to_the_tool() {
        let mut s = shape();
        s.timeout_arg = None;
        let ask = ToolAsk {
            prompt: "p".into(),
            timeout_s: Some(600.0),
            ..ToolAsk::default()
        };
        let args = s.arguments(&ask).expect("a timeout is not refused");
        assert_eq!(
            serde_json::Value::Object(args),
            serde_json::json!({"q": "p"})
        );
        let with_conversation = ToolAsk {
            conversation: Some("c".into()),
            ..ask
        };
        assert!(
            s.arguments(&with_conversation).is_err(),
            "a conversation still is"
        );
    }

    #[test]
    fn whole_seconds_are_integers_and_fixed_arguments_are_kept() {
        let mut s = shape();
        s.fixed.insert("directory".into(), ".".into());
        let ask = ToolAsk {
            prompt: "p".into(),
            timeout_s: Some(600.0),
            ..ToolAsk::default()
        };
        let args = s.arguments(&ask).expect("mapped");
        assert_eq!(
            serde_json::Value::Object(args),
            serde_json::json!({"directory": ".", "q": "p", "t": 600})
        );
        assert_eq!(seconds(1.5), serde_json::json!(1.5));
    }

    #[test]
    fn arguments_are_named_as_the_config_says() {
        let ask = ToolAsk {
            prompt: "hi".into(),
            model: Some("gemini".into()),
            timeout_s: Some(5.0),
            ..ToolAsk::default()
        };
        let args = shape().arguments(&ask).expect("mapped");
        assert_eq!(
            serde_json::Value::Object(args),
            serde_json::json!({"q": "hi", "m": "gemini", "t": 5})
        );
    }

    #[test]
    fn a_value_without_an_argument_is_refused_by_name() {
        let ask = ToolAsk {
            prompt: "hi".into(),
            conversation: Some("c1".into()),
            ..ToolAsk::default()
        };
        let err = shape()
            .arguments(&ask)
            .expect_err("no conversation argument");
        assert!(
            matches!(err, ArgumentError::NoArgumentFor("conversation")),
            "{err:?}"
        );
    }

    #[test]
    fn an_error_result_is_a_failure_of_the_class_its_text_names() {
        let r = CallToolResult::error(vec![ContentBlock::text("agy: quota exhausted")]);
        let reply = tool_reply(3, &r);
        assert!(!reply.ok);
        assert_eq!(reply.outcome, Some(Outcome::Transient));
        assert_eq!(reply.error.map(|e| e.name), Some("quota".to_string()));
        let ok = CallToolResult::success(vec![ContentBlock::text("PONG")]);
        let reply = tool_reply(4, &ok);
        assert_eq!(reply.outcome, Some(Outcome::Success));
        assert_eq!(reply.result.text.as_deref(), Some("PONG"));
    }
}
