//! The open sessions: one task per session runs its ops in arrival order, so a turn never
//! overtakes an `open` or a `select`; `cancel` also reaches a turn that is running.

use super::cancel::CancelSignal;
use super::conversation::Conversation;
use super::release::ReleaseReason;
use super::selection::Selection;
use crate::environment::Environment;
use crate::failure::{success_reply, Failure};
use crate::faults::FaultSet;
use crate::outbox::Outbox;
use agy_protocol::driver::AgyPermission;
use agy_protocol::driver::OpResult;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

/// A session op queued for its task.
#[derive(Debug)]
enum Command {
    Turn {
        id: u64,
        text: String,
        epoch: u64,
    },
    Select {
        id: u64,
        model: Option<String>,
        effort: Option<String>,
        permission: Option<AgyPermission>,
    },
    Cancel {
        id: u64,
    },
    Close {
        id: u64,
    },
}

#[derive(Debug)]
struct Handle {
    tx: mpsc::UnboundedSender<Command>,
    cancel: watch::Sender<u64>,
    interrupt: watch::Sender<u64>,
}

/// Every open session of the driver.
pub(crate) struct Sessions {
    env: Arc<Environment>,
    faults: Arc<FaultSet>,
    outbox: Outbox,
    open: HashMap<String, Handle>,
    tasks: JoinSet<()>,
}

fn unknown(id: u64, session: &str) -> agy_protocol::driver::Reply {
    Failure::bad_request(format!("no open session `{session}`; send `open` first"))
        .into_reply(id, OpResult::default())
}

impl Sessions {
    pub(crate) fn new(env: Arc<Environment>, faults: Arc<FaultSet>, outbox: Outbox) -> Sessions {
        Sessions {
            env,
            faults,
            outbox,
            open: HashMap::new(),
            tasks: JoinSet::new(),
        }
    }

    /// `open`: replies at once; agy starts with the first turn (it only speaks after the
    /// first stdin line anyway, docs/agy-reference.md §3.2).
    pub(crate) fn open(&mut self, id: u64, session: String, selection: Selection) {
        if self.open.contains_key(&session) {
            self.outbox.send(
                Failure::bad_request(format!("session `{session}` is already open"))
                    .into_reply(id, OpResult::default()),
            );
            return;
        }
        let (tx, rx) = mpsc::unbounded_channel();
        let (cancel, cancel_rx) = watch::channel(0u64);
        let (interrupt, interrupt_rx) = watch::channel(0u64);
        let conv = Conversation::new(Arc::clone(&self.env), Arc::clone(&self.faults), selection);
        self.tasks
            .spawn(work(conv, rx, cancel_rx, interrupt_rx, self.outbox.clone()));
        self.open.insert(
            session,
            Handle {
                tx,
                cancel,
                interrupt,
            },
        );
        self.outbox.send(success_reply(
            id,
            OpResult {
                history: Some(Vec::new()),
                ..OpResult::default()
            },
        ));
    }

    fn queue(&mut self, id: u64, session: &str, command: Command) {
        match self.open.get(session) {
            Some(handle) => {
                if handle.tx.send(command).is_err() {
                    self.outbox.send(unknown(id, session));
                }
            }
            None => self.outbox.send(unknown(id, session)),
        }
    }

    pub(crate) fn turn(&mut self, id: u64, session: &str, text: String) {
        let epoch = self.open.get(session).map_or(0, |h| *h.cancel.borrow());
        self.queue(id, session, Command::Turn { id, text, epoch });
    }

    pub(crate) fn select(
        &mut self,
        id: u64,
        session: &str,
        model: Option<String>,
        effort: Option<String>,
        permission: Option<AgyPermission>,
    ) {
        self.queue(
            id,
            session,
            Command::Select {
                id,
                model,
                effort,
                permission,
            },
        );
    }

    pub(crate) fn cancel(&mut self, id: u64, session: &str) {
        if let Some(handle) = self.open.get(session) {
            handle.cancel.send_modify(|e| *e = e.wrapping_add(1));
        }
        self.queue(id, session, Command::Cancel { id });
    }

    /// `close`: the turn running now is cut short, so closing never waits for a hung
    /// agy; turns queued before the close still run first.
    pub(crate) fn close(&mut self, id: u64, session: &str) {
        if let Some(handle) = self.open.get(session) {
            handle.interrupt.send_modify(|e| *e = e.wrapping_add(1));
        }
        self.queue(id, session, Command::Close { id });
        self.open.remove(session);
    }

    /// Closes every session and waits until each process is released. `graceful` lets
    /// queued and running turns finish first (stdin closed, `shutdown`); otherwise they
    /// are cancelled (a signal).
    pub(crate) async fn shutdown(&mut self, graceful: bool) {
        for (_, handle) in self.open.drain() {
            if !graceful {
                handle.cancel.send_modify(|e| *e = e.wrapping_add(1));
                handle.interrupt.send_modify(|e| *e = e.wrapping_add(1));
            }
        }
        while self.tasks.join_next().await.is_some() {}
    }
}

async fn work(
    mut conv: Conversation,
    mut rx: mpsc::UnboundedReceiver<Command>,
    cancel_rx: watch::Receiver<u64>,
    interrupt_rx: watch::Receiver<u64>,
    outbox: Outbox,
) {
    while let Some(command) = rx.recv().await {
        match command {
            Command::Turn { id, text, epoch } => {
                let mut signal = CancelSignal::new(cancel_rx.clone(), epoch, interrupt_rx.clone());
                let outcome = conv.turn(&text, &mut signal).await;
                let result = OpResult {
                    history: Some(conv.history()),
                    extra: Some(conv.extra()),
                    ..OpResult::default()
                };
                outbox.send(match outcome {
                    Ok(text) => success_reply(
                        id,
                        OpResult {
                            text: Some(text),
                            usage: conv.turn_usage(),
                            ..result
                        },
                    ),
                    Err(f) => f.into_reply(id, result),
                });
            }
            Command::Select {
                id,
                model,
                effort,
                permission,
            } => {
                conv.select(model, effort, permission).await;
                outbox.send(success_reply(
                    id,
                    OpResult {
                        history: Some(conv.history()),
                        ..OpResult::default()
                    },
                ));
            }
            Command::Cancel { id } => {
                conv.release(ReleaseReason::Cancel).await;
                outbox.send(success_reply(
                    id,
                    OpResult {
                        history: Some(conv.history()),
                        ..OpResult::default()
                    },
                ));
            }
            Command::Close { id } => {
                conv.release(ReleaseReason::Close).await;
                outbox.send(success_reply(
                    id,
                    OpResult {
                        history: Some(conv.history()),
                        ..OpResult::default()
                    },
                ));
                return;
            }
        }
    }
    conv.release(ReleaseReason::Close).await;
}
