//! The ops of driver protocol v1 as documentation and as the scenario format reads them:
//! each op's name, the profile it belongs to and its shape (its request fields, then what
//! its reply carries), spelled once beside [`RequestOp`](super::RequestOp).

use crate::profile::Profile;

/// One op of a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpDoc {
    /// The op's name on the wire.
    pub name: &'static str,
    /// The profile whose drivers answer it.
    pub profile: Profile,
    /// Its arguments and result, as docs/driver-protocol.md gives them: the request
    /// fields before `→` (comma-separated, `?` after an optional one), then the reply.
    pub shape: &'static str,
}

/// Ops every profile's driver answers besides its own (`restart` is the harness's: it
/// starts the driver afresh).
pub const COMMON_OPS: [&str; 3] = ["shutdown", "hello", "restart"];

const ACP_STATE: &str = "session → result.history, result.restore_state";

const fn op(name: &'static str, profile: Profile, shape: &'static str) -> OpDoc {
    OpDoc {
        name,
        profile,
        shape,
    }
}

/// Every profile's ops, in catalogue order.
pub const OPS: &[OpDoc] = &[
    op("generate", Profile::Oneshot, "prompt, aspect?, timeout_s?, references?, settings? → result.image (the image's path), usage?"),
    op("open", Profile::Session, "session, model?, effort?, permission? → nothing"),
    op("turn", Profile::Session, "session, text → result.text, result.history, usage?"),
    op("select", Profile::Session, "session, model?, effort?, permission? → nothing"),
    op("cancel", Profile::Session, "session → nothing (the running turn replies with its own outcome)"),
    op("close", Profile::Session, "session → result.history?"),
    op("acp_new", Profile::Acp, "session, model?, mode?, permission? → result.history, result.restore_state"),
    op("acp_prompt", Profile::Acp, "session, text → result.text, result.history, result.restore_state"),
    op("acp_cancel", Profile::Acp, ACP_STATE),
    op("acp_restore", Profile::Acp, ACP_STATE),
    op("acp_restart_agent", Profile::Acp, ACP_STATE),
    op("acp_status", Profile::Acp, ACP_STATE),
    op("acp_close", Profile::Acp, ACP_STATE),
    op("ask", Profile::Text, "session?, prompt, conversation?, model?, effort?, permission?, timeout_s, workdir?, output? → result.text, result.conversation_id?, usage?"),
    op("tool_list", Profile::Mcp, "→ result.extra.tools (the names of the tools the server lists)"),
    op("tool_call", Profile::Mcp, "prompt, model?, conversation?, timeout_s? → result.text (the tool's text); when isError, error.name is the class the text names (auth, quota, timeout, rejected_model, other)"),
    op("agent_initialize", Profile::AcpAgent, "→ result.extra (the agent's initialize result)"),
    op("agent_new", Profile::AcpAgent, "session, permission?, cwd? → result.extra.session_id, result.extra.cwd"),
    op("agent_prompt", Profile::AcpAgent, "session, text → result.text, result.extra.stop_reason; error.name is the stop reason or the JSON-RPC error"),
    op("agent_cancel", Profile::AcpAgent, "session → (sends session/cancel)"),
    op("agent_load", Profile::AcpAgent, "session → result.extra.method (session/load or session/resume)"),
    op("agent_kill", Profile::AcpAgent, "→ (SIGKILL to the agent)"),
    op("agent_close", Profile::AcpAgent, "→ result.text (message chunks sent outside any prompt), result.extra.exit_code, result.extra.stray_responses (responses that answered no request)"),
];

/// The op named `name`, when a profile owns it (the common ops belong to none).
pub fn op_doc(name: &str) -> Option<&'static OpDoc> {
    OPS.iter().find(|o| o.name == name)
}

/// The ops of `profile`, in the order its docs give them.
pub fn ops_of(profile: Profile) -> impl Iterator<Item = &'static OpDoc> {
    OPS.iter().filter(move |o| o.profile == profile)
}

/// What a scenario of `profile` may send, as a hint: "`text` scenarios use `ask`".
pub fn ops_hint(profile: Profile) -> String {
    let names: Vec<String> = ops_of(profile).map(|o| format!("`{}`", o.name)).collect();
    format!("{profile} scenarios use {}", names.join(", "))
}

