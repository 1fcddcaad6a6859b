//! Every request except `session/prompt`: the handshake, authentication, session
//! creation, restore (load with replay, resume without), listing and configuration.

use super::agent::{Agent, LiveSession};
use super::catalog;
use super::rpc_error::{auth_required, method_not_found, to_value, typed};
use super::store::{now_iso, StoredSession};
use super::turn::TurnState;
use super::updates;
use agent_client_protocol_schema::v1::{
    AuthenticateRequest, Error as RpcError, ListSessionsRequest, ListSessionsResponse,
    LoadSessionRequest, LoadSessionResponse, NewSessionRequest, NewSessionResponse, RequestId,
    ResumeSessionRequest, ResumeSessionResponse, SessionInfo, SetSessionConfigOptionRequest,
    SetSessionConfigOptionResponse, SetSessionModeRequest,
};
use agy_protocol::acp::script::{CommandsTiming, ReplayTiming, RestoreSpec};
use serde::Deserialize;
use serde_json::{json, Value};

/// The legacy `session/set_model` params (removed from the spec, docs/agy-acp-reference.md §1.10).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SetModelParams {
    session_id: String,
    model_id: String,
}

impl Agent {
    /// Answers one request other than `session/prompt`.
    pub(crate) fn request(&mut self, id: RequestId, method: &str, params: Value) {
        let outcome = match method {
            "initialize" => to_value(&catalog::initialize_response(&self.settings.version)),
            "authenticate" => self.authenticate(params),
            "logout" => {
                self.store.remove_token();
                self.signed_in = self.settings.script.agent.auth.is_none();
                Ok(json!({}))
            }
            "session/new" => return self.new_session(id, params),
            "session/load" => return self.load(id, params),
            "session/resume" => return self.resume(id, params),
            "session/list" => self.list(params),
            "session/set_config_option" => self.set_config_option(params),
            "session/set_mode" => self.set_mode(params),
            "session/set_model" => self.set_model(params),
            // Not advertised, yet RC01 answered it with `{}` (docs/agy-acp-reference.md §2.3).
            "session/close" => Ok(json!({})),
            // `session/cancel` is a notification; sent as a request RC01 answered
            // -32601 (docs/agy-acp-reference.md §2.8), as does every other unknown or camelCase name.
            _ => Err(method_not_found(method)),
        };
        self.respond(id, outcome);
    }

    fn authenticate(&mut self, params: Value) -> Result<Value, RpcError> {
        let req: AuthenticateRequest = typed(params)?;
        let method = req.method_id.0.to_string();
        if !catalog::auth_method_ids().contains(&method.as_str()) {
            return Err(RpcError::new(-32602, "Invalid params").data(json!({
                "errors": [{"loc": ["methodId"], "msg": format!("unknown auth method `{method}`"), "type": "value_error"}]
            })));
        }
        if method.starts_with("oauth") && self.settings.version.numbers() >= [1, 3, 0] {
            // 1.3.0 prints the OAuth URL on stderr (docs/agy-acp-reference.md §2.4).
            self.wire.stderr("Open the following link to authenticate the ACP server: https://accounts.google.com/o/oauth2/auth?client_id=fake&redirect_uri=http%3A%2F%2F127.0.0.1%3A0");
        }
        self.store.save_token(&method).map_err(|e| {
            RpcError::new(-32000, format!("Onboarding failed: {e}"))
                .data(json!({"reason": "onboarding_failed"}))
        })?;
        self.signed_in = true;
        Ok(json!({}))
    }

    fn live(&mut self, session_id: &str, cwd: &str) -> LiveSession {
        let model = catalog::default_model(&self.settings.version).to_string();
        self.sessions
            .entry(session_id.to_string())
            .or_insert(LiveSession {
                cwd: cwd.to_string(),
                model,
                mode: "default".into(),
                commands_sent: false,
            })
            .clone()
    }

