//! One run of the adapter: the process started as the bridge's child (in the bridge's
//! process group, so the runner's group kill and leftover checks cover it), the ACP
//! connection to it through the official SDK's client side, and `initialize`.

use super::error::AgentError;
use super::frames::{incoming, outgoing, Broken};
use super::seen::{Policy, Seen};
use crate::launch::{within_startup, Launch};
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    ContentBlock, InitializeRequest, InitializeResponse, PermissionOptionKind,
    RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
    SelectedPermissionOutcome, SessionNotification, SessionUpdate,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Agent, Client, Lines};
use agy_process::lines::DEFAULT_LINE_CAP;
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::{oneshot, watch};

/// How the agent's process ended: its exit code, or the signal that ended it.
pub(super) type Exit = Option<String>;

/// A running agent with its connection.
pub(super) struct Live {
    /// The connection's handle for requests and notifications.
    pub(super) cx: ConnectionTo<Agent>,
    /// The `initialize` result.
    pub(super) init: InitializeResponse,
    pid: Option<u32>,
    /// The pid is the reaper's: killing it ends the agent's whole tree.
    reaped: bool,
    exited: watch::Receiver<Exit>,
    stop: Mutex<Option<oneshot::Sender<()>>>,
}

impl Live {
    /// Resolves when the agent's process has ended, with how it ended.
    pub(super) async fn exited(&self) -> String {
        let mut rx = self.exited.clone();
        let how = match rx.wait_for(Option::is_some).await {
            Ok(e) => e.clone().unwrap_or_default(),
            Err(_) => "gone".to_string(),
        };
        how
    }

    /// SIGKILL to the agent's process; started under the reaper, to its whole tree
    /// (started by a bridge, its children are the runner's group kill's).
    pub(super) fn kill(&self) {
        let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) else {
            return;
        };
        if self.reaped {
            crate::launch::end_reaped_tree(pid.unsigned_abs());
        } else {
            let pid = nix::unistd::Pid::from_raw(pid);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
        }
    }

    /// Ends the connection, which closes the agent's stdin.
    pub(super) fn close(&self) {
        if let Some(stop) = self.stop.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = stop.send(());
        }
    }

    /// Waits up to `within` for the agent to exit; `None` when it is still running.
    pub(super) async fn wait_exit(&self, within: Duration) -> Option<String> {
        tokio::time::timeout(within, self.exited()).await.ok()
    }
}

fn describe(status: std::io::Result<std::process::ExitStatus>) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status {
        Ok(s) => match (s.code(), s.signal()) {
            (Some(code), _) => format!("exit {code}"),
            (None, Some(sig)) => format!("signal {sig}"),
            (None, None) => "ended".to_string(),
        },
        Err(e) => format!("unknown ({e})"),
    }
}

fn permission_answer(req: &RequestPermissionRequest, policy: Policy) -> RequestPermissionOutcome {
    let kinds: &[PermissionOptionKind] = match policy {
        Policy::Allow => &[
            PermissionOptionKind::AllowOnce,
            PermissionOptionKind::AllowAlways,
        ],
        Policy::Deny => &[
            PermissionOptionKind::RejectOnce,
            PermissionOptionKind::RejectAlways,
        ],
        Policy::Cancel => &[],
    };
    kinds
        .iter()
        .find_map(|k| req.options.iter().find(|o| o.kind == *k))
        .map(|o| {
            RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(o.option_id.clone()))
        })
        .unwrap_or(RequestPermissionOutcome::Cancelled)
}

fn outcome_name(outcome: &RequestPermissionOutcome) -> String {
    match outcome {
        RequestPermissionOutcome::Selected(s) => serde_json::to_value(&s.option_id)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        _ => "cancelled".to_string(),
    }
}

/// Runs the ACP connection over the agent's stdio on a task of its own: the handle
/// arrives on the first channel, and the connection ends when the second one fires (or
/// when the agent prints a line over the cap, said in `broken`).
fn connect(
    stdin: tokio::process::ChildStdin,
    stdout: tokio::process::ChildStdout,
    seen: &Seen,
    broken: &Broken,
) -> (oneshot::Receiver<ConnectionTo<Agent>>, oneshot::Sender<()>) {
    let strays = seen.strays().clone();
    strays.connected();
    let transport = Lines::new(
        outgoing(stdin, strays.clone()),
        incoming(stdout, DEFAULT_LINE_CAP, (broken.clone(), strays)),
    );
    let (cx_tx, cx_rx) = oneshot::channel();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let (on_chunk, on_permission) = (seen.clone(), seen.clone());
    tokio::spawn(async move {
        let ended = Client
            .v1()
            .on_receive_notification(
                async move |n: SessionNotification, _cx| {
                    if let SessionUpdate::AgentMessageChunk(chunk) = &n.update {
                        if let ContentBlock::Text(t) = &chunk.content {
                            on_chunk.chunk(&n.session_id, &t.text);
                        }
                    }
                    Ok(())
                },
                agent_client_protocol::on_receive_notification!(),
            )
            .on_receive_request(
                async move |req: RequestPermissionRequest, responder, _cx| {
                    let outcome = permission_answer(&req, on_permission.policy(&req.session_id));
                    on_permission.answered(outcome_name(&outcome));
                    responder.respond(RequestPermissionResponse::new(outcome))
                },
                agent_client_protocol::on_receive_request!(),
            )
            .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
                let _ = cx_tx.send(cx);
                let _ = stop_rx.await;
                Ok(())
            })
            .await;
        if let Err(e) = ended {
            eprintln!("agy-harness bridge: the ACP connection ended: {e}");
        }
    });
    (cx_rx, stop_tx)
}

