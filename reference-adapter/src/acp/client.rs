//! The ACP client of one session handle: the agent process, the handshake, the live
//! session state and its checkpoint, and the routing of every agent message through the
//! [`Gate`]. Prompt turns are in `turn.rs`, restores in `restore.rs`.

use super::checkpoint::{CheckpointRecord, CheckpointStore, Loaded, Phase, CHECKPOINT_VERSION};
use super::connection::{Connection, Inbound};
use super::error_names::{
    ACP_AGENT_EXITED, ACP_AUTH, ACP_CHECKPOINT, ACP_HISTORY_ONLY, ACP_PROTOCOL,
};
use super::permission::{cancelled, PermissionPolicy};
use super::quarantine::{Gate, PermissionAction, QuarantineCounts, UpdateAction};
use super::restore_plan::RestoreCapabilities;
use crate::failure::Failure;
use crate::faults::{Fault, FaultSet};
use agent_client_protocol_schema::v1::{
    AuthenticateRequest, ClientCapabilities, ContentBlock, Error as RpcError, Implementation,
    InitializeRequest, InitializeResponse, NewSessionRequest, NewSessionResponse, RequestId,
    RequestPermissionRequest, SessionConfigKind, SessionConfigOption, SessionConfigOptionValue,
    SessionNotification, SessionUpdate, SetSessionConfigOptionRequest,
    SetSessionConfigOptionResponse,
};
use agent_client_protocol_schema::ProtocolVersion;
use agy_protocol::acp::Frame;
use agy_protocol::driver::{AcpRestoreState, HistoryEntry, OpResult, Outcome};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Environment variable: the ACP agent to spawn (default `agy_acp_server` on `PATH`).
pub const ENV_ACP_BIN: &str = "AGY_ACP_BIN";
/// Environment variable: the auth method to `authenticate` with when the agent answers
/// `-32000 Authentication required` (e.g. `gemini-api-key`); unset, the client never
/// authenticates on its own (an OAuth method would open a browser, ACP.md §2.4).
pub const ENV_ACP_AUTH_METHOD: &str = "AGY_ACP_AUTH_METHOD";
/// The registry name of Antigravity's ACP server (ACP.md §2.1, §2.2).
pub const DEFAULT_ACP_BIN: &str = "agy_acp_server";

/// Where the client's agent and files are.
#[derive(Debug, Clone)]
pub struct ClientSetup {
    /// The agent binary.
    pub bin: PathBuf,
    /// The session's working directory (`cwd` of `session/new`).
    pub cwd: PathBuf,
    /// The checkpoint store.
    pub store: CheckpointStore,
    /// How long a non-prompt request may take (cold starts take up to 90 s, ACP.md §2.2).
    pub setup_timeout: Duration,
    /// How long a closing agent gets to exit after its stdin closes.
    pub grace: Duration,
    /// The auth method to use when the agent asks for authentication.
    pub auth_method: Option<String>,
    /// Fault switches.
    pub faults: Arc<FaultSet>,
}

/// Why waiting for a response ended without one.
#[derive(Debug)]
pub(crate) enum Interrupted {
    /// The agent's output ended (it exited or was killed).
    Exited,
    /// The driver asked to stop waiting (restart the agent, close).
    Interrupt,
    /// A non-prompt request took longer than the setup timeout.
    Timeout,
    /// Writing to the agent failed.
    Io(std::io::Error),
}

/// Signals that reach a running request.
pub(crate) struct Signals<'a> {
    /// `acp_cancel` bumps this: send `session/cancel`.
    pub cancel: Option<&'a mut watch::Receiver<u64>>,
    /// `acp_restart_agent` / `acp_close` bump this: stop waiting, kill the agent.
    pub interrupt: Option<&'a mut watch::Receiver<u64>>,
}

impl Signals<'_> {
    pub(crate) fn none() -> Signals<'static> {
        Signals {
            cancel: None,
            interrupt: None,
        }
    }
}