impl OpDoc {
    /// The request fields the op takes, read from its shape, each with whether it may
    /// be left out. The scenario parser reads an op's keys from here.
    pub fn fields(&self) -> impl Iterator<Item = (&'static str, bool)> {
        let request = self.shape.split('→').next().unwrap_or_default();
        request
            .split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(|f| match f.strip_suffix('?') {
                Some(name) => (name, true),
                None => (f, false),
            })
    }

    /// Whether the op works on a session handle it must name (a scenario that names
    /// none gets the default one): `session` is a field it cannot leave out.
    pub fn names_a_session(&self) -> bool {
        self.fields().any(|f| f == ("session", false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::{Request, RequestOp};

    #[test]
    fn each_ops_fields_and_session_default_are_the_request_types() {
        // The request fields of driver protocol v1 (docs/driver-protocol.md), and which
        // ops name a session the scenario parser defaults.
        let expected: &[(&str, &[&str], bool)] = &[
            (
                "generate",
                &["prompt", "aspect", "timeout_s", "references", "settings"],
                false,
            ),
            ("open", &["session", "model", "effort", "permission"], true),
            (
                "select",
                &["session", "model", "effort", "permission"],
                true,
            ),
            ("turn", &["session", "text"], true),
            ("cancel", &["session"], true),
            ("close", &["session"], true),
            (
                "ask",
                &[
                    "session",
                    "prompt",
                    "conversation",
                    "model",
                    "effort",
                    "permission",
                    "timeout_s",
                    "workdir",
                    "output",
                ],
                false,
            ),
            ("tool_list", &[], false),
            (
                "tool_call",
                &["prompt", "model", "conversation", "timeout_s"],
                false,
            ),
            ("acp_new", &["session", "model", "mode", "permission"], true),
            ("acp_prompt", &["session", "text"], true),
            ("acp_cancel", &["session"], true),
            ("acp_restore", &["session"], true),
            ("acp_restart_agent", &["session"], true),
            ("acp_status", &["session"], true),
            ("acp_close", &["session"], true),
            ("agent_initialize", &[], false),
            ("agent_new", &["session", "permission", "cwd"], true),
            ("agent_prompt", &["session", "text"], true),
            ("agent_cancel", &["session"], true),
            ("agent_load", &["session"], true),
            ("agent_kill", &[], false),
            ("agent_close", &[], false),
        ];
        let mut named: Vec<&str> = expected.iter().map(|(a, _, _)| *a).collect();
        let mut all: Vec<&str> = OPS.iter().map(|o| o.name).collect();
        named.sort_unstable();
        all.sort_unstable();
        assert_eq!(all, named, "the documented ops");
        for (name, keys, session) in expected {
            let doc = op_doc(name).expect("documented");
            let fields: Vec<&str> = doc.fields().map(|(f, _)| f).collect();
            assert_eq!(fields, *keys, "`{name}`'s fields");
            assert_eq!(doc.names_a_session(), *session, "`{name}` names a session");
        }
    }

    #[test]
    fn every_request_op_but_the_common_ones_is_documented_once() {
        for doc in OPS {
            assert_eq!(
                OPS.iter().filter(|o| o.name == doc.name).count(),
                1,
                "{}",
                doc.name
            );
            assert!(!COMMON_OPS.contains(&doc.name), "{}", doc.name);
            // The required fields alone make a request the protocol reads as this op.
            let mut line = serde_json::json!({"v": 1, "id": 1, "op": doc.name});
            for (field, optional) in doc.fields() {
                if !optional {
                    let value = if field == "timeout_s" {
                        serde_json::json!(1.0)
                    } else {
                        serde_json::json!("x")
                    };
                    line[field] = value;
                }
            }
            let request: Request = serde_json::from_value(line.clone())
                .unwrap_or_else(|e| panic!("`{}`: {e}: {line}", doc.name));
            assert_eq!(request.op.name(), doc.name);
        }
        for name in ["hello", "shutdown"] {
            let request: Request =
                serde_json::from_value(serde_json::json!({"v": 1, "id": 1, "op": name}))
                    .expect("a common op");
            assert!(matches!(
                request.op,
                RequestOp::Hello {} | RequestOp::Shutdown {}
            ));
        }
    }

    #[test]
    fn the_hint_lists_the_profiles_ops() {
        assert_eq!(ops_hint(Profile::Text), "text scenarios use `ask`");
        assert_eq!(
            ops_hint(Profile::Mcp),
            "mcp scenarios use `tool_list`, `tool_call`"
        );
    }
}
