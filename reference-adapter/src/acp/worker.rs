//! The driver side of the `acp` profile: one task per session handle runs its ops in
//! arrival order; `acp_cancel` reaches a running turn through a watch channel, and
//! `acp_restart_agent` / `acp_close` interrupt it. A handle the driver has not seen is
//! looked up in the checkpoint store (a client restart: stop and start the driver with
//! the same `AGY_DRIVER_STATE_DIR`).

use super::checkpoint::CheckpointStore;
use super::client::{AcpClient, ClientSetup, DEFAULT_ACP_BIN};
use super::turn::turn_extra;
use crate::environment::Environment;
use crate::failure::{success_reply, Failure};
use crate::faults::FaultSet;
use crate::outbox::Outbox;
use agy_protocol::driver::{OpResult, Reply};
use agy_protocol::env::{AGY_ACP_AUTH_METHOD, AGY_ACP_BIN};
use serde_json::json;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

/// An op queued for a session's task.
#[derive(Debug)]
pub(crate) enum AcpCommand {
    New {
        id: u64,
        model: Option<String>,
        mode: Option<String>,
        permission: Option<agy_protocol::driver::AcpPermission>,
    },
    Prompt {
        id: u64,
        text: String,
    },
    Cancel {
        id: u64,
    },
    Restore {
        id: u64,
    },
    RestartAgent {
        id: u64,
    },
    Status {
        id: u64,
    },
    Close {
        id: u64,
    },
}

struct Handle {
    tx: mpsc::UnboundedSender<AcpCommand>,
    cancel: watch::Sender<u64>,
    interrupt: watch::Sender<u64>,
}

/// Every ACP session handle of the driver.
pub(crate) struct AcpSessions {
    setup: ClientSetup,
    outbox: Outbox,
    open: HashMap<String, Handle>,
    tasks: JoinSet<()>,
}

/// The agent binary: `$AGY_ACP_BIN`, else `agy_acp_server` on `PATH`.
fn acp_bin() -> PathBuf {
    std::env::var_os(AGY_ACP_BIN)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_ACP_BIN))
}

impl AcpSessions {
    pub(crate) fn new(env: Arc<Environment>, faults: Arc<FaultSet>, outbox: Outbox) -> AcpSessions {
        AcpSessions {
            setup: ClientSetup {
                bin: acp_bin(),
                cwd: env.work_dir.clone(),
                store: CheckpointStore::new(&env.state_dir),
                setup_timeout: env.scaled(120.0),
                grace: env.scaled(5.0),
                auth_method: std::env::var(AGY_ACP_AUTH_METHOD)
                    .ok()
                    .filter(|m| !m.is_empty()),
                faults,
            },
            outbox,
            open: HashMap::new(),
            tasks: JoinSet::new(),
        }
    }

    fn spawn(&mut self, session: &str, client: AcpClient) -> &Handle {
        let (tx, rx) = mpsc::unbounded_channel();
        let (cancel, cancel_rx) = watch::channel(0u64);
        let (interrupt, interrupt_rx) = watch::channel(0u64);
        self.tasks.spawn(work(
            client,
            rx,
            cancel_rx,
            interrupt_rx,
            self.outbox.clone(),
        ));
        self.open.insert(
            session.to_string(),
            Handle {
                tx,
                cancel,
                interrupt,
            },
        );
        &self.open[session]
    }

