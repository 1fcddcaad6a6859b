//! The MCP bridge: driver protocol v1 toward the runner, an MCP client (rmcp, stdio)
//! of the adapter command toward the adapter. `tool_list` is `tools/list`;
//! `tool_call` is one `tools/call` of the configured tool, its reply the class the
//! result's text names (docs/driver-protocol.md, "mcp").

use super::mcp_conversations::{Conversations, Turn};
use super::mcp_error::{ArgumentError, ServerError};
use super::mcp_tool::{
    bridge_failure, named_conversation, tool_reply, BridgeFailure, ToolAsk, ToolShape,
    DEFAULT_CONVERSATION_FIELD,
};
use super::BridgeArgs;
use crate::launch::{Launch, LaunchError, TreeGuard};
use crate::mcp_table::ConversationFrom;
use agy_protocol::driver::{OpResult, Reply, Request, RequestOp};
use rmcp::service::{Peer, RunningService};
use rmcp::{RoleClient, ServiceExt};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;

/// The bridge's stdout, shared by the calls in flight: one reply per line.
type Out = Arc<Mutex<Box<dyn AsyncWrite + Send + Unpin>>>;

/// How long closing the server may take after `shutdown` or the end of stdin (stdin
/// closed, then SIGTERM, then SIGKILL); the runner's group kill follows anyway.
const CLOSE_WITHIN: Duration = Duration::from_secs(2);

/// The arguments every call carries, from `NAME=JSON` options.
fn fixed_arguments(args: &BridgeArgs) -> Result<rmcp::model::JsonObject, ArgumentError> {
    let mut out = rmcp::model::JsonObject::new();
    for a in &args.arguments {
        let (name, json) = a
            .split_once('=')
            .ok_or_else(|| ArgumentError::NotNameJson(a.clone()))?;
        let value = serde_json::from_str(json).map_err(|source| ArgumentError::NotJson {
            option: a.clone(),
            source,
        })?;
        out.insert(name.to_string(), value);
    }
    Ok(out)
}

/// The tool's shape from the bridge's arguments: `None` when no tool is named (only
/// `tool_list` can be served then).
fn shape_of(args: &BridgeArgs, fixed: rmcp::model::JsonObject) -> Option<ToolShape> {
    Some(ToolShape {
        tool: args.tool.clone()?,
        prompt_arg: args
            .prompt_arg
            .clone()
            .unwrap_or_else(|| "prompt".to_string()),
        model_arg: args.model_arg.clone(),
        conversation_arg: args.conversation_arg.clone(),
        timeout_arg: args.timeout_arg.clone(),
        continue_tool: args.continue_tool.clone(),
        conversation_from: if args.conversation_folder {
            ConversationFrom::Folder
        } else if args.conversation_from_result {
            ConversationFrom::Result
        } else {
            ConversationFrom::Handle
        },
        conversation_field: args
            .conversation_field
            .clone()
            .unwrap_or_else(|| DEFAULT_CONVERSATION_FIELD.to_string()),
        fixed,
    })
}

/// A started MCP server: its session, and its process tree, ended when dropped.
pub struct Server {
    /// The MCP session.
    pub service: RunningService<RoleClient, ()>,
    /// Ends the server's tree when the server is dropped.
    _tree: TreeGuard,
    /// The server's process (killed on drop, after its tree).
    _child: tokio::process::Child,
}

/// Starts the adapter `launch` and initialises the MCP session over its stdio. The
/// harness keeps the process (rmcp gets only its pipes), so the whole tree under the
/// reaper ends with the server, even when the start is abandoned half-way.
pub async fn start_server(launch: &Launch) -> Result<Server, ServerError> {
    let program = launch.shown().to_string();
    let no_start = |why: String| ServerError::NoStart {
        program: program.clone(),
        why,
    };
    let (mut cmd, reaped) = launch.command().map_err(|e| match e {
        LaunchError::EmptyCommand => ServerError::EmptyCommand,
        other => no_start(other.to_string()),
    })?;
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| no_start(e.to_string()))?;
    let tree = TreeGuard::new(launch, child.id(), reaped);
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(no_start("its stdio could not be piped".to_string()));
    };
    let service =
        ().serve((stdout, stdin))
            .await
            .map_err(|e| ServerError::NoInitialise {
                program: program.clone(),
                why: e.to_string(),
            })?;
    Ok(Server {
        service,
        _tree: tree,
        _child: child,
    })
}