/// The client of one session handle.
pub struct AcpClient {
    pub(crate) handle: String,
    pub(crate) setup: ClientSetup,
    pub(crate) conn: Option<Connection>,
    pub(crate) caps: RestoreCapabilities,
    pub(crate) close_advertised: bool,
    /// The live state; `None` when nothing was saved or the record is unusable.
    pub(crate) record: Option<CheckpointRecord>,
    pub(crate) state: AcpRestoreState,
    pub(crate) history_only_reason: Option<String>,
    pub(crate) gate: Gate,
    pub(crate) cancelling: bool,
    pub(crate) counts: QuarantineCounts,
    /// Text attributed to the running turn.
    pub(crate) turn_text: String,
    /// Session updates that failed to parse (unknown variants), ignored.
    pub(crate) unparsed_updates: u64,
    /// The agent's last restore response `configOptions`.
    pub(crate) offered: Vec<SessionConfigOption>,
    /// Permission requests of the running turn left pending (policy `ask`).
    pub(crate) held: Vec<RequestId>,
}

/// Reads `T` from a JSON-RPC result.
pub(crate) fn typed<T: DeserializeOwned>(method: &str, value: Value) -> Result<T, Failure> {
    serde_json::from_value(value).map_err(|e| {
        Failure::new(
            Outcome::Permanent,
            ACP_PROTOCOL,
            format!("the agent's `{method}` result is not valid ACP: {e}"),
        )
    })
}

/// The failure for an error response to `method`.
pub(crate) fn rpc_failure(method: &str, e: &RpcError) -> Failure {
    let code = i32::from(e.code);
    let data = e
        .data
        .as_ref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    let message = format!("`{method}` failed: {code} {}{data}", e.message);
    if code == -32000 && e.message.to_ascii_lowercase().contains("auth") {
        Failure::new(Outcome::Auth, ACP_AUTH, message)
    } else {
        Failure::new(Outcome::Permanent, ACP_PROTOCOL, message)
    }
}

impl AcpClient {
    /// A client for a new session (nothing saved yet).
    pub fn fresh(handle: String, setup: ClientSetup) -> AcpClient {
        AcpClient {
            handle,
            setup,
            conn: None,
            caps: RestoreCapabilities::default(),
            close_advertised: false,
            record: None,
            state: AcpRestoreState::Ready,
            history_only_reason: None,
            gate: Gate::Idle,
            cancelling: false,
            counts: QuarantineCounts::default(),
            turn_text: String::new(),
            unparsed_updates: 0,
            offered: Vec::new(),
            held: Vec::new(),
        }
    }

    /// A client for a handle saved by an earlier client process; `None` when nothing was
    /// saved under `handle`.
    pub fn from_checkpoint(handle: String, setup: ClientSetup) -> Option<AcpClient> {
        let loaded = setup.store.load(&handle);
        let mut client = AcpClient::fresh(handle, setup);
        match loaded {
            Loaded::Missing => return None,
            Loaded::Record(record) => {
                client.record = Some(*record);
                client.state = AcpRestoreState::Restorable;
            }
            Loaded::HistoryOnly(reason) => {
                client.state = AcpRestoreState::HistoryOnly;
                client.history_only_reason = Some(reason);
            }
        }
        Some(client)
    }

    pub(crate) fn has(&self, fault: Fault) -> bool {
        self.setup.faults.has(fault)
    }

    /// The canonical history.
    pub fn history(&self) -> Vec<HistoryEntry> {
        self.record
            .as_ref()
            .map(|r| r.history.clone())
            .unwrap_or_default()
    }

    /// The restore state.
    pub fn restore_state(&self) -> AcpRestoreState {
        self.state
    }

    /// The reply result: history, restore state and evidence.
    pub fn result(&self, extra: Value) -> OpResult {
        let mut evidence = json!({
            "session_id": self.record.as_ref().map(|r| r.session_id.clone()),
            "agent_pid": self.conn.as_ref().and_then(Connection::pid),
            "quarantine": self.counts,
            "unparsed_updates": self.unparsed_updates,
        });
        if let Some(reason) = &self.history_only_reason {
            evidence["history_only"] = json!(reason);
        }
        if let (Value::Object(m), Value::Object(more)) = (&mut evidence, extra) {
            m.extend(more);
        }
        OpResult {
            history: Some(self.history()),
            restore_state: Some(self.state),
            extra: Some(evidence),
            ..OpResult::default()
        }
    }

    pub(crate) fn history_only_failure(&self) -> Failure {
        Failure::new(
            Outcome::Permanent,
            ACP_HISTORY_ONLY,
            format!(
                "session `{}` is history-only: {}",
                self.handle,
                self.history_only_reason
                    .as_deref()
                    .unwrap_or("it cannot be continued")
            ),
        )
    }

