//! Who sends an ACP method: the client (`initialize`, `session/*` calls) or the agent
//! (`session/update`, `session/request_permission`, `fs/*`, `terminal/*`), read from the
//! method tables of `agent-client-protocol-schema` (docs/agy-acp-reference.md §1).

use agent_client_protocol_schema::v1::{AGENT_METHOD_NAMES, CLIENT_METHOD_NAMES};
use serde_json::Value;
use std::sync::OnceLock;

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

/// The method names of one of the schema's tables (a struct of names, whose serialised
/// values are the names).
fn names(table: Value) -> Vec<String> {
    match table {
        Value::Object(m) => m
            .values()
            .filter_map(|v| v.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    }
}

/// The methods the client calls (the agent's table) and those the agent calls (the
/// client's table), read from the schema once.
fn tables() -> &'static (Vec<String>, Vec<String>) {
    static TABLES: OnceLock<(Vec<String>, Vec<String>)> = OnceLock::new();
    TABLES.get_or_init(|| {
        let of = |t: Result<Value, serde_json::Error>| names(t.unwrap_or(Value::Null));
        (
            of(serde_json::to_value(AGENT_METHOD_NAMES)),
            of(serde_json::to_value(CLIENT_METHOD_NAMES)),
        )
    })
}

/// Every method ACP v1 defines, either direction, and the legacy client methods: the
/// agent's table, then the client's, each as the schema serialises it.
pub(crate) fn defined_methods() -> &'static [&'static str] {
    static ALL: OnceLock<Vec<&'static str>> = OnceLock::new();
    ALL.get_or_init(|| {
        let (client_calls, agent_calls) = tables();
        let mut all: Vec<&'static str> = Vec::new();
        let names = client_calls
            .iter()
            .map(String::as_str)
            .chain(LEGACY_CLIENT_METHODS)
            .chain(agent_calls.iter().map(String::as_str));
        for name in names {
            if !all.contains(&name) {
                all.push(name);
            }
        }
        all
    })
}

/// Who calls `method` in ACP v1; `None` for a method the protocol does not define.
pub fn method_sender(method: &str) -> Option<Sender> {
    let (client_calls, agent_calls) = tables();
    if LEGACY_CLIENT_METHODS.contains(&method) || client_calls.iter().any(|m| m == method) {
        Some(Sender::Client)
    } else if agent_calls.iter().any(|m| m == method) {
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
