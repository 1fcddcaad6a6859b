//! The ACP client of one session handle: the agent process, the handshake, session
//! creation, configuration and close, and the live state with its checkpoint. Message
//! routing through the [`Gate`] is in `routing.rs`, prompt turns in `turn.rs`, restores
//! in `restore.rs`.

use super::checkpoint::{CheckpointRecord, CheckpointStore, Loaded, Phase, CHECKPOINT_VERSION};
use super::connection::Connection;
use super::error_names::{
    ACP_AGENT_EXITED, ACP_AUTH, ACP_CHECKPOINT, ACP_HISTORY_ONLY, ACP_PROTOCOL,
};
use super::permission::PermissionPolicy;
use super::quarantine::{Gate, QuarantineCounts};
use super::restore_plan::RestoreCapabilities;
use super::signals::{Interrupted, Signals};
use crate::failure::Failure;
use crate::faults::{Fault, FaultSet};
use agent_client_protocol_schema::v1::{
    AuthenticateRequest, ClientCapabilities, Error as RpcError, Implementation, InitializeRequest,
    InitializeResponse, NewSessionRequest, NewSessionResponse, RequestId, SessionConfigKind,
    SessionConfigOption, SessionConfigOptionValue, SetSessionConfigOptionRequest,
    SetSessionConfigOptionResponse,
};
use agent_client_protocol_schema::ProtocolVersion;
use agy_protocol::driver::{AcpRestoreState, HistoryEntry, OpResult, Outcome};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The registry name of Antigravity's ACP server (docs/agy-acp-reference.md §2.1, §2.2).
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
    /// How long a non-prompt request may take (cold starts take up to 90 s, docs/agy-acp-reference.md §2.2).
    pub setup_timeout: Duration,
    /// How long a closing agent gets to exit after its stdin closes.
    pub grace: Duration,
    /// The auth method to use when the agent asks for authentication.
    pub auth_method: Option<String>,
    /// Fault switches.
    pub faults: Arc<FaultSet>,
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
    /// for authentication and a method is configured (docs/agy-acp-reference.md §2.4, §7 item 3).
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

    pub(crate) fn policy(&self) -> PermissionPolicy {
        self.record
            .as_ref()
            .and_then(|r| r.permission)
            .unwrap_or_default()
    }

    /// `acp_new`: starts the agent, creates the session, applies model and mode, and
    /// saves the first checkpoint.
    pub async fn new_session(
        &mut self,
        model: Option<String>,
        mode: Option<String>,
        permission: Option<PermissionPolicy>,
    ) -> Result<(), Failure> {
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

    /// Sets one config option and checks the agent took it (docs/agy-acp-reference.md §7 items 8, 32).
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
    /// docs/agy-acp-reference.md §2.3), then the agent is stopped. The checkpoint stays.
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
        // The checkpoint stays: a closed session with a saved id can be restored later.
        if self.record.is_some() && self.state != AcpRestoreState::HistoryOnly {
            self.state = AcpRestoreState::Restorable;
        }
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