    fn commands_timing(&self) -> CommandsTiming {
        self.settings.script.agent.commands.unwrap_or(
            if self.settings.version.commands_at_first_prompt() {
                CommandsTiming::FirstPrompt
            } else {
                CommandsTiming::AfterNew
            },
        )
    }

    fn new_session(&mut self, id: RequestId, params: Value) {
        let req: NewSessionRequest = match typed(params) {
            Ok(r) => r,
            Err(e) => return self.respond(id, Err(e)),
        };
        if !self.signed_in {
            return self.respond(id, Err(auth_required()));
        }
        // A server-chosen UUID (docs/agy-acp-reference.md §2.5).
        let session_id = uuid::Uuid::new_v4().to_string();
        let cwd = req.cwd.display().to_string();
        let stored = StoredSession {
            session_id: session_id.clone(),
            cwd: cwd.clone(),
            title: None,
            updated_at: now_iso(),
            turns: Vec::new(),
        };
        if let Err(e) = self.store.save(&stored) {
            return self.respond(id, Err(RpcError::new(-32603, e.to_string())));
        }
        let live = self.live(&session_id, &cwd);
        let response = NewSessionResponse::new(session_id.clone())
            .modes(catalog::modes(&live.mode))
            .config_options(catalog::config_options(&live.model, &live.mode));
        let mut value = to_value(&response).unwrap_or(Value::Null);
        if self.settings.script.agent.legacy_models != Some(false) {
            if let Value::Object(m) = &mut value {
                m.insert("models".into(), catalog::legacy_models(&live.model));
            }
        }
        self.respond(id, Ok(value));
        if self.commands_timing() == CommandsTiming::AfterNew {
            self.notify(updates::notification(&session_id, updates::commands()));
            if let Some(s) = self.sessions.get_mut(&session_id) {
                s.commands_sent = true;
            }
        }
    }

    fn replay(&self, stored: &StoredSession) {
        // One user/agent chunk pair per turn, each reply as one full-text chunk, no tool
        // calls, then the commands update (RC01 restart + load, docs/agy-acp-reference.md §2.9).
        for turn in &stored.turns {
            self.notify(updates::notification(
                &stored.session_id,
                updates::user_text(&turn.user),
            ));
            if !turn.agent.is_empty() {
                self.notify(updates::notification(
                    &stored.session_id,
                    updates::agent_text(&turn.agent),
                ));
            }
        }
        self.notify(updates::notification(
            &stored.session_id,
            updates::commands(),
        ));
    }

    fn restore_target(
        &mut self,
        session_id: &str,
        spec: &RestoreSpec,
    ) -> Result<StoredSession, RpcError> {
        if !self.signed_in {
            return Err(auth_required());
        }
        if let Some(e) = &spec.error {
            return Err(e.rpc_error());
        }
        match self.store.load(session_id) {
            Ok(Some(s)) => Ok(s),
            Ok(None) => Err(self.unknown_session(session_id)),
            Err(e) => Err(RpcError::new(-32603, e.to_string())),
        }
    }

    fn load(&mut self, id: RequestId, params: Value) {
        let req: LoadSessionRequest = match typed(params) {
            Ok(r) => r,
            Err(e) => return self.respond(id, Err(e)),
        };
        let spec = self.settings.script.load.clone();
        let session_id = req.session_id.0.to_string();
        let stored = match self.restore_target(&session_id, &spec) {
            Ok(s) => s,
            Err(e) => return self.respond(id, Err(e)),
        };
        let live = self.live(&session_id, &req.cwd.display().to_string());
        if let Some(s) = self.sessions.get_mut(&session_id) {
            s.commands_sent = true;
        }
        // Spec order by default: replay, then respond (docs/agy-acp-reference.md §1.5); Antigravity's own
        // order is unrecorded (§2.9), so the script can flip it.
        let timing = spec.replay.unwrap_or(ReplayTiming::BeforeResponse);
        if timing == ReplayTiming::BeforeResponse {
            self.replay(&stored);
        }
        // The model comes back as the default: Antigravity forgets config on restart
        // (docs/agy-acp-reference.md §2.9, §6.5).
        let response = LoadSessionResponse::new()
            .modes(catalog::modes(&live.mode))
            .config_options(catalog::config_options(&live.model, &live.mode));
        self.respond(id, to_value(&response));
        if timing == ReplayTiming::AfterResponse {
            self.replay(&stored);
        }
        self.run_late(&session_id, &spec);
    }

