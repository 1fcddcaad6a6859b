//! The stream-json `init` event: written once per invocation, with the permission mode
//! and the agent's tools.

use super::Session;
use crate::error::FakeError;
use crate::store::settings::tool_permission;
use agy_protocol::layout::Layout;
use agy_protocol::script::InitSpec;
use agy_protocol::stream::{Init, StreamEvent};

impl Session {
    /// Writes `init` once (stream-json only).
    pub fn ensure_init(&mut self) -> Result<(), FakeError> {
        if self.init_sent || !self.is_stream() {
            return Ok(());
        }
        self.emit_init(&InitSpec::default())
    }

    /// Writes `init` (stream-json only), with overrides.
    pub fn emit_init(&mut self, spec: &InitSpec) -> Result<(), FakeError> {
        if !self.is_stream() {
            return Ok(());
        }
        self.write_init(spec)
    }

    /// `init.permission_mode`: `always-proceed` under `--dangerously-skip-permissions`,
    /// else the settings file's `toolPermission`, else `request-review`; `--mode` does
    /// not change it (docs/agy-versions.md, "Permissions").
    pub fn permission_mode(&self) -> String {
        if self.setup.args().skip_permissions {
            return "always-proceed".into();
        }
        tool_permission(&self.app.root).unwrap_or_else(|| "request-review".into())
    }

    /// `init` names the `--agent` after `cwd` (jd-1.1.8-adversarial-review,
    /// jd-1.1.9-review-stream, jd-1.1.9-unknown-agent: the requested name even when agy
    /// falls back to its default agent); a scripted `init` that orders its keys keeps
    /// them.
    fn with_agent(&self, mut init: Init, spec: &InitSpec) -> Init {
        let Some(agent) = &self.setup.args().agent else {
            return init;
        };
        if init.extra.contains_key("agent") || !spec.key_order.is_empty() {
            return init;
        }
        init.extra
            .insert("agent".into(), serde_json::Value::String(agent.clone()));
        let order = [
            "model",
            "cwd",
            "agent",
            "tools",
            "permission_mode",
            "json_schema",
        ];
        init.layout = Layout::from_keys(&order.map(String::from));
        init
    }

    /// Writes `init` in any output format (a scripted `init` step).
    pub fn write_init(&mut self, spec: &InitSpec) -> Result<(), FakeError> {
        // An init that names its conversation does not make the session pick one.
        let id = match &spec.conversation_id {
            Some(id) => id.clone(),
            None => self.conversation_id()?,
        };
        let init = Init {
            model: spec
                .model
                .clone()
                .or_else(|| self.setup.args().model.clone()),
            cwd: spec.cwd.clone().unwrap_or_else(|| {
                std::env::current_dir()
                    .map(|c| c.display().to_string())
                    .unwrap_or_default()
            }),
            tools: spec
                .tools
                .clone()
                .unwrap_or_else(|| self.setup.calibration().init.tools.clone()),
            permission_mode: spec
                .permission_mode
                .clone()
                .unwrap_or_else(|| self.permission_mode()),
            json_schema: match &spec.json_schema {
                Some(doc) => Some(serde_json::Value::Object(doc.0.clone())),
                None => self.schema.as_ref().map(|s| s.document().clone()),
            },
            extra: spec.extra.clone().map(|e| e.0).unwrap_or_default(),
            layout: Layout::from_keys(&spec.key_order),
        };
        let init = self.with_agent(init, spec);
        let line = StreamEvent::Init {
            conversation_id: id,
            init,
        }
        .to_line();
        self.io.out().stdout(line.as_bytes());
        self.init_sent = true;
        Ok(())
    }
}
