//! What Antigravity's ACP server advertises, as recorded: capabilities, auth methods,
//! agent info, modes, models, config options, slash commands (docs/agy-acp-reference.md §2.3, §2.5).

use agent_client_protocol_schema::v1::{
    AgentAuthCapabilities, AgentCapabilities, AuthMethod, AuthMethodAgent, AvailableCommand,
    Implementation, InitializeResponse, LogoutCapabilities, McpCapabilities, PromptCapabilities,
    SessionCapabilities, SessionConfigOption, SessionConfigOptionCategory,
    SessionConfigSelectOption, SessionListCapabilities, SessionMode, SessionModeState,
    SessionResumeCapabilities,
};
use agent_client_protocol_schema::ProtocolVersion;
use agy_protocol::acp::AcpServerVersion;
use serde_json::{json, Value};

/// `agentInfo.name` of the official server (docs/agy-acp-reference.md §2.3).
pub const AGENT_NAME: &str = "antigravity-acp";
/// `agentInfo.title` (docs/agy-acp-reference.md §2.3).
pub const AGENT_TITLE: &str = "Google Antigravity";

/// The model ids of the `model` config option, with display names (docs/agy-acp-reference.md §2.5: 11
/// entries, effort baked into the id; `gemini-pro-agent` is "Gemini 3.1 Pro (High)").
pub const MODELS: &[(&str, &str)] = &[
    ("gemini-3.8-flash-high", "Gemini 3.8 Flash (High)"),
    ("gemini-3.8-flash-medium", "Gemini 3.8 Flash (Medium)"),
    ("gemini-3.8-flash-low", "Gemini 3.8 Flash (Low)"),
    ("gemini-3.7-flash-high", "Gemini 3.7 Flash (High)"),
    ("gemini-3.7-flash-medium", "Gemini 3.7 Flash (Medium)"),
    ("gemini-3.7-flash-low", "Gemini 3.7 Flash (Low)"),
    ("gemini-3.6-flash-high", "Gemini 3.6 Flash (High)"),
    ("gemini-3.6-flash-medium", "Gemini 3.6 Flash (Medium)"),
    ("gemini-3.6-flash-low", "Gemini 3.6 Flash (Low)"),
    ("gemini-pro-agent", "Gemini 3.1 Pro (High)"),
    ("gemini-3.1-pro-low", "Gemini 3.1 Pro (Low)"),
];

/// The session modes (docs/agy-acp-reference.md §2.5).
pub const MODES: &[(&str, &str, &str)] = &[
    ("default", "Default", "Default permission prompt flow"),
    ("auto_edit", "Auto Edit", "Auto-approve edit tools"),
    ("yolo", "YOLO", "Auto-approve all tools"),
];

/// The default model of a build: RC01 `gemini-3.7-flash-high`, later builds
/// `gemini-3.8-flash-high` (docs/agy-acp-reference.md §2.5).
pub fn default_model(version: &AcpServerVersion) -> &'static str {
    match version {
        AcpServerVersion::ReleaseCandidate { .. } => "gemini-3.7-flash-high",
        AcpServerVersion::Release { .. } => "gemini-3.8-flash-high",
    }
}

/// The `initialize` result: identical capability set on RC01, 1.1.1 and 1.3.0
/// (docs/agy-acp-reference.md §2.3); no `close`, `delete` or `fork` advertised.
pub fn initialize_response(version: &AcpServerVersion) -> InitializeResponse {
    InitializeResponse::new(ProtocolVersion::V1)
        .agent_capabilities(
            AgentCapabilities::new()
                .load_session(true)
                .prompt_capabilities(
                    PromptCapabilities::new()
                        .image(true)
                        .audio(true)
                        .embedded_context(true),
                )
                .mcp_capabilities(McpCapabilities::new().http(true).sse(true))
                .session_capabilities(
                    SessionCapabilities::new()
                        .list(SessionListCapabilities::new())
                        .resume(SessionResumeCapabilities::new()),
                )
                .auth(AgentAuthCapabilities::new().logout(LogoutCapabilities::new())),
        )
        .auth_methods(auth_methods())
        .agent_info(
            Implementation::new(AGENT_NAME, version.to_string()).title(AGENT_TITLE.to_string()),
        )
}

/// The four untyped (agent-handled) auth methods (docs/agy-acp-reference.md §2.3).
pub fn auth_methods() -> Vec<AuthMethod> {
    [
        (
            "oauth-personal",
            "Log in with Google",
            "Use your personal Google account",
        ),
        (
            "oauth-business",
            "Gemini Enterprise",
            "Use a Gemini Enterprise account",
        ),
        (
            "gemini-api-key",
            "Gemini API key",
            "Use a Gemini Developer API key",
        ),
        (
            "agent-platform",
            "Agent Platform",
            "Use Agent Platform (formerly Vertex AI)",
        ),
    ]
    .into_iter()
    .map(|(id, name, description)| {
        AuthMethod::Agent(AuthMethodAgent::new(id, name).description(description.to_string()))
    })
    .collect()
}

/// The ids `authenticate` accepts.
pub fn auth_method_ids() -> Vec<&'static str> {
    vec![
        "oauth-personal",
        "oauth-business",
        "gemini-api-key",
        "agent-platform",
    ]
}

/// The `modes` object of a session response.
pub fn modes(current: &str) -> SessionModeState {
    SessionModeState::new(
        current.to_string(),
        MODES
            .iter()
            .map(|(id, name, description)| {
                SessionMode::new(id.to_string(), name.to_string())
                    .description(description.to_string())
            })
            .collect(),
    )
}

/// The `configOptions` list: `model` then `mode` (docs/agy-acp-reference.md §2.5).
pub fn config_options(model: &str, mode: &str) -> Vec<SessionConfigOption> {
    let models: Vec<SessionConfigSelectOption> = MODELS
        .iter()
        .map(|(id, name)| SessionConfigSelectOption::new(id.to_string(), name.to_string()))
        .collect();
    let modes: Vec<SessionConfigSelectOption> = MODES
        .iter()
        .map(|(id, name, _)| SessionConfigSelectOption::new(id.to_string(), name.to_string()))
        .collect();
    vec![
        SessionConfigOption::select("model", "Model", model.to_string(), models)
            .category(SessionConfigOptionCategory::Model),
        SessionConfigOption::select("mode", "Session Mode", mode.to_string(), modes)
            .category(SessionConfigOptionCategory::Mode),
    ]
}

/// The legacy `models` object Antigravity still sends although the spec removed it
/// (docs/agy-acp-reference.md §1.10, §2.5). The schema crate has no type for it, so it is raw JSON.
pub fn legacy_models(current: &str) -> Value {
    json!({
        "availableModels": MODELS.iter().map(|(id, name)| json!({"modelId": id, "name": name, "description": name})).collect::<Vec<_>>(),
        "currentModelId": current,
    })
}

/// The slash commands of `available_commands_update` (docs/agy-acp-reference.md §2.5).
pub fn commands() -> Vec<AvailableCommand> {
    vec![
        AvailableCommand::new("plan", "Write an implementation plan and wait for approval"),
        AvailableCommand::new("logout", "Clear stored credentials"),
    ]
}

/// True when `id` is a model id of [`MODELS`].
pub fn is_model(id: &str) -> bool {
    MODELS.iter().any(|(m, _)| *m == id)
}

/// True when `id` is a mode id of [`MODES`].
pub fn is_mode(id: &str) -> bool {
    MODES.iter().any(|(m, _, _)| *m == id)
}
