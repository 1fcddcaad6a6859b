//! Stdin lines of the persistent `--input-format stream-json` mode (docs/agy-reference.md §4).

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One user line: `{"event":"user","message":{"role":"user","content":…}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserLine {
    /// Always `user` for a line agy accepts.
    pub event: String,
    /// The message.
    pub message: Message,
}

/// The `message` object; `role` may be omitted (§4.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Usually `user`; optional on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Plain text or a list of parts.
    pub content: Content,
}

/// Message content: a string, or `[{"type":"text","text":…}]` parts (§4.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// `"content":"<text>"`.
    Text(String),
    /// `"content":[{"type":"text","text":"<text>"}]`.
    Parts(Vec<ContentPart>),
}

/// One content part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentPart {
    /// Part type; `text` is the only one drivers send.
    #[serde(rename = "type")]
    pub kind: String,
    /// The text of a `text` part.
    #[serde(default)]
    pub text: String,
}

impl Content {
    /// The prompt text: the string, or the `text` parts joined.
    pub fn text(&self) -> String {
        match self {
            Content::Text(s) => s.clone(),
            Content::Parts(parts) => parts
                .iter()
                .filter(|p| p.kind == "text")
                .map(|p| p.text.as_str())
                .collect::<Vec<_>>()
                .join(""),
        }
    }
}

impl UserLine {
    /// A user line with string content and `role:"user"`, as most drivers write it.
    pub fn text(text: impl Into<String>) -> UserLine {
        UserLine {
            event: "user".to_string(),
            message: Message {
                role: Some("user".to_string()),
                content: Content::Text(text.into()),
            },
        }
    }

    /// The line as a driver writes it (compact JSON, `\n`-terminated).
    pub fn to_line(&self) -> String {
        crate::gojson::to_go_json_line(self)
    }
}

/// Why agy does not run a stdin line as a turn. The `Display` text of each variant is
/// agy's exact string where it is recorded (§4.2).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InputLineError {
    /// `{"type":"user",…}`: fatal `ERROR` result, exit 1 (PB trace `error-missing-event`).
    #[error("stream input message is missing the \"event\" field")]
    MissingEvent,
    /// An event other than `user`: a stderr warning, the line is skipped (BB, FM).
    #[error("ignoring unsupported stream input message event \"{0}\"")]
    UnsupportedEvent(String),
    /// `{"event":"user"}` (BB, FM; fatal or not is unrecorded).
    #[error("stream input \"user\" message is missing the \"message\" field")]
    MissingMessage,
    /// `{"event":"user","message":{"role":"user"}}` (BB, FM; fatal or not is unrecorded).
    #[error("stream input \"user\" message has no content")]
    NoContent,
    /// Not a JSON object: agy's Go decoder's reason (`gb-1.1.18-decode-error`: `failed
    /// to decode stream input: invalid character 'r' looking for beginning of value`).
    /// Only a line that cannot start a JSON value is recorded; other reasons keep
    /// serde's wording.
    #[error("failed to decode stream input: {0}")]
    NotJson(String),
}

impl InputLineError {
    /// True when agy goes on reading after this line (only the unsupported-event case is
    /// recorded as a warning; the others are modelled as fatal, see docs).
    pub fn is_warning(&self) -> bool {
        matches!(self, InputLineError::UnsupportedEvent(_))
    }
}

/// Go's `encoding/json` reason for a line whose first character cannot start a JSON
/// value (`gb-1.1.18-decode-error`); `None` for any other line.
fn go_decode_reason(line: &str) -> Option<String> {
    let c = line
        .trim_start_matches([' ', '\t', '\r', '\n'])
        .chars()
        .next()?;
    let starts_value = matches!(c, '{' | '[' | '"' | '-' | '0'..='9' | 't' | 'f' | 'n');
    (!starts_value).then(|| format!("invalid character '{c}' looking for beginning of value"))
}

