//! Routing what the agent writes: a request is sent and everything the agent writes
//! until its response — notifications, its own requests — passes the [`Gate`] in the
//! order written; `acp_cancel` and interrupts reach the wait.

use super::client::AcpClient;
use super::connection::{Connection, Inbound};
use super::permission::{answer, cancelled};
use super::quarantine::{Gate, PermissionAction, UpdateAction};
use super::signals::{Interrupted, Signals};
use crate::faults::Fault;
use agent_client_protocol_schema::v1::{
    ContentBlock, Error as RpcError, RequestId, RequestPermissionRequest, SessionNotification,
    SessionUpdate,
};
use agy_protocol::acp::Frame;
use agy_protocol::driver::HistoryEntry;
use serde_json::{json, Value};

impl AcpClient {
    /// Sends a request and routes everything the agent writes until its response.
    pub(crate) async fn call(
        &mut self,
        method: &str,
        params: Value,
        mut signals: Signals<'_>,
        bounded: bool,
    ) -> Result<Result<Value, RpcError>, Interrupted> {
        let Some(conn) = self.conn.as_mut() else {
            return Err(Interrupted::Exited);
        };
        let id = conn
            .request(method, params)
            .await
            .map_err(Interrupted::Io)?;
        let deadline = bounded.then(|| tokio::time::Instant::now() + self.setup.setup_timeout);
        loop {
            let Some(conn) = self.conn.as_mut() else {
                return Err(Interrupted::Exited);
            };
            let timeout = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            };
            let cancel = async {
                match signals.cancel.as_mut() {
                    Some(rx) => {
                        if rx.changed().await.is_err() {
                            std::future::pending::<()>().await;
                        }
                    }
                    None => std::future::pending().await,
                }
            };
            let interrupt = async {
                match signals.interrupt.as_mut() {
                    Some(rx) => {
                        if rx.changed().await.is_err() {
                            std::future::pending::<()>().await;
                        }
                    }
                    None => std::future::pending().await,
                }
            };
            let inbound = tokio::select! {
                biased;
                inbound = conn.recv() => inbound,
                () = interrupt => return Err(Interrupted::Interrupt),
                () = cancel => {
                    self.send_cancel().await;
                    continue;
                }
                () = timeout => return Err(Interrupted::Timeout),
            };
            match inbound {
                Inbound::Closed => return Err(Interrupted::Exited),
                Inbound::Garbage(_) => {}
                Inbound::Frame(Frame::Response { id: rid, outcome }) if rid == id => {
                    return Ok(outcome)
                }
                Inbound::Frame(frame) => self.route(frame).await,
            }
        }
    }

    /// Sends `session/cancel` once for the running turn.
    pub(crate) async fn send_cancel(&mut self) {
        if self.cancelling || self.gate != Gate::Turn {
            return;
        }
        self.cancelling = true;
        let Some(session_id) = self.record.as_ref().map(|r| r.session_id.clone()) else {
            return;
        };
        if let Some(conn) = self.conn.as_mut() {
            let _ = conn
                .notify("session/cancel", json!({ "sessionId": session_id }))
                .await;
        }
        // Every pending permission request is answered `cancelled` (docs/agy-acp-reference.md §1.7).
        self.release_held().await;
    }

    /// Answers every held permission request `cancelled`.
    pub(crate) async fn release_held(&mut self) {
        let held = std::mem::take(&mut self.held);
        for id in held {
            self.counts.permissions_cancelled += 1;
            if let Some(conn) = self.conn.as_mut() {
                let _ = conn
                    .respond(id, serde_json::to_value(cancelled()).unwrap_or(Value::Null))
                    .await;
            }
        }
    }

    /// Routes whatever the agent has already written (nothing is awaited).
    pub(crate) async fn drain(&mut self) {
        loop {
            let Some(item) = self.conn.as_mut().and_then(Connection::try_recv) else {
                return;
            };
            match item {
                Inbound::Frame(frame) => self.route(frame).await,
                Inbound::Garbage(_) => {}
                Inbound::Closed => return,
            }
        }
    }

    /// Routes one message that is not the awaited response.
    pub(crate) async fn route(&mut self, frame: Frame) {
        match frame {
            Frame::Notification { method, params } if method == "session/update" => {
                self.on_update(params)
            }
            Frame::Notification { .. } | Frame::Response { .. } => {}
            Frame::Request { id, method, params } if method == "session/request_permission" => {
                self.on_permission(id, params).await
            }
            Frame::Request { id, method, .. } => {
                // fs/* and terminal/* are not advertised (docs/agy-acp-reference.md §2.7): refuse politely.
                if let Some(conn) = self.conn.as_mut() {
                    let _ = conn
                        .respond_error(
                            id,
                            RpcError::new(-32601, "Method not found")
                                .data(json!({ "method": method })),
                        )
                        .await;
                }
            }
        }
    }

    fn on_update(&mut self, params: Value) {
        let note: SessionNotification = match serde_json::from_value(params) {
            Ok(n) => n,
            Err(_) => {
                // Unknown variants (`subagent_spawned`, docs/agy-acp-reference.md §7 item 13): the schema
                // rejects them; the client stays alive and ignores them.
                self.unparsed_updates += 1;
                return;
            }
        };
        let ours = self
            .record
            .as_ref()
            .is_some_and(|r| r.session_id == note.session_id.0.as_ref());
        if !ours {
            self.counts.dropped += 1;
            return;
        }
        match self.gate.on_update() {
            UpdateAction::Attribute => {
                if let SessionUpdate::AgentMessageChunk(chunk) = note.update {
                    if let ContentBlock::Text(t) = chunk.content {
                        self.turn_text.push_str(&t.text);
                    }
                }
            }
            UpdateAction::Quarantine => {
                self.counts.quarantined += 1;
                if matches!(note.update, SessionUpdate::UserMessageChunk(_)) {
                    self.counts.replayed_user_chunks += 1;
                }
                if self.has(Fault::AcpAppendsLoadReplay) {
                    self.append_replay(&note.update);
                }
            }
            UpdateAction::Drop => self.counts.dropped += 1,
        }
    }

    /// The `acp-appends-load-replay` fault: replayed messages become canonical turns.
    fn append_replay(&mut self, update: &SessionUpdate) {
        let (role, chunk) = match update {
            SessionUpdate::UserMessageChunk(c) => ("user", c),
            SessionUpdate::AgentMessageChunk(c) => ("assistant", c),
            _ => return,
        };
        let ContentBlock::Text(t) = &chunk.content else {
            return;
        };
        if let Some(record) = self.record.as_mut() {
            if role == "user" {
                record.turns += 1;
            }
            record.history.push(HistoryEntry {
                role: role.to_string(),
                text: t.text.clone(),
                turn: Some(record.turns),
            });
        }
    }

    async fn on_permission(&mut self, id: RequestId, params: Value) {
        let action = self.gate.on_permission(self.cancelling);
        let response = match (
            action,
            serde_json::from_value::<RequestPermissionRequest>(params),
        ) {
            (PermissionAction::Policy, Ok(req)) => match answer(self.policy(), &req.options) {
                Some(r) => r,
                None => {
                    self.held.push(id);
                    return;
                }
            },
            _ => {
                self.counts.permissions_cancelled += 1;
                cancelled()
            }
        };
        if let Some(conn) = self.conn.as_mut() {
            let _ = conn
                .respond(id, serde_json::to_value(&response).unwrap_or(Value::Null))
                .await;
        }
    }
}
