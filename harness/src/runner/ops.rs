//! Running the ops: the driver started, each op sent (concurrent ones together), each
//! reply collected with what agy did meanwhile, a restart when the scenario asks.

use super::context::{Ctx, Ended, StartError};
use super::settings::Cancel;
use crate::driver_client::DriverClient;
use crate::observation::{classify, Observation, OpObservation};
use crate::report::Status;
use crate::scenario::{AcpWait, OpAction};
use agy_protocol::driver::{OpResult, Reply, RequestOp};
use agy_protocol::journal::now_us;
use std::time::Duration;
use tokio::time::Instant;

/// Why a scenario's ops could not all be run; the words are the note and the failure
/// a report shows for the scenario that could not run.
#[derive(Debug, thiserror::Error)]
pub(super) enum OpError {
    /// The driver did not start before the first op.
    #[error(transparent)]
    Start(#[from] StartError),
    /// The driver an op was to go to is no longer there.
    #[error("driver is gone")]
    DriverGone,
    /// What op `index` waits for before it is sent did not happen in time.
    #[error("op {index}: {source}")]
    Wait {
        /// The op's number, from 1.
        index: usize,
        /// What did not happen.
        source: WaitError,
    },
    /// Op `index` is a restart, and the driver did not start again.
    #[error("op {index} restart: {source}")]
    Restart {
        /// The op's number, from 1.
        index: usize,
        /// Why the driver did not start.
        source: StartError,
    },
}

/// What an op waited for that did not happen within the time.
#[derive(Debug, PartialEq, thiserror::Error)]
pub(super) enum WaitError {
    /// Too few requests or notifications of a method in the ACP journal.
    #[error("waited {within:?} for {count} `{method}` message(s) in the ACP journal; saw {seen}")]
    Acp {
        /// How long the op waited.
        within: Duration,
        /// How many messages it waited for.
        count: u32,
        /// The JSON-RPC method.
        method: agy_protocol::acp::AcpMethod,
        /// How many the journal held.
        seen: usize,
    },
    /// Too few agy invocations that began a turn in fake-agy's journal.
    #[error("waited {within:?} for {count} agy invocation(s) that began a turn in the journal; saw {seen}")]
    Agy {
        /// How long the op waited.
        within: Duration,
        /// How many invocations it waited for.
        count: u32,
        /// How many the journal held.
        seen: usize,
    },
}

struct Pending {
    index: usize,
    name: &'static str,
    id: u64,
    sent_us: u64,
    deadline: Instant,
}

async fn collect(
    ctx: &Ctx<'_>,
    driver: &mut DriverClient,
    pending: &mut Vec<Pending>,
    obs: &mut Observation,
) {
    for p in pending.drain(..) {
        let reply = driver.reply(p.id, p.deadline).await;
        let outcome = reply
            .as_ref()
            .ok()
            .and_then(|r| classify(r, &ctx.settings.config.errors));
        let mut o = OpObservation {
            index: p.index,
            name: p.name,
            sent_us: p.sent_us,
            replied_us: now_us(),
            reply,
            outcome,
            still_running: None,
        };
        let gone_within = ctx
            .s
            .ops
            .get(p.index - 1)
            .and_then(|spec| spec.expect.agy_gone_within);
        let mut running = obs.probe(&ctx.sandbox.journal(), ctx.sandbox.marker());
        if let Some(bound) = gone_within {
            let deadline = Instant::now() + ctx.scaled(bound.0);
            // Waiting on the kernel: the running agys' pidfds, until each has exited
            // or the bound runs out; then the journal is read again, for an agy
            // started meanwhile. A process that never ends (a fault the scenario
            // catches) costs one wait, not a probe every few milliseconds.
            while !running.is_empty() && Instant::now() < deadline {
                let left = agy_process::wait_gone_until(&running, deadline).await;
                let before = std::mem::take(&mut running);
                running = obs.probe(&ctx.sandbox.journal(), ctx.sandbox.marker());
                if left.is_empty() && running == before {
                    // No pidfd for a process `/proc` still shows running (none left
                    // to open): look again shortly rather than spin.
                    tokio::time::sleep_until(
                        (Instant::now() + Duration::from_millis(5)).min(deadline),
                    )
                    .await;
                }
            }
            o.still_running = Some(running);
        }
        obs.ops.push(o);
    }
}

/// Waits until the ACP journal holds `wait.count` requests or notifications of
/// `wait.method`, polling the file until `within` runs out.
async fn wait_for_acp(ctx: &Ctx<'_>, wait: &AcpWait, within: Duration) -> Result<(), WaitError> {
    let deadline = Instant::now() + within;
    let path = ctx.sandbox.acp_journal();
    loop {
        let seen = agy_protocol::acp::read_acp_journal(&path)
            .map(|j| {
                j.iter()
                    .filter(|e| {
                        matches!(
                            e.kind,
                            agy_protocol::acp::AcpKind::Request
                                | agy_protocol::acp::AcpKind::Notification
                        ) && e.method.as_deref() == Some(wait.method.as_str())
                    })
                    .count()
            })
            .unwrap_or(0);
        if seen >= wait.count as usize {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(WaitError::Acp {
                within,
                count: wait.count,
                method: wait.method.clone(),
                seen,
            });
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Waits until fake-agy's journal holds `count` invocations that began a turn (not a
/// persistent process still waiting for its first line), polling the file
/// until `within` runs out.
async fn wait_for_agy(ctx: &Ctx<'_>, count: u32, within: Duration) -> Result<(), WaitError> {
    let deadline = Instant::now() + within;
    loop {
        let seen = agy_protocol::journal::read_journal(&ctx.sandbox.journal())
            .map(|j| j.iter().filter(|r| r.has_begun_turn()).count())
            .unwrap_or(0);
        if seen >= count as usize {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(WaitError::Agy {
                within,
                count,
                seen,
            });
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn run_ops(
    ctx: &Ctx<'_>,
    driver: &mut Option<DriverClient>,
    obs: &mut Observation,
) -> Result<(), OpError> {
    let t = &ctx.settings.config.timeouts;
    *driver = Some(ctx.start_driver().await?);
    let mut pending: Vec<Pending> = Vec::new();
    for (i, spec) in ctx.s.ops.iter().enumerate() {
        let Some(d) = driver.as_mut() else {
            return Err(OpError::DriverGone);
        };
        if let Some(wait) = &spec.wait_for_acp {
            wait_for_acp(ctx, wait, t.reply.0)
                .await
                .map_err(|source| OpError::Wait {
                    index: i + 1,
                    source,
                })?;
        }
        if let Some(count) = spec.wait_for_agy {
            wait_for_agy(ctx, count, t.reply.0)
                .await
                .map_err(|source| OpError::Wait {
                    index: i + 1,
                    source,
                })?;
        }
        match &spec.action {
            OpAction::Restart => {
                collect(ctx, d, &mut pending, obs).await;
                restart(ctx, driver, obs, i + 1).await?;
            }
            OpAction::Request(req) => {
                let within = spec
                    .reply_within
                    .as_ref()
                    .map(|w| ctx.scaled(w.0))
                    .unwrap_or(t.reply.0)
                    + ctx.unscaled_extra(req);
                let sent = send(ctx, d, req, i + 1, within, &mut pending, obs).await;
                if sent && !spec.concurrent {
                    collect(ctx, d, &mut pending, obs).await;
                }
            }
        }
    }
    if let Some(d) = driver.as_mut() {
        collect(ctx, d, &mut pending, obs).await;
    }
    Ok(())
}

/// Op `index` is a restart: the driver stopped and started again.
async fn restart(
    ctx: &Ctx<'_>,
    driver: &mut Option<DriverClient>,
    obs: &mut Observation,
    index: usize,
) -> Result<(), OpError> {
    let sent_us = now_us();
    if let Some(d) = driver.as_mut() {
        d.stop(ctx.settings.config.timeouts.grace.0).await;
        obs.violations.append(&mut d.violations);
    }
    *driver = None;
    let started = ctx.start_driver().await;
    let reply = match started {
        Ok(nd) => {
            *driver = Some(nd);
            Ok(Reply {
                id: 0,
                ok: true,
                outcome: None,
                retryable: None,
                error: None,
                result: OpResult::default(),
            })
        }
        Err(source) => return Err(OpError::Restart { index, source }),
    };
    obs.ops.push(OpObservation {
        index,
        name: "restart",
        sent_us,
        replied_us: now_us(),
        outcome: reply
            .as_ref()
            .ok()
            .and_then(|r| classify(r, &ctx.settings.config.errors)),
        reply,
        still_running: None,
    });
    Ok(())
}

/// Sends op `index` to be answered `within`; false when it could not be sent (the ops
/// in flight are collected and the op is recorded without a reply).
async fn send(
    ctx: &Ctx<'_>,
    d: &mut DriverClient,
    req: &RequestOp,
    index: usize,
    within: Duration,
    pending: &mut Vec<Pending>,
    obs: &mut Observation,
) -> bool {
    let sent_us = now_us();
    match d.send(req.clone()).await {
        Ok(id) => {
            pending.push(Pending {
                index,
                name: req.name(),
                id,
                sent_us,
                deadline: Instant::now() + within,
            });
            true
        }
        Err(e) => {
            collect(ctx, d, pending, obs).await;
            obs.ops.push(OpObservation {
                index,
                name: req.name(),
                sent_us,
                replied_us: now_us(),
                reply: Err(e),
                outcome: None,
                still_running: None,
            });
            false
        }
    }
}

/// Sends the ops within the scenario's time limit, or until `cancel`; returns what was
/// observed, the driver if one was started, and how the run ended.
pub(super) async fn execute(
    ctx: &Ctx<'_>,
    mut cancel: Cancel,
) -> (Observation, Option<DriverClient>, Ended) {
    let s = ctx.s;
    let limit = s
        .meta
        .timeout
        .as_ref()
        .map(|t| t.0)
        .unwrap_or(ctx.settings.config.timeouts.scenario.0)
        + s.ops
            .iter()
            .filter_map(|op| match &op.action {
                OpAction::Request(req) => Some(ctx.unscaled_extra(req)),
                OpAction::Restart => None,
            })
            .sum::<Duration>();
    let mut obs = Observation::default();
    let mut driver: Option<DriverClient> = None;
    let mut ended: Ended = Ok(());
    tokio::select! {
        r = tokio::time::timeout(limit, run_ops(ctx, &mut driver, &mut obs)) => match r {
            Ok(Ok(())) => {}
            Ok(Err(e)) => ended = Err((Status::Error, e.to_string())),
            Err(_) => ended = Err((Status::TimedOut, format!("the scenario did not finish within {limit:?}"))),
        },
        _ = cancel.wait_for(|c| *c) => ended = Err((Status::Interrupted, "interrupted".into())),
    }
    (obs, driver, ended)
}