    /// Writes the live record.
    pub(crate) fn save(&self) -> Result<(), Failure> {
        let Some(record) = &self.record else {
            return Ok(());
        };
        self.setup.store.save(&self.handle, record).map_err(|e| {
            Failure::new(
                Outcome::Permanent,
                ACP_CHECKPOINT,
                format!("failed to write the checkpoint of `{}`: {e}", self.handle),
            )
        })
    }

    pub(crate) fn exited_failure(&self, what: &str, why: &Interrupted) -> Failure {
        let stderr = self
            .conn
            .as_ref()
            .map(Connection::stderr_tail)
            .unwrap_or_default();
        let (outcome, text) = match why {
            Interrupted::Exited => (Outcome::Transient, "the agent exited".to_string()),
            Interrupted::Interrupt => (Outcome::Transient, "interrupted".to_string()),
            Interrupted::Timeout => (
                Outcome::Timeout,
                format!("no answer within {:?}", self.setup.setup_timeout),
            ),
            Interrupted::Io(e) => (
                Outcome::Transient,
                format!("failed to write to the agent: {e}"),
            ),
        };
        let mut message = format!("{what}: {text}");
        if !stderr.is_empty() {
            message.push_str(&format!("; agent stderr: {stderr}"));
        }
        Failure::new(outcome, ACP_AGENT_EXITED, message)
    }

    /// Kills the agent (if any) and forgets the connection.
    pub(crate) async fn drop_agent(&mut self) {
        self.held.clear();
        if let Some(conn) = self.conn.take() {
            conn.kill().await;
        }
        self.gate = Gate::Idle;
    }

    /// Starts the agent and runs `initialize`.
    pub(crate) async fn start_agent(&mut self) -> Result<(), Failure> {
        self.drop_agent().await;
        let _ = std::fs::create_dir_all(&self.setup.cwd);
        let conn = Connection::spawn(&self.setup.bin, &self.setup.cwd).map_err(|e| {
            Failure::new(
                Outcome::Permanent,
                ACP_AGENT_EXITED,
                format!(
                    "failed to start the ACP agent `{}`: {e}",
                    self.setup.bin.display()
                ),
            )
        })?;
        self.conn = Some(conn);
        let request = InitializeRequest::new(ProtocolVersion::V1)
            .client_capabilities(ClientCapabilities::new())
            .client_info(Implementation::new(
                "agy-reference-adapter",
                env!("CARGO_PKG_VERSION"),
            ));
        let params = serde_json::to_value(&request).unwrap_or(Value::Null);
        let value = self.call_setup("initialize", params).await?;
        let response: InitializeResponse = typed("initialize", value)?;
        let caps = &response.agent_capabilities;
        self.caps = RestoreCapabilities {
            load: caps.load_session,
            resume: caps.session_capabilities.resume.is_some(),
        };
        self.close_advertised = caps.session_capabilities.close.is_some();
        Ok(())
    }

    /// `authenticate {methodId}` with the configured method; `None` when none is set.
    pub(crate) async fn authenticate(&mut self) -> Option<Result<(), Failure>> {
        let method = self.setup.auth_method.clone()?;
        let params = serde_json::to_value(AuthenticateRequest::new(method)).unwrap_or(Value::Null);
        Some(self.call_setup("authenticate", params).await.map(|_| ()))
    }