    fn resume(&mut self, id: RequestId, params: Value) {
        let req: ResumeSessionRequest = match typed(params) {
            Ok(r) => r,
            Err(e) => return self.respond(id, Err(e)),
        };
        let spec = self.settings.script.resume.clone();
        let session_id = req.session_id.0.to_string();
        let stored = match self.restore_target(&session_id, &spec) {
            Ok(s) => s,
            Err(e) => return self.respond(id, Err(e)),
        };
        let live = self.live(&session_id, &req.cwd.display().to_string());
        // No replay on resume (spec MUST NOT, docs/agy-acp-reference.md §1.5; Antigravity's resume is
        // unrecorded, §2.9). A replay here is the opencode #30756 fault.
        let timing = spec.replay.unwrap_or(ReplayTiming::None);
        if timing == ReplayTiming::BeforeResponse {
            self.replay(&stored);
        }
        let response = ResumeSessionResponse::new()
            .config_options(catalog::config_options(&live.model, &live.mode));
        self.respond(id, to_value(&response));
        if timing == ReplayTiming::AfterResponse {
            self.replay(&stored);
        }
        self.run_late(&session_id, &spec);
    }

    fn run_late(&mut self, session_id: &str, spec: &RestoreSpec) {
        if spec.late.is_empty() {
            return;
        }
        let mut state = TurnState::late(session_id);
        self.run_steps(&mut state, &spec.late, "");
    }

    fn list(&mut self, params: Value) -> Result<Value, RpcError> {
        let req: ListSessionsRequest = typed(params)?;
        // Unauthenticated, the list is empty (docs/agy-acp-reference.md §2.4).
        if !self.signed_in {
            return to_value(&ListSessionsResponse::new(Vec::new()));
        }
        let cwd = req.cwd.map(|c| c.display().to_string());
        let sessions = self
            .store
            .list()
            .into_iter()
            .filter(|s| cwd.as_deref().is_none_or(|c| c == s.cwd))
            .map(|s| {
                SessionInfo::new(s.session_id, s.cwd)
                    .title(s.title)
                    .updated_at(s.updated_at)
            })
            .collect();
        to_value(&ListSessionsResponse::new(sessions))
    }

    fn set_config_option(&mut self, params: Value) -> Result<Value, RpcError> {
        let req: SetSessionConfigOptionRequest = typed(params)?;
        let session_id = req.session_id.0.to_string();
        let value = req
            .value
            .as_value_id()
            .map(|v| v.0.to_string())
            .unwrap_or_default();
        let config = req.config_id.0.to_string();
        let unknown = self.unknown_session(&session_id);
        let live = self.sessions.get_mut(&session_id).ok_or(unknown)?;
        match config.as_str() {
            "model" if catalog::is_model(&value) => live.model = value,
            "mode" if catalog::is_mode(&value) => live.mode = value,
            _ => {
                return Err(RpcError::new(-32602, "Invalid params").data(json!({
                    "errors": [{"loc": ["configId", "value"], "msg": format!("unknown option `{config}` = `{value}`"), "type": "value_error"}]
                })))
            }
        }
        let live = live.clone();
        to_value(&SetSessionConfigOptionResponse::new(
            catalog::config_options(&live.model, &live.mode),
        ))
    }

