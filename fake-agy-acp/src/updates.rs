//! Typed `session/update` payloads and the permission request, built with the schema
//! crate (docs/agy-acp-reference.md §1.8, §1.9, §2.7).

use agent_client_protocol_schema::v1::{
    AvailableCommandsUpdate, ContentBlock, ContentChunk, Diff, PermissionOption,
    PermissionOptionKind, RequestPermissionRequest, SessionNotification, SessionUpdate,
    TextContent, ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind, UsageUpdate,
};
use agy_protocol::acp::PermissionOutcome;
use serde_json::{json, Value};

use super::catalog;

/// A `session/update` notification's params.
pub(crate) fn notification(session_id: &str, update: SessionUpdate) -> Value {
    let is_call = matches!(update, SessionUpdate::ToolCall(_));
    let mut value = serde_json::to_value(SessionNotification::new(session_id.to_string(), update))
        .unwrap_or(Value::Null);
    if is_call {
        explicit_pending(value.pointer_mut("/update"));
    }
    value
}

/// The schema crate leaves out `status` when it is `pending` (its default), but
/// Antigravity writes `"status":"pending"` on a gated call (docs/agy-acp-reference.md §2.7, §6.3).
pub(crate) fn explicit_pending(object: Option<&mut Value>) {
    if let Some(Value::Object(m)) = object {
        m.entry("status").or_insert_with(|| json!("pending"));
    }
}

/// `agent_message_chunk` with text.
pub(crate) fn agent_text(text: &str) -> SessionUpdate {
    SessionUpdate::AgentMessageChunk(ContentChunk::new(ContentBlock::Text(TextContent::new(
        text,
    ))))
}

/// `agent_thought_chunk` with text.
pub(crate) fn thought_text(text: &str) -> SessionUpdate {
    SessionUpdate::AgentThoughtChunk(ContentChunk::new(ContentBlock::Text(TextContent::new(
        text,
    ))))
}

/// `user_message_chunk` with text (replay, docs/agy-acp-reference.md §2.9).
pub(crate) fn user_text(text: &str) -> SessionUpdate {
    SessionUpdate::UserMessageChunk(ContentChunk::new(ContentBlock::Text(TextContent::new(
        text,
    ))))
}

/// `available_commands_update` with `plan` and `logout` (docs/agy-acp-reference.md §2.5).
pub(crate) fn commands() -> SessionUpdate {
    SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(catalog::commands()))
}

/// `usage_update` (docs/agy-acp-reference.md §1.8, §2.6).
pub(crate) fn usage(used: u64, size: u64) -> SessionUpdate {
    SessionUpdate::UsageUpdate(UsageUpdate::new(used, size))
}

/// Parses a tool kind name (`edit`, `read`, …); unknown names become `other`.
pub(crate) fn tool_kind(name: &str) -> ToolKind {
    serde_json::from_value(Value::String(name.to_string())).unwrap_or(ToolKind::Other)
}

/// Parses a tool status name; unknown names become `pending`.
pub(crate) fn tool_status(name: &str) -> ToolCallStatus {
    serde_json::from_value(Value::String(name.to_string())).unwrap_or(ToolCallStatus::Pending)
}

/// A gated edit as Antigravity sends it: `kind: edit`, `status: pending`, a diff with
/// `_meta.kind = "add"` and no `oldText`, `locations`, and vendor `rawInput` keys
/// (docs/agy-acp-reference.md §2.7, §6.3).
pub(crate) fn tool_call(
    id: &str,
    title: &str,
    kind: &str,
    status: &str,
    file: Option<(&str, &str)>,
) -> ToolCall {
    let mut call = ToolCall::new(id.to_string(), title.to_string())
        .kind(tool_kind(kind))
        .status(tool_status(status));
    if let Some((path, new_text)) = file {
        let mut meta = serde_json::Map::new();
        meta.insert("kind".into(), json!("add"));
        call = call
            .locations(vec![ToolCallLocation::new(path.to_string())])
            .content(vec![ToolCallContent::Diff(
                Diff::new(path.to_string(), new_text.to_string()).meta(meta),
            )])
            .raw_input(json!({ "target_file": path, "code_content": new_text }));
    }
    call
}

/// A `tool_call_update` with a new status and an optional display `rawOutput`.
pub(crate) fn tool_update(id: &str, status: &str, output: Option<&str>) -> SessionUpdate {
    let mut fields = ToolCallUpdateFields::new().status(tool_status(status));
    if let Some(text) = output {
        fields = fields.raw_output(Value::String(text.to_string()));
    }
    SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id.to_string(), fields))
}

/// The full tool call as a `ToolCallUpdate`, for the permission request (Antigravity
/// sends the whole call including the diff, docs/agy-acp-reference.md §2.7).
pub(crate) fn call_as_update(call: &ToolCall) -> ToolCallUpdate {
    let fields = ToolCallUpdateFields::new()
        .title(call.title.clone())
        .kind(call.kind)
        .status(call.status)
        .content(call.content.clone())
        .locations(call.locations.clone())
        .raw_input(call.raw_input.clone());
    ToolCallUpdate::new(call.tool_call_id.clone(), fields)
}

/// Exactly `allow` (allow_once) and `deny` (reject_once): no `*_always` (docs/agy-acp-reference.md §2.7).
pub(crate) fn permission_options() -> Vec<PermissionOption> {
    vec![
        PermissionOption::new(
            PermissionOutcome::Allow.to_string(),
            "Allow",
            PermissionOptionKind::AllowOnce,
        ),
        PermissionOption::new(
            PermissionOutcome::Deny.to_string(),
            "Deny",
            PermissionOptionKind::RejectOnce,
        ),
    ]
}

/// A question as a permission request: `interaction_<n>` id, one `allow_once` option
/// per answer (docs/agy-acp-reference.md §2.7, §6.7; option ids are unrecorded).
pub(crate) fn question(
    session_id: &str,
    id: &str,
    text: &str,
    answers: &[String],
) -> RequestPermissionRequest {
    let fields = ToolCallUpdateFields::new().title(text.to_string());
    let options = answers
        .iter()
        .enumerate()
        .map(|(i, a)| {
            PermissionOption::new(
                PermissionOutcome::answer_option_id(i),
                a.clone(),
                PermissionOptionKind::AllowOnce,
            )
        })
        .collect();
    RequestPermissionRequest::new(
        session_id.to_string(),
        ToolCallUpdate::new(id.to_string(), fields),
        options,
    )
}
