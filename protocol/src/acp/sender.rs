//! Who sends an ACP method: the client (`initialize`, `session/*` calls) or the agent
//! (`session/update`, `session/request_permission`, `fs/*`, `terminal/*`), read from the
//! method tables of `agent-client-protocol-schema` (docs/agy-acp-reference.md §1).

use agent_client_protocol_schema::v1::{AGENT_METHOD_NAMES, CLIENT_METHOD_NAMES};
use serde_json::Value;

/// The side that sends a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sender {
    /// The client, to the agent.
    Client,
    /// The agent, to the client.
    Agent,
}

/// The legacy `session/set_model`, removed from the spec and still accepted by
/// Antigravity (docs/agy-acp-reference.md §1.10).
const LEGACY_CLIENT_METHODS: [&str; 1] = ["session/set_model"];

/// Who calls `method` in ACP v1; `None` for a method the protocol does not define.
pub fn method_sender(method: &str) -> Option<Sender> {
    // The tables are structs of names; their serialised values are the method names.
    let named = |table: Value| match table {
        Value::Object(m) => m.values().any(|v| v.as_str() == Some(method)),
        _ => false,
    };
    if LEGACY_CLIENT_METHODS.contains(&method)
        || named(serde_json::to_value(AGENT_METHOD_NAMES).unwrap_or(Value::Null))
    {
        Some(Sender::Client)
    } else if named(serde_json::to_value(CLIENT_METHOD_NAMES).unwrap_or(Value::Null)) {
        Some(Sender::Agent)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_are_sorted_by_the_side_that_calls_them() {
        for m in [
            "initialize",
            "authenticate",
            "session/new",
            "session/prompt",
        ] {
            assert_eq!(method_sender(m), Some(Sender::Client), "{m}");
        }
        for m in [
            "session/cancel",
            "session/resume",
            "logout",
            "session/set_model",
        ] {
            assert_eq!(method_sender(m), Some(Sender::Client), "{m}");
        }
        for m in [
            "session/update",
            "session/request_permission",
            "fs/read_text_file",
        ] {
            assert_eq!(method_sender(m), Some(Sender::Agent), "{m}");
        }
        assert_eq!(method_sender("session/Prompt"), None);
        assert_eq!(method_sender("x/y"), None);
    }
}