    /// [`AcpClient::call_setup`], authenticating once and retrying when the agent asks
    /// for authentication and a method is configured (ACP.md §2.4, §7 item 3).
    pub(crate) async fn call_authed(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<Value, Failure> {
        match self.call_setup(method, params.clone()).await {
            Err(f) if f.outcome == Outcome::Auth => match self.authenticate().await {
                Some(Ok(())) => self.call_setup(method, params).await,
                Some(Err(auth)) => Err(auth),
                None => Err(f),
            },
            other => other,
        }
    }

    /// A non-prompt request with the setup timeout; an exit or timeout drops the agent.
    pub(crate) async fn call_setup(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<Value, Failure> {
        match self.call(method, params, Signals::none(), true).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(rpc_failure(method, &e)),
            Err(why) => {
                let f = self.exited_failure(&format!("`{method}`"), &why);
                self.drop_agent().await;
                Err(f)
            }
        }
    }

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
        // Every pending permission request is answered `cancelled` (ACP.md §1.7).
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
                // fs/* and terminal/* are not advertised (ACP.md §2.7): refuse politely.
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
                // Unknown variants (`subagent_spawned`, ACP.md §7 item 13): the schema
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
            (PermissionAction::Policy, Ok(req)) => match self.policy().answer(&req.options) {
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

    pub(crate) fn policy(&self) -> PermissionPolicy {
        PermissionPolicy::parse(self.record.as_ref().and_then(|r| r.permission.as_deref()))
            .unwrap_or_default()
    }

    /// `acp_new`: starts the agent, creates the session, applies model and mode, and
    /// saves the first checkpoint.
    pub async fn new_session(
        &mut self,
        model: Option<String>,
        mode: Option<String>,
        permission: Option<String>,
    ) -> Result<(), Failure> {
        PermissionPolicy::parse(permission.as_deref()).map_err(Failure::bad_request)?;
        self.start_agent().await?;
        let params = serde_json::to_value(NewSessionRequest::new(self.setup.cwd.clone()))
            .unwrap_or(Value::Null);
        let value = self.call_authed("session/new", params).await?;
        let response: NewSessionResponse = typed("session/new", value)?;
        let offered = response.config_options.unwrap_or_default();
        self.record = Some(CheckpointRecord {
            version: CHECKPOINT_VERSION,
            session_id: response.session_id.0.to_string(),
            cwd: self.setup.cwd.display().to_string(),
            model: model.clone().or_else(|| current_value(&offered, "model")),
            mode: mode.clone().or_else(|| current_value(&offered, "mode")),
            permission,
            phase: Phase::Committed,
            pending: None,
            turns: 0,
            history: Vec::new(),
        });
        self.offered = offered;
        if let Some(model) = model {
            self.set_config("model", &model).await?;
        }
        if let Some(mode) = mode {
            self.set_config("mode", &mode).await?;
        }
        self.save()?;
        self.state = AcpRestoreState::Ready;
        Ok(())
    }

    /// Sets one config option and checks the agent took it (ACP.md §7 items 8, 32).
    pub(crate) async fn set_config(&mut self, id: &str, value: &str) -> Result<(), Failure> {
        let Some(session_id) = self.record.as_ref().map(|r| r.session_id.clone()) else {
            return Ok(());
        };
        let request = SetSessionConfigOptionRequest::new(
            session_id,
            id.to_string(),
            SessionConfigOptionValue::value_id(value.to_string()),
        );
        let params = serde_json::to_value(&request).unwrap_or(Value::Null);
        let result = self.call_setup("session/set_config_option", params).await?;
        let response: SetSessionConfigOptionResponse = typed("session/set_config_option", result)?;
        match current_value(&response.config_options, id) {
            Some(v) if v == value => Ok(()),
            other => Err(Failure::new(
                Outcome::Permanent,
                ACP_PROTOCOL,
                format!("the agent did not apply `{id}` = `{value}` (current value: {other:?})"),
            )),
        }
    }

    /// `acp_close`: `session/close` when advertised (Antigravity does not advertise it,
    /// ACP.md §2.3), then the agent is stopped. The checkpoint stays.
    pub async fn close(&mut self) {
        if self.conn.is_some() && self.close_advertised {
            if let Some(sid) = self.record.as_ref().map(|r| r.session_id.clone()) {
                let _ = self
                    .call(
                        "session/close",
                        json!({ "sessionId": sid }),
                        Signals::none(),
                        true,
                    )
                    .await;
            }
        }
        if let Some(conn) = self.conn.take() {
            conn.stop(self.setup.grace).await;
        }
        self.gate = Gate::Idle;
    }

    /// The session is on a live agent.
    pub fn is_live(&self) -> bool {
        self.conn.is_some()
    }
}

/// The `currentValue` of the select option `id`.
pub(crate) fn current_value(options: &[SessionConfigOption], id: &str) -> Option<String> {
    options
        .iter()
        .find(|o| o.id.0.as_ref() == id)
        .and_then(|o| match &o.kind {
            SessionConfigKind::Select(s) => Some(s.current_value.0.to_string()),
            _ => None,
        })
}
