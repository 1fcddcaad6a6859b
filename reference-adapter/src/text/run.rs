//! One `ask`: the conversation's continuation chosen, agy run in its own process group
//! (killed with its group after timeout_s + the grace), its output read and classified,
//! the conversation's thread brought up to date.

use super::argv::{build_argv, Continuation, OutputMode, Selection};
use super::classify::{classify_text, Answer, Finished};
use super::conversations::{mint_id, Conversations, Thread};
use super::output::read_output;
use crate::environment::Environment;
use crate::failure::{Failure, ASK_AGY_FAILED, ASK_TIMEOUT};
use crate::faults::{Fault, FaultSet};
use crate::oneshot::binary_missing_failure;
use crate::pipes::{drained, read_capped};
use agy_process::{in_own_group, wait_for, GroupGuard, ParentDeath};
use agy_protocol::driver::{AskRequest, Outcome, TurnUsage};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use tokio::process::Command;

/// The grace after `timeout_s` before a run is killed: agy's own `--print-timeout`
/// ends it first when agy is well.
pub const KILL_GRACE_S: f64 = 10.0;
/// How long pipes may stay open after agy exited.
const PIPE_DRAIN_S: f64 = 5.0;
/// stdout and stderr kept.
const OUTPUT_CAP: u64 = 16 * 1024 * 1024;

/// A successful ask: the answer, its conversation and the turn's own usage.
#[derive(Debug, Clone, PartialEq)]
pub struct AskReply {
    /// The answer text.
    pub text: String,
    /// The agy conversation, when agy showed it.
    pub conversation_id: Option<String>,
    /// This turn's usage (the result's, less the conversation's earlier turns).
    pub usage: Option<TurnUsage>,
}

/// How this ask continues its conversation.
fn continuation(
    req: &AskRequest,
    thread: &mut Thread,
    label: &str,
    faults: &FaultSet,
) -> Continuation {
    if let Some(id) = req.conversation.as_ref().filter(|c| !c.is_empty()) {
        return Continuation::Id(id.clone());
    }
    if faults.has(Fault::TextNewConversationEachAsk) {
        // agy 1.1.x created a conversation under a client-minted id; 1.2 on ignores an
        // unknown one and starts a new conversation every time (§1.3).
        return Continuation::Id(thread.minted.get_or_insert_with(|| mint_id(label)).clone());
    }
    match (&thread.conversation_id, thread.asks) {
        (_, 0) => Continuation::New,
        (Some(id), _) => Continuation::Id(id.clone()),
        (None, _) => Continuation::Latest,
    }
}

/// Runs one ask to its verdict.
pub async fn ask(
    env: &Environment,
    faults: &FaultSet,
    conversations: &Conversations,
    req: AskRequest,
) -> Result<AskReply, Failure> {
    let mode = OutputMode::parse(req.output.as_deref()).map_err(Failure::bad_request)?;
    if !req.timeout_s.is_finite() || req.timeout_s < 0.0 {
        return Err(Failure::bad_request(format!(
            "`timeout_s` must be a number of seconds ≥ 0, not {}",
            req.timeout_s
        )));
    }
    let work_dir = work_dir(env, req.workdir.as_deref())?;
    let label = req.session.clone();
    let thread = label.as_deref().map(|l| conversations.thread(l));
    let mut guard = match &thread {
        Some(t) => Some(t.lock().await),
        None => None,
    };
    let mut scratch = Thread::default();
    let t: &mut Thread = guard.as_deref_mut().unwrap_or(&mut scratch);
    let how = continuation(&req, t, label.as_deref().unwrap_or(""), faults);
    let selection = Selection {
        model: req.model.clone(),
        effort: req.effort.clone(),
        permission: req.permission,
    };
    let argv = build_argv(&req.prompt, mode, req.timeout_s, &how, &selection, faults);
    let run = run_agy(env, faults, &work_dir, &argv, mode, req.timeout_s).await?;
    let answer = classify_text(&run, faults)?;
    Ok(record(t, &run, answer, faults))
}