/// Parses one stdin line (without its newline) the way agy does.
pub fn parse_input_line(line: &str) -> Result<UserLine, InputLineError> {
    let value: serde_json::Value = serde_json::from_str(line)
        .map_err(|e| InputLineError::NotJson(go_decode_reason(line).unwrap_or(e.to_string())))?;
    let obj = value
        .as_object()
        .ok_or_else(|| InputLineError::NotJson("not a JSON object".to_string()))?;
    let event = match obj.get("event") {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(_) | None => return Err(InputLineError::MissingEvent),
    };
    if event != "user" {
        return Err(InputLineError::UnsupportedEvent(event));
    }
    let message = match obj.get("message") {
        Some(m) if !m.is_null() => m,
        _ => return Err(InputLineError::MissingMessage),
    };
    let role = message
        .get("role")
        .and_then(|r| r.as_str())
        .map(str::to_string);
    let content = match message.get("content") {
        Some(serde_json::Value::String(s)) if !s.is_empty() => Content::Text(s.clone()),
        Some(v @ serde_json::Value::Array(items)) if !items.is_empty() => {
            serde_json::from_value::<Vec<ContentPart>>(v.clone())
                .map(Content::Parts)
                .map_err(|_| InputLineError::NoContent)?
        }
        _ => return Err(InputLineError::NoContent),
    };
    Ok(UserLine {
        event,
        message: Message { role, content },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn both_content_forms_give_the_same_prompt() {
        let a = parse_input_line(r#"{"event":"user","message":{"role":"user","content":"hi"}}"#)
            .expect("string form");
        let b = parse_input_line(
            r#"{"event":"user","message":{"content":[{"type":"text","text":"hi"}]}}"#,
        )
        .expect("parts form without role");
        assert_eq!(a.message.content.text(), "hi");
        assert_eq!(b.message.content.text(), "hi");
        assert_eq!(b.message.role, None);
    }

    #[test]
    fn a_line_that_cannot_start_json_gets_gos_reason() {
        // gb-1.1.18-decode-error (traces/upstream/GobbyAI__gobby__decode-error-1.1.18.ndjson).
        let e = parse_input_line("raw text").expect_err("not JSON");
        assert_eq!(
            e.to_string(),
            "failed to decode stream input: invalid character 'r' looking for beginning of value"
        );
        let e = parse_input_line("{\"event\"").expect_err("cut");
        assert!(
            e.to_string().starts_with("failed to decode stream input: "),
            "{e}"
        );
    }

    #[test]
    fn claude_style_line_is_missing_the_event_field() {
        let err = parse_input_line(r#"{"type":"user","message":{"content":"x"}}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "stream input message is missing the \"event\" field"
        );
    }

    #[test]
    fn malformed_lines_get_the_recorded_strings() {
        assert_eq!(
            parse_input_line(r#"{"event":"user_message"}"#)
                .unwrap_err()
                .to_string(),
            "ignoring unsupported stream input message event \"user_message\""
        );
        assert_eq!(
            parse_input_line(r#"{"event":"user"}"#)
                .unwrap_err()
                .to_string(),
            "stream input \"user\" message is missing the \"message\" field"
        );
        assert_eq!(
            parse_input_line(r#"{"event":"user","message":{"role":"user"}}"#)
                .unwrap_err()
                .to_string(),
            "stream input \"user\" message has no content"
        );
    }

    fn arb_line() -> impl Strategy<Value = UserLine> {
        let text = "\\PC{1,40}";
        let content = prop_oneof![
            text.prop_map(Content::Text),
            proptest::collection::vec(
                text.prop_map(|t| ContentPart {
                    kind: "text".into(),
                    text: t
                }),
                1..4
            )
            .prop_map(Content::Parts),
        ];
        (proptest::option::of(Just("user".to_string())), content).prop_map(|(role, content)| {
            UserLine {
                event: "user".into(),
                message: Message { role, content },
            }
        })
    }

    proptest! {
        #[test]
        fn arbitrary_input_never_panics(s in "\\PC*") {
            let _ = parse_input_line(&s);
        }

        #[test]
        fn rendered_lines_parse_back_to_the_same_model(line in arb_line()) {
            let text = line.to_line();
            let parsed = parse_input_line(text.trim_end_matches('\n')).expect("round trip");
            prop_assert_eq!(parsed, line);
        }
    }
}