async fn send(out: &Out, reply: Reply) {
    let Ok(mut line) = serde_json::to_string(&reply) else {
        return;
    };
    line.push('\n');
    let mut w = out.lock().await;
    let _ = w.write_all(line.as_bytes()).await;
    let _ = w.flush().await;
}

/// `agy-harness bridge mcp`: serves driver protocol v1 on stdio until `shutdown` or
/// the end of stdin; returns the exit code.
pub async fn serve(args: BridgeArgs) -> i32 {
    let fixed = match fixed_arguments(&args) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("agy-harness bridge: {e}");
            return crate::exit_code::BAD_INPUT;
        }
    };
    let shape = shape_of(&args, fixed).map(Arc::new);
    let named = Conversations::default();
    let out: Out = Arc::new(Mutex::new(Box::new(tokio::io::stdout())));
    // The bridge runs in the sandbox the runner made: the server inherits it.
    let launched = Launch::inherited(&args.command).map_err(|e| match e {
        LaunchError::EmptyCommand => ServerError::EmptyCommand,
        other => ServerError::NoStart {
            program: args.command.first().cloned().unwrap_or_default(),
            why: other.to_string(),
        },
    });
    let mut server = match launched {
        Ok(launch) => start_server(&launch).await,
        Err(e) => Err(e),
    };
    if let Err(e) = &server {
        eprintln!("agy-harness bridge: {e}");
    }
    let peer = server
        .as_ref()
        .map(|s| s.service.peer().clone())
        .map_err(Clone::clone);
    let mut requests = super::Requests::stdin();
    let mut calls = tokio::task::JoinSet::new();
    while let Some(request) = requests.next().await {
        if let RequestOp::Shutdown {} = request.op {
            send(&out, ok_reply(request.id, OpResult::default())).await;
            break;
        }
        let (out, shape, named) = (out.clone(), shape.clone(), named.clone());
        let started = peer.clone();
        calls.spawn(async move {
            let reply = answer(request, started, shape.as_deref(), &named).await;
            send(&out, reply).await;
        });
    }
    calls.abort_all();
    if let Ok(s) = &mut server {
        let _ = s.service.close_with_timeout(CLOSE_WITHIN).await;
    }
    crate::exit_code::ALL_CONFORM
}

fn ok_reply(id: u64, result: OpResult) -> Reply {
    Reply {
        id,
        ok: true,
        outcome: None,
        retryable: None,
        error: None,
        result,
    }
}

/// The reply to one request.
async fn answer(
    request: Request,
    peer: Result<Peer<RoleClient>, ServerError>,
    shape: Option<&ToolShape>,
    named: &Conversations,
) -> Reply {
    let id = request.id;
    let peer = match peer {
        Ok(p) => p,
        Err(e) => return bridge_failure(id, BridgeFailure::Start, e.to_string()),
    };
    match request.op {
        RequestOp::Hello {} => ok_reply(id, hello(&peer)),
        RequestOp::ToolList {} => match peer.list_all_tools().await {
            Ok(tools) => {
                let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
                ok_reply(
                    id,
                    OpResult {
                        extra: Some(serde_json::json!({ "tools": names })),
                        ..OpResult::default()
                    },
                )
            }
            Err(e) => bridge_failure(id, BridgeFailure::Mcp, format!("tools/list failed: {e}")),
        },
        RequestOp::ToolCall {
            prompt,
            model,
            conversation,
            timeout_s,
        } => {
            let ask = ToolAsk {
                prompt,
                model,
                conversation,
                timeout_s,
            };
            call(id, &peer, shape, ask, named).await
        }
        other => bridge_failure(
            id,
            BridgeFailure::BadRequest,
            format!("the mcp bridge does not serve `{}`", other.name()),
        ),
    }
}