/// The ask's work directory: the driver's, or a folder inside it.
fn work_dir(env: &Environment, workdir: Option<&str>) -> Result<PathBuf, Failure> {
    let Some(dir) = workdir.filter(|d| !d.is_empty()) else {
        return Ok(env.work_dir.clone());
    };
    let rel = Path::new(dir);
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err(Failure::bad_request(format!(
            "`workdir` must be a folder inside the work directory, not {dir:?}"
        )));
    }
    let path = env.work_dir.join(rel);
    std::fs::create_dir_all(&path)
        .map_err(|e| Failure::bad_request(format!("failed to create {}: {e}", path.display())))?;
    Ok(path)
}

/// The reply of a classified answer; the thread learns the conversation, its usage and
/// the answer.
fn record(t: &mut Thread, run: &Finished, answer: Answer, faults: &FaultSet) -> AskReply {
    let earlier = t.last_answer.replace(answer.text.clone());
    t.asks += 1;
    if let Some(id) = &run.output.conversation_id {
        t.conversation_id = Some(id.clone());
    }
    let usage = answer.usage.map(|u| {
        let before = std::mem::replace(&mut t.usage, u);
        let before = if faults.has(Fault::TextCumulativeUsage) {
            agy_protocol::Usage::ZERO
        } else {
            before
        };
        TurnUsage {
            input_tokens: Some(u.input_tokens.saturating_sub(before.input_tokens)),
            output_tokens: Some(u.output_tokens.saturating_sub(before.output_tokens)),
            total_tokens: Some(u.total_tokens.saturating_sub(before.total_tokens)),
        }
    });
    let text = match earlier {
        Some(old) if faults.has(Fault::TextEarlierTurnAnswer) => old,
        _ => answer.text,
    };
    AskReply {
        text,
        conversation_id: t.conversation_id.clone(),
        usage,
    }
}

/// agy started in its own process group (dying with the driver), waited for until
/// timeout_s + the grace, then killed with its group.
async fn run_agy(
    env: &Environment,
    faults: &FaultSet,
    dir: &Path,
    argv: &[OsString],
    mode: OutputMode,
    timeout_s: f64,
) -> Result<Finished, Failure> {
    let mut cmd = Command::new(&env.agy_bin);
    cmd.args(argv)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    in_own_group(&mut cmd, ParentDeath::Kill).kill_on_drop(false);
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => binary_missing_failure(&env.agy_bin),
        _ => Failure::new(
            Outcome::Permanent,
            ASK_AGY_FAILED,
            format!("failed to start `{}`: {e}", env.agy_bin.display()),
        ),
    })?;
    let guard = GroupGuard::of(&child);
    let stdout_task = tokio::spawn(read_capped(child.stdout.take(), OUTPUT_CAP));
    let stderr_task = tokio::spawn(read_capped(child.stderr.take(), OUTPUT_CAP));
    let status = if faults.has(Fault::TextNeverKillsHungAgy)
        || faults.has(Fault::TextNoBoundOfItsOwn)
    {
        child.wait().await.ok()
    } else {
        match wait_for(&mut child, env.scaled(timeout_s + KILL_GRACE_S)).await {
            Some(status) => Some(status),
            None if faults.has(Fault::TextKillsOnlyAgyPid) => {
                let _ = child.kill().await;
                // The bug: what agy started in its group is never signalled.
                std::mem::forget(guard);
                stdout_task.abort();
                stderr_task.abort();
                return Err(Failure::new(Outcome::Timeout, ASK_TIMEOUT, format!("agy still running {timeout_s}s + {KILL_GRACE_S}s after start; it was killed")));
            }
            None => {
                guard.kill_and_reap(&mut child).await;
                stdout_task.abort();
                stderr_task.abort();
                return Err(Failure::new(Outcome::Timeout, ASK_TIMEOUT, format!("agy still running {timeout_s}s + {KILL_GRACE_S}s after start; its process group was killed")));
            }
        }
    };
    drop(guard);
    let drain = env.scaled(PIPE_DRAIN_S);
    let stdout = drained(stdout_task, drain).await;
    let stderr = drained(stderr_task, drain).await;
    Ok(Finished {
        mode,
        exit_code: status.and_then(|s| s.code()),
        output: read_output(mode, &stdout),
        stderr,
    })
}