    fn set_mode(&mut self, params: Value) -> Result<Value, RpcError> {
        // Works and is redundant with the `mode` option (docs/agy-acp-reference.md §2.5).
        let req: SetSessionModeRequest = typed(params)?;
        let session_id = req.session_id.0.to_string();
        let mode = req.mode_id.0.to_string();
        let unknown = self.unknown_session(&session_id);
        let live = self.sessions.get_mut(&session_id).ok_or(unknown)?;
        if !catalog::is_mode(&mode) {
            return Err(RpcError::new(-32602, "Invalid params"));
        }
        live.mode = mode;
        Ok(json!({}))
    }

    fn set_model(&mut self, params: Value) -> Result<Value, RpcError> {
        // The removed unstable method; Antigravity still sends the matching legacy
        // `models` object, whether it still answers this is unrecorded (docs/agy-acp-reference.md §1.10).
        let req: SetModelParams = typed(params)?;
        let unknown = self.unknown_session(&req.session_id);
        let live = self.sessions.get_mut(&req.session_id).ok_or(unknown)?;
        if !catalog::is_model(&req.model_id) {
            return Err(RpcError::new(-32602, "Invalid params"));
        }
        live.model = req.model_id;
        Ok(json!({}))
    }

    /// Sends the commands update at the first prompt of a session when due.
    pub(crate) fn commands_before_first_prompt(&mut self, session_id: &str) {
        let due = self.commands_timing() == CommandsTiming::FirstPrompt
            && self
                .sessions
                .get(session_id)
                .is_some_and(|s| !s.commands_sent);
        if due {
            self.notify(updates::notification(session_id, updates::commands()));
            if let Some(s) = self.sessions.get_mut(session_id) {
                s.commands_sent = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol_schema::v1::{ContentBlock, PromptRequest, TextContent};
    use proptest::prelude::*;

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            prop_oneof![
                Just("sessionId".to_string()),
                Just("cwd".to_string()),
                Just("/tmp".to_string()),
                "\\PC{0,8}"
            ]
            .prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map(
                    prop_oneof![
                        Just("sessionId".to_string()),
                        Just("cwd".to_string()),
                        Just("mcpServers".to_string()),
                        Just("prompt".to_string()),
                        Just("methodId".to_string()),
                        Just("configId".to_string()),
                        Just("value".to_string()),
                        Just("type".to_string()),
                        Just("text".to_string()),
                        "[a-zA-Z]{1,8}",
                    ],
                    inner,
                    0..5
                )
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    #[test]
    fn a_missing_field_is_reported_pydantic_style() {
        let err = typed::<AuthenticateRequest>(json!({"method": "x"})).expect_err("rejects");
        assert_eq!(i32::from(err.code), -32602);
        assert_eq!(
            err.data,
            Some(
                json!({"errors":[{"loc":["methodId"],"msg":"field required","type":"value_error.missing"}]})
            )
        );
    }

    proptest! {
        #[test]
        fn arbitrary_params_never_panic(v in arb_json()) {
            let _ = typed::<AuthenticateRequest>(v.clone());
            let _ = typed::<NewSessionRequest>(v.clone());
            let _ = typed::<LoadSessionRequest>(v.clone());
            let _ = typed::<ResumeSessionRequest>(v.clone());
            let _ = typed::<ListSessionsRequest>(v.clone());
            let _ = typed::<SetSessionConfigOptionRequest>(v.clone());
            let _ = typed::<SetSessionModeRequest>(v.clone());
            let _ = typed::<PromptRequest>(v);
        }

        #[test]
        fn prompt_params_round_trip(session in "[a-z0-9-]{1,36}", texts in proptest::collection::vec("\\PC{0,20}", 0..4)) {
            let blocks: Vec<ContentBlock> = texts.iter().map(|t| ContentBlock::Text(TextContent::new(t.clone()))).collect();
            let req = PromptRequest::new(session, blocks);
            let back: PromptRequest = typed(serde_json::to_value(&req).expect("renders"))
                .map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
            prop_assert_eq!(back, req);
        }
    }
}