fn hello(peer: &Peer<RoleClient>) -> OpResult {
    let server = peer
        .peer_info()
        .and_then(|i| i.server_info.clone())
        .map(|s| format!("{} {}", s.name, s.version))
        .unwrap_or_else(|| "an MCP server".to_string());
    OpResult {
        driver: Some(format!("agy-harness bridge mcp → {server}")),
        ..OpResult::default()
    }
}

/// One `tools/call` of the configured tool.
async fn call(
    id: u64,
    peer: &Peer<RoleClient>,
    shape: Option<&ToolShape>,
    mut ask: ToolAsk,
    named: &Conversations,
) -> Reply {
    let Some(shape) = shape else {
        return bridge_failure(
            id,
            BridgeFailure::BadRequest,
            "the adapter config's `[mcp]` names no `tool`".to_string(),
        );
    };
    let handle = ask.conversation.clone();
    let turn = handle.as_deref().map(|h| named.begin(h));
    if let Some(h) = &handle {
        let work = std::env::current_dir().unwrap_or_default();
        ask.conversation = match named.argument(shape.conversation_from, h, &work) {
            Ok(value) => value,
            Err(e) => {
                let why = format!("the folder of conversation `{h}` could not be made: {e}");
                return bridge_failure(id, BridgeFailure::BadRequest, why);
            }
        };
    }
    let args = match shape.arguments(&ask) {
        Ok(a) => a,
        Err(e) => return bridge_failure(id, BridgeFailure::BadRequest, e.to_string()),
    };
    let tool = match (&shape.continue_tool, turn) {
        (Some(next), Some(Turn::Later)) => next.clone(),
        _ => shape.tool.clone(),
    };
    let params = rmcp::model::CallToolRequestParams::new(tool.clone()).with_arguments(args);
    match peer.call_tool(params).await {
        Ok(result) => {
            if let (ConversationFrom::Result, Some(h), Some(found)) = (
                shape.conversation_from,
                handle,
                named_conversation(&result, &shape.conversation_field),
            ) {
                named.name(&h, found);
            }
            tool_reply(id, &result)
        }
        Err(e) => bridge_failure(
            id,
            BridgeFailure::Mcp,
            format!("tools/call of `{tool}` failed (no tool result): {e}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        bridge: BridgeArgs,
    }

    fn args(words: &[&str]) -> BridgeArgs {
        let argv = ["bridge"].iter().chain(words).chain(&["--", "server"]);
        Cli::try_parse_from(argv).expect("parsed").bridge
    }

    #[test]
    fn a_fixed_argument_is_name_equals_json() {
        let fixed = fixed_arguments(&args(&["mcp", "--argument", "dir=\".\""]));
        assert_eq!(fixed.expect("parsed").get("dir"), Some(&".".into()));
        let no_name = fixed_arguments(&args(&["mcp", "--argument", "dir"]));
        assert!(
            matches!(&no_name, Err(ArgumentError::NotNameJson(option)) if option == "dir"),
            "{no_name:?}"
        );
        let no_json = fixed_arguments(&args(&["mcp", "--argument", "dir=."]));
        assert!(
            matches!(&no_json, Err(ArgumentError::NotJson { option, .. }) if option == "dir=."),
            "{no_json:?}"
        );
    }

    #[tokio::test]
    async fn a_server_that_cannot_start_names_why() {
        let sandbox = crate::sandbox::Sandbox::create(None).expect("sandbox");
        let empty = Launch::in_sandbox(&sandbox, &[]).err();
        assert!(
            matches!(empty, Some(LaunchError::EmptyCommand)),
            "{empty:?}"
        );
        let missing = ["/nonexistent/mcp-server".to_string()];
        let launch = Launch::in_sandbox(&sandbox, &missing).expect("a command");
        let err = start_server(&launch).await.err();
        assert!(
            matches!(&err, Some(ServerError::NoStart { program, .. }) if program == &missing[0]),
            "{err:?}"
        );
    }
}
