//! Responses that answer no request of the client. JSON-RPC answers a request, never a
//! notification (a message without an `id`, as ACP's `session/cancel`); a response the
//! client is not waiting for is one a strict client rejects, and the SDK drops it with
//! a warning. The bridge notes the id of every request it sends and every response the
//! agent sends: a response whose id it is not waiting for is a stray, kept as it came.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

/// The most of one stray line kept for the report.
const SHOWN: usize = 240;

#[derive(Debug, Default)]
struct Inner {
    /// Ids (as JSON text) of the requests sent and not yet answered.
    waiting: HashSet<String>,
    strays: Vec<String>,
}

/// The shared record, fed by the connection's transport.
#[derive(Debug, Clone, Default)]
pub(super) struct Strays(Arc<Mutex<Inner>>);

/// A JSON-RPC message's kind, as far as strays are concerned.
enum Kind {
    /// A request, with its id as JSON text.
    Request(String),
    /// A response, with its id as JSON text (`null` when absent or null).
    Response(String),
    /// A notification, or not a JSON-RPC object at all.
    Other,
}

fn kind(line: &str) -> Kind {
    let Ok(serde_json::Value::Object(m)) = serde_json::from_str::<serde_json::Value>(line) else {
        return Kind::Other;
    };
    let id = m
        .get("id")
        .map_or_else(|| "null".to_string(), |v| v.to_string());
    match (m.contains_key("method"), m.contains_key("id")) {
        (true, true) => Kind::Request(id),
        (false, _) if m.contains_key("result") || m.contains_key("error") => Kind::Response(id),
        _ => Kind::Other,
    }
}

impl Strays {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new connection: no request of it is waited for yet.
    pub(super) fn connected(&self) {
        self.lock().waiting.clear();
    }

    /// A line the bridge sends the agent.
    pub(super) fn sent(&self, line: &str) {
        if let Kind::Request(id) = kind(line) {
            self.lock().waiting.insert(id);
        }
    }

    /// A line the agent sent.
    pub(super) fn received(&self, line: &str) {
        if let Kind::Response(id) = kind(line) {
            let mut inner = self.lock();
            if !inner.waiting.remove(&id) {
                inner.strays.push(line.chars().take(SHOWN).collect());
            }
        }
    }

    /// Every stray response so far, in the order they came.
    pub(super) fn all(&self) -> Vec<String> {
        self.lock().strays.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_to_a_request_sent_is_no_stray() {
        let s = Strays::default();
        s.sent(r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{}}"#);
        s.received(r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}"#);
        assert!(s.all().is_empty());
    }

    #[test]
    fn a_response_to_a_notification_is_a_stray() {
        let s = Strays::default();
        s.sent(r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"a"}}"#);
        let answer = r#"{"jsonrpc":"2.0","id":null,"result":null}"#;
        s.received(answer);
        assert_eq!(s.all(), [answer]);
    }

    #[test]
    fn a_second_response_to_one_request_and_an_unknown_id_are_strays() {
        let s = Strays::default();
        s.sent(r#"{"jsonrpc":"2.0","id":"a","method":"initialize"}"#);
        s.received(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#);
        s.received(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#);
        s.received(r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"x"}}"#);
        assert_eq!(s.all().len(), 2);
    }

    #[test]
    fn the_agents_requests_notifications_and_noise_are_no_responses() {
        let s = Strays::default();
        s.received(r#"{"jsonrpc":"2.0","id":1,"method":"session/request_permission"}"#);
        s.received(r#"{"jsonrpc":"2.0","method":"session/update","params":{}}"#);
        s.received("not json");
        s.received("[1,2]");
        assert!(s.all().is_empty());
    }

    #[test]
    fn a_new_connection_waits_for_none_of_the_old_ones_requests() {
        let s = Strays::default();
        s.sent(r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#);
        s.connected();
        s.received(r#"{"jsonrpc":"2.0","id":0,"result":{}}"#);
        assert_eq!(s.all().len(), 1);
    }
}
