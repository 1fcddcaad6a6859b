//! The MCP server (rmcp, stdio): one tool, `agy`, with `prompt` and the optional
//! `model`, `conversation` and `timeout_s`.

use super::conversations::Conversations;
use super::run::{run_agy, ToolRequest, DEFAULT_TIMEOUT_S};
use super::verdict::verdict;
use crate::environment::Environment;
use crate::faults::{Fault, FaultSet};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::sync::Arc;

/// The tool's name.
pub const TOOL_NAME: &str = "agy";

/// The server: the environment, the faults and the conversations it continues.
#[derive(Debug, Clone)]
pub struct AgyServer {
    env: Arc<Environment>,
    faults: Arc<FaultSet>,
    conversations: Arc<Conversations>,
}

impl AgyServer {
    /// A server for `env` with `faults`.
    pub fn new(env: Environment, faults: FaultSet) -> AgyServer {
        AgyServer {
            env: Arc::new(env),
            faults: Arc::new(faults),
            conversations: Arc::new(Conversations::default()),
        }
    }

    fn tool() -> Tool {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "prompt": { "type": "string", "description": "What to ask agy" },
                "model": { "type": "string", "description": "agy's --model" },
                "conversation": { "type": "string", "description": "Calls with the same value continue one conversation" },
                "timeout_s": { "type": "number", "description": "Seconds before agy's print timeout" }
            },
            "required": ["prompt"]
        });
        let schema: JsonObject = match schema {
            serde_json::Value::Object(map) => map,
            _ => JsonObject::new(),
        };
        Tool::new(
            TOOL_NAME,
            "Ask the Antigravity CLI (agy) one prompt",
            schema,
        )
    }

    /// Runs one call: agy once, its result as a tool result.
    pub async fn run_call(&self, args: &JsonObject) -> Result<CallToolResult, ErrorData> {
        let text = |k: &str| args.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let Some(prompt) = text("prompt") else {
            return Err(ErrorData::invalid_params(
                "`prompt` (a string) is required",
                None,
            ));
        };
        let handle = text("conversation");
        let continued = handle
            .as_deref()
            .filter(|_| !self.faults.has(Fault::McpNewConversation))
            .and_then(|h| self.conversations.get(h));
        let req = ToolRequest {
            prompt,
            model: text("model"),
            conversation_id: continued,
            timeout_s: args
                .get("timeout_s")
                .and_then(|v| v.as_f64())
                .unwrap_or(DEFAULT_TIMEOUT_S),
        };
        let run = run_agy(&self.env, &self.faults, &req).await;
        if let (Some(h), Ok(env)) = (&handle, crate::oneshot::parse_envelope(&run.stdout)) {
            self.conversations.remember(h, &env.conversation_id);
        }
        let v = verdict(&run, req.timeout_s, &self.faults);
        let content = vec![ContentBlock::text(v.text)];
        Ok(if v.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        })
    }
}

impl ServerHandler for AgyServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "agy-reference-adapter",
                env!("CARGO_PKG_VERSION"),
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![AgyServer::tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != TOOL_NAME {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`; this server offers `{TOOL_NAME}`",
                    request.name
                ),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        self.run_call(&args).await.map(CallToolResponse::from)
    }
}

/// Serves MCP on stdin/stdout until the client closes it.
pub async fn serve_mcp(env: Environment, faults: FaultSet) -> anyhow::Result<()> {
    let service = AgyServer::new(env, faults)
        .serve(rmcp::transport::stdio())
        .await?;
    service.waiting().await?;
    Ok(())
}
