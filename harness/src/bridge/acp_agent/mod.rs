//! The bridge's ACP client, for the `acp-agent` profile: the agent is the adapter
//! command, the ops are `agent_*` (docs/driver-protocol.md), and every ACP message goes
//! through the official `agent-client-protocol` SDK.

mod agent;
mod error;
mod frames;
mod ops;
mod seen;
mod session_folder;
mod strays;
mod verdict;

use agy_protocol::driver::{OpResult, Reply, RequestOp};
pub use error::AgentError;

/// The error name of an `agent_load` the agent cannot take: it advertises neither
/// `loadSession` nor `sessionCapabilities.resume` (both optional in ACP). A scenario
/// that meets it is not applicable (`runner::applicable`).
pub const NOT_ADVERTISED: &str = "not_advertised";
use ops::Bridge;
use std::sync::Arc;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

/// The name `hello` answers with.
pub const DRIVER_NAME: &str = "agy-harness bridge acp";

fn hello(id: u64) -> Reply {
    Reply {
        id,
        ok: true,
        outcome: None,
        retryable: None,
        error: None,
        result: OpResult {
            driver: Some(DRIVER_NAME.to_string()),
            profiles: vec![crate::profile::acp_agent::UNIT.profile],
            ..OpResult::default()
        },
    }
}

fn unknown_op(id: u64, name: &str) -> Reply {
    Reply {
        id,
        ok: false,
        outcome: Some(agy_protocol::driver::Outcome::Permanent),
        retryable: Some(false),
        error: Some(agy_protocol::driver::ErrorInfo {
            name: "bad_request".into(),
            message: format!(
                "the acp bridge does not answer `{name}`; acp-agent scenarios use the `agent_*` ops"
            ),
            hint: None,
        }),
        result: OpResult::default(),
    }
}

/// What an op does before the next op is read: whatever must reach the agent in the
/// order the ops came (a prompt before the cancel that follows it).
enum Started {
    /// Answered already.
    Done(Reply),
    /// A prompt in flight.
    Prompt(ops::Pending),
    /// A kill or close under way.
    Ending(RequestOp, Option<Arc<agent::Live>>),
    /// Everything happens in the op's own task.
    Later(RequestOp),
}

fn begin(bridge: &Bridge, id: u64, op: RequestOp) -> Started {
    match op {
        RequestOp::AgentPrompt { session, text } => match bridge.send_prompt(id, &session, &text) {
            Ok(p) => Started::Prompt(p),
            Err(reply) => Started::Done(*reply),
        },
        RequestOp::AgentCancel { session } => Started::Done(bridge.cancel(id, &session)),
        RequestOp::AgentKill {} => Started::Ending(op, bridge.send_kill()),
        RequestOp::AgentClose {} => Started::Ending(op, bridge.send_close()),
        op => Started::Later(op),
    }
}

async fn answer(bridge: Arc<Bridge>, id: u64, started: Started) -> Reply {
    match started {
        Started::Done(reply) => reply,
        Started::Prompt(p) => bridge.finish_prompt(p).await,
        Started::Ending(RequestOp::AgentKill {}, live) => bridge.kill(id, live).await,
        Started::Ending(_, live) => bridge.close(id, live).await,
        Started::Later(RequestOp::AgentInitialize {}) => bridge.initialize(id).await,
        Started::Later(RequestOp::AgentNew {
            session,
            permission,
            cwd,
        }) => {
            bridge
                .new_session(id, &session, permission, cwd.as_deref())
                .await
        }
        Started::Later(RequestOp::AgentLoad { session }) => bridge.load(id, &session).await,
        Started::Later(other) => unknown_op(id, other.name()),
    }
}

/// Starts the agent `launch` (in the sandbox of `agy-harness check`), sends
/// `initialize`, answered within `startup`, and closes it: the `initialize` result.
/// The agent is killed, whole tree, when it does not exit on its own.
pub async fn capabilities(
    launch: &crate::launch::Launch,
    startup: std::time::Duration,
) -> Result<serde_json::Value, AgentError> {
    let live = agent::start_with(launch, &seen::Seen::default(), Some(startup)).await?;
    let init = serde_json::to_value(&live.init).map_err(AgentError::Unserialisable)?;
    live.close();
    if live
        .wait_exit(std::time::Duration::from_secs(5))
        .await
        .is_none()
    {
        live.kill();
    }
    // Whatever it left behind: its tree under the reaper.
    live.kill();
    Ok(init)
}

/// Serves driver protocol v1 on stdio for the ACP agent `command` until stdin closes
/// or `shutdown` arrives; every op runs concurrently and is answered by id.
pub async fn serve(command: Vec<String>) -> i32 {
    let bridge = Arc::new(Bridge::new(command));
    let (tx, mut rx) = mpsc::unbounded_channel::<Reply>();
    let writer = tokio::spawn(async move {
        let mut out = tokio::io::stdout();
        while let Some(reply) = rx.recv().await {
            let mut line = serde_json::to_string(&reply).unwrap_or_default();
            line.push('\n');
            if out.write_all(line.as_bytes()).await.is_err() || out.flush().await.is_err() {
                break;
            }
        }
    });
    let mut requests = crate::bridge::Requests::stdin();
    let mut shutdown = None;
    while let Some(request) = requests.next().await {
        match request.op {
            RequestOp::Hello {} => {
                let _ = tx.send(hello(request.id));
            }
            RequestOp::Shutdown {} => {
                shutdown = Some(request.id);
                break;
            }
            op => {
                let started = begin(&bridge, request.id, op);
                let (bridge, tx) = (bridge.clone(), tx.clone());
                tokio::spawn(async move {
                    let _ = tx.send(answer(bridge, request.id, started).await);
                });
            }
        }
    }
    bridge.finish().await;
    if let Some(id) = shutdown {
        let mut bye = hello(id);
        bye.result = OpResult::default();
        let _ = tx.send(bye);
    }
    drop(tx);
    let _ = writer.await;
    crate::exit_code::ALL_CONFORM
}