    /// Queues `command` for `session`, starting its task from the checkpoint store when
    /// the driver has not seen the handle yet.
    pub(crate) fn dispatch(&mut self, session: &str, command: AcpCommand) {
        let id = command_id(&command);
        if let Err(e) = self.setup.store.path(session) {
            self.outbox
                .send(Failure::bad_request(e).into_reply(id, OpResult::default()));
            return;
        }
        match &command {
            AcpCommand::New { .. } => {
                if self.open.contains_key(session) {
                    self.outbox.send(
                        Failure::bad_request(format!("session `{session}` is already open"))
                            .into_reply(id, OpResult::default()),
                    );
                    return;
                }
                let client = AcpClient::fresh(session.to_string(), self.setup.clone());
                self.spawn(session, client);
            }
            _ if !self.open.contains_key(session) => {
                match AcpClient::from_checkpoint(session.to_string(), self.setup.clone()) {
                    Some(client) => {
                        self.spawn(session, client);
                    }
                    None => {
                        self.outbox.send(
                            Failure::bad_request(format!(
                                "no ACP session `{session}`: nothing open and nothing saved; send `acp_new` first"
                            ))
                            .into_reply(id, OpResult::default()),
                        );
                        return;
                    }
                }
            }
            _ => {}
        }
        let Some(handle) = self.open.get(session) else {
            return;
        };
        match &command {
            AcpCommand::Cancel { .. } => handle.cancel.send_modify(|e| *e = e.wrapping_add(1)),
            AcpCommand::RestartAgent { .. } | AcpCommand::Close { .. } => {
                handle.interrupt.send_modify(|e| *e = e.wrapping_add(1))
            }
            _ => {}
        }
        let closing = matches!(command, AcpCommand::Close { .. });
        if handle.tx.send(command).is_err() {
            self.outbox.send(
                Failure::bad_request(format!("session `{session}` is closed"))
                    .into_reply(id, OpResult::default()),
            );
        }
        if closing {
            self.open.remove(session);
        }
    }

    /// Stops every agent (checkpoints stay) and waits for the tasks.
    pub(crate) async fn shutdown(&mut self, graceful: bool) {
        for (_, handle) in self.open.drain() {
            if !graceful {
                handle.interrupt.send_modify(|e| *e = e.wrapping_add(1));
            }
        }
        while self.tasks.join_next().await.is_some() {}
    }
}

fn command_id(command: &AcpCommand) -> u64 {
    match command {
        AcpCommand::New { id, .. }
        | AcpCommand::Prompt { id, .. }
        | AcpCommand::Cancel { id }
        | AcpCommand::Restore { id }
        | AcpCommand::RestartAgent { id }
        | AcpCommand::Status { id }
        | AcpCommand::Close { id } => *id,
    }
}

fn reply(client: &AcpClient, id: u64, outcome: Result<serde_json::Value, Failure>) -> Reply {
    match outcome {
        Ok(extra) => success_reply(id, client.result(extra)),
        Err(f) => f.into_reply(id, client.result(json!({}))),
    }
}

async fn work(
    mut client: AcpClient,
    mut rx: mpsc::UnboundedReceiver<AcpCommand>,
    mut cancel_rx: watch::Receiver<u64>,
    mut interrupt_rx: watch::Receiver<u64>,
    outbox: Outbox,
) {
    while let Some(command) = rx.recv().await {
        // A cancel or interrupt meant for an earlier op must not hit the next one.
        cancel_rx.mark_unchanged();
        interrupt_rx.mark_unchanged();
        match command {
            AcpCommand::New {
                id,
                model,
                mode,
                permission,
            } => {
                let outcome = client.new_session(model, mode, permission).await;
                outbox.send(reply(&client, id, outcome.map(|()| json!({}))));
            }
            AcpCommand::Prompt { id, text } => {
                let outcome = client
                    .prompt(&text, &mut cancel_rx, &mut interrupt_rx)
                    .await;
                let r = match outcome {
                    Ok(report) => {
                        let mut r = success_reply(id, client.result(turn_extra(&report)));
                        r.result.text = Some(report.text);
                        r
                    }
                    Err(f) => f.into_reply(id, client.result(json!({}))),
                };
                outbox.send(r);
            }
            AcpCommand::Cancel { id } => {
                // The running turn (if any) already got the signal; nothing to wait for.
                outbox.send(reply(&client, id, Ok(json!({}))));
            }
            AcpCommand::Restore { id } => {
                let outcome = if client.is_live() {
                    Ok(json!({ "already_live": true }))
                } else {
                    client.restore(false).await.map(|()| json!({}))
                };
                outbox.send(reply(&client, id, outcome));
            }
            AcpCommand::RestartAgent { id } => {
                client.drop_agent().await;
                let outcome = client.restore(false).await.map(|()| json!({}));
                outbox.send(reply(&client, id, outcome));
            }
            AcpCommand::Status { id } => outbox.send(reply(&client, id, Ok(json!({})))),
            AcpCommand::Close { id } => {
                client.close().await;
                outbox.send(reply(&client, id, Ok(json!({}))));
                return;
            }
        }
    }
    client.close().await;
}