/// Starts `command` from the bridge (in the sandbox the runner made, inheriting its
/// environment), connects to it and sends `initialize`; an agent that exits first is
/// an error naming how it ended.
pub(super) async fn start(command: &[String], seen: &Seen) -> Result<Live, AgentError> {
    start_with(&Launch::inherited(command)?, seen, None).await
}

/// Starts `launch`, connects to it and sends `initialize`, answered within `startup`
/// when given (the agent is killed otherwise).
pub(super) async fn start_with(
    launch: &Launch,
    seen: &Seen,
    startup: Option<Duration>,
) -> Result<Live, AgentError> {
    let (mut cmd, reaped) = launch.command()?;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|source| AgentError::NoStart {
            program: launch.shown().to_string(),
            source,
        })?;
    let pid = child.id();
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(AgentError::NoPipes);
    };
    let (exit_tx, exited) = watch::channel(None);
    tokio::spawn(async move {
        let status = child.wait().await;
        let _ = exit_tx.send(Some(describe(status)));
    });
    let broken = Broken::default();
    let (cx_rx, stop_tx) = connect(stdin, stdout, seen, &broken);
    let live = Live {
        cx: cx_rx.await.map_err(|_| AgentError::NoConnection)?,
        init: InitializeResponse::new(ProtocolVersion::V1),
        pid,
        reaped,
        exited,
        stop: Mutex::new(Some(stop_tx)),
    };
    let asked = initialize(&live, &broken);
    let init = match startup {
        None => asked.await,
        Some(within) => match within_startup(launch.shown(), "`initialize`", within, asked).await {
            Ok(answer) => answer,
            Err(late) => {
                live.kill();
                return Err(AgentError::Startup(late));
            }
        },
    };
    Ok(Live {
        init: init?,
        ..live
    })
}

/// `initialize`, or how the agent ended before it answered (a line of the agent the
/// bounded reader refused, when that is why).
async fn initialize(live: &Live, broken: &Broken) -> Result<InitializeResponse, AgentError> {
    let request = live
        .cx
        .send_request(InitializeRequest::new(ProtocolVersion::V1))
        .block_task();
    let unreadable = || {
        let problem = broken.lock().unwrap_or_else(|e| e.into_inner()).clone();
        problem.map(|problem| AgentError::Unreadable { problem })
    };
    tokio::select! {
        r = request => r.map_err(|e| unreadable().unwrap_or(AgentError::Initialize(e))),
        how = live.exited() => Err(unreadable().unwrap_or(AgentError::EndedBeforeInitialize { how })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    /// Starts `words` in a sandbox of its own (kept alive until the start ends).
    async fn start(words: &[String], seen: &Seen) -> Result<Live, AgentError> {
        let sandbox = crate::sandbox::Sandbox::create(None).expect("sandbox");
        start_with(&Launch::in_sandbox(&sandbox, words)?, seen, None).await
    }

    #[tokio::test]
    async fn a_command_that_cannot_start_names_why() {
        let seen = Seen::default();
        let empty = start(&[], &seen).await.err();
        assert!(
            matches!(
                empty,
                Some(AgentError::Launch(crate::launch::LaunchError::EmptyCommand))
            ),
            "{empty:?}"
        );
        let missing = start(&command(&["/nonexistent/agy-acp-agent"]), &seen)
            .await
            .err();
        assert!(
            matches!(&missing, Some(AgentError::NoStart { source, .. }
                | AgentError::Launch(crate::launch::LaunchError::Missing { source, .. }))
                if source.kind() == std::io::ErrorKind::NotFound),
            "{missing:?}"
        );
    }

    #[tokio::test]
    async fn an_error_reply_to_initialize_is_the_agents_error() {
        // Answers the first request with a JSON-RPC error of its id, then waits for
        // its stdin to close (the connection's end).
        let script = r#"read -r line
id=$(printf '%s' "$line" | sed -n 's/.*"id":\([^,}]*\).*/\1/p')
printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"no models"}}\n' "$id"
cat >/dev/null"#;
        let err = start(&command(&["sh", "-c", script]), &Seen::default())
            .await
            .err();
        assert!(
            matches!(&err, Some(AgentError::Initialize(e)) if e.message == "no models"),
            "{err:?}"
        );
    }

    #[tokio::test]
    async fn started_by_a_bridge_outside_a_sandbox_it_is_refused() {
        // The bridge runs only as a driver the runner started in a sandbox; run by
        // hand, it starts nothing with the user's environment.
        let refused = super::start(&command(&["/bin/true"]), &Seen::default())
            .await
            .err();
        assert!(
            matches!(
                refused,
                Some(AgentError::Launch(
                    crate::launch::LaunchError::NoSandbox { .. }
                ))
            ),
            "{refused:?}"
        );
    }

    #[tokio::test]
    async fn an_agent_that_exits_first_is_not_started() {
        let err = start(&command(&["sh", "-c", "exit 3"]), &Seen::default())
            .await
            .err();
        assert!(
            matches!(
                &err,
                Some(AgentError::EndedBeforeInitialize { .. } | AgentError::Initialize(_))
            ),
            "{err:?}"
        );
    }

    /// An agent printing one endless line grew the bridge to gigabytes (the SDK's
    /// transport read a line whole); the line is refused at the cap, and said.
    #[tokio::test]
    async fn an_agent_printing_a_line_over_the_cap_is_refused_naming_the_cap() {
        let script = format!(
            "head -c {} /dev/zero | tr '\\0' a; echo; cat >/dev/null",
            DEFAULT_LINE_CAP + 1
        );
        let err = start(&command(&["sh", "-c", &script]), &Seen::default())
            .await
            .err();
        let cap = format!("the cap of {DEFAULT_LINE_CAP} bytes");
        assert!(
            matches!(&err, Some(AgentError::Unreadable { problem }) if problem.contains(&cap)),
            "{err:?}"
        );
    }
}
