//! The JSON-RPC errors Antigravity answers with, and request params read into their
//! schema types (answering `-32602` when they do not fit).

use agent_client_protocol_schema::v1::Error as RpcError;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// Parses params into their schema type, or the `-32602` Antigravity sends: a
/// pydantic-style `data.errors` list (docs/agy-acp-reference.md §2.4, §2.10).
pub(crate) fn typed<T: DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    let params = if params.is_null() { json!({}) } else { params };
    serde_json::from_value(params).map_err(|e| {
        let text = e.to_string();
        let missing = text
            .strip_prefix("missing field `")
            .and_then(|rest| rest.split('`').next())
            .map(str::to_string);
        let error = match missing {
            Some(field) => {
                json!({"loc": [field], "msg": "field required", "type": "value_error.missing"})
            }
            None => json!({"loc": [], "msg": text, "type": "value_error"}),
        };
        RpcError::new(-32602, "Invalid params").data(json!({ "errors": [error] }))
    })
}

/// `-32601` with `data.method` (docs/agy-acp-reference.md §2.10).
pub(crate) fn method_not_found(method: &str) -> RpcError {
    RpcError::new(-32601, "Method not found").data(json!({ "method": method }))
}

/// `-32000 Authentication required` naming `authenticate` and the `settings.json`
/// alternative (docs/agy-acp-reference.md §2.4, §6.2).
pub(crate) fn auth_required() -> RpcError {
    RpcError::new(-32000, "Authentication required").data(json!({
        "message": "Call authenticate (oauth-personal, oauth-business, gemini-api-key, agent-platform) or set auth.type in settings.json"
    }))
}

pub(crate) fn to_value<T: serde::Serialize>(v: &T) -> Result<Value, RpcError> {
    serde_json::to_value(v).map_err(|e| RpcError::new(-32603, format!("Internal error: {e}")))
}
