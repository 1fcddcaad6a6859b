//! One conversation: its selection, its kept process, its history, and the turn logic
//! that ties the replay filter, the verdict and the release triggers together.

use super::cancel::CancelSignal;
use super::filter::{FilterAction, TurnFilter};
use super::history::History;
use super::process::{AgyProcess, ProcessOutput};
use super::release::{release, release_after_select, release_after_turn, ReleaseReason};
use super::selection::Selection;
use super::verdict::{judge_result, turn_text};
use crate::environment::Environment;
use crate::failure::{tail, Failure, TURN_CANCELLED, TURN_FAILED, TURN_TIMEOUT};
use crate::faults::{Fault, FaultSet};
use agy_protocol::driver::AgyPermission;
use agy_protocol::driver::{HistoryEntry, Outcome};
use agy_protocol::stream::StreamEvent;
use agy_protocol::Envelope;
use std::sync::Arc;

/// Seconds one turn may take before the adapter gives up on it (scaled).
pub const TURN_TIMEOUT_S: f64 = 600.0;

/// How a turn stopped waiting for its result.
enum Stop {
    Result(Box<Envelope>),
    Cancelled,
    TimedOut,
    Exited,
}

/// A conversation's state.
pub(crate) struct Conversation {
    env: Arc<Environment>,
    faults: Arc<FaultSet>,
    selection: Selection,
    process: Option<AgyProcess>,
    history: History,
    conversation_id: Option<String>,
    processes_started: u64,
    releases: Vec<&'static str>,
    /// The usage of the last successful turn.
    last_usage: Option<agy_protocol::Usage>,
}

impl Conversation {
    pub(crate) fn new(env: Arc<Environment>, faults: Arc<FaultSet>, selection: Selection) -> Self {
        Conversation {
            env,
            faults,
            selection,
            process: None,
            history: History::default(),
            conversation_id: None,
            processes_started: 0,
            releases: Vec::new(),
            last_usage: None,
        }
    }

    pub(crate) fn history(&self) -> Vec<HistoryEntry> {
        self.history.entries()
    }

    /// Report extras: the agy pid in use, the conversation id, how many processes were
    /// started and why each was released.
    /// The usage of the last successful turn, as the driver protocol reports it.
    pub(crate) fn turn_usage(&self) -> Option<agy_protocol::driver::TurnUsage> {
        self.last_usage.map(|u| agy_protocol::driver::TurnUsage {
            input_tokens: Some(u.input_tokens),
            output_tokens: Some(u.output_tokens),
            total_tokens: Some(u.total_tokens),
        })
    }

    pub(crate) fn extra(&self) -> serde_json::Value {
        serde_json::json!({
            "pid": self.process.as_ref().and_then(|p| p.pid),
            "conversation_id": self.conversation_id,
            "processes_started": self.processes_started,
            "releases": self.releases,
        })
    }

    pub(crate) async fn release(&mut self, reason: ReleaseReason) {
        if let Some(process) = self.process.take() {
            self.releases.push(reason.as_str());
            release(process, &self.env, &self.faults).await;
        }
    }

    /// Applies a `select`; a real change releases the process.
    pub(crate) async fn select(
        &mut self,
        model: Option<String>,
        effort: Option<String>,
        permission: Option<AgyPermission>,
    ) {
        let changed = self.selection.apply(model, effort, permission);
        if let Some(reason) = release_after_select(changed, &self.faults) {
            self.release(reason).await;
        }
    }

    fn spawn(&mut self) -> Result<(), Failure> {
        // A conversation continued on a new process after a release resumes by id; the
        // kept-process path never needs --conversation (seed 000).
        let resume = if self.processes_started > 0 {
            self.conversation_id.clone()
        } else {
            None
        };
        let die_with_driver = !self.faults.has(Fault::SigtermWithoutSigkill);
        match AgyProcess::spawn(
            &self.env,
            &self.selection,
            resume.as_deref(),
            die_with_driver,
        ) {
            Ok(p) => {
                self.processes_started += 1;
                self.process = Some(p);
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Failure::new(
                Outcome::Permanent,
                TURN_FAILED,
                format!(
                    "agy binary `{}` not found; install Antigravity CLI (or set AGY_BIN)",
                    self.env.agy_bin.display()
                ),
            )),
            Err(e) => Err(Failure::new(
                Outcome::Permanent,
                TURN_FAILED,
                format!("failed to start `{}`: {e}", self.env.agy_bin.display()),
            )),
        }
    }

    /// A live process with writable stdin that has received `text`, or a process started
    /// for it that exited before reading it: what that one wrote says why (a signed-out
    /// agy writes its ERROR result and exits without reading stdin), so the turn reads it.
    async fn deliver(&mut self, text: &str) -> Result<(), Failure> {
        for attempt in 0..2 {
            if let Some(p) = self.process.as_mut() {
                if p.has_exited() {
                    self.release(ReleaseReason::ProcessExited).await;
                }
            }
            let fresh = self.process.is_none();
            if fresh {
                self.spawn()?;
            }
            let Some(p) = self.process.as_mut() else {
                continue;
            };
            match p.send(text).await {
                Ok(()) => return Ok(()),
                Err(_) if fresh => return Ok(()),
                Err(e) => {
                    self.release(ReleaseReason::StdinLost).await;
                    if attempt == 1 {
                        return Err(Failure::new(
                            Outcome::Permanent,
                            TURN_FAILED,
                            format!("agy's stdin is not writable: {e}"),
                        ));
                    }
                }
            }
        }
        Err(Failure::new(
            Outcome::Permanent,
            TURN_FAILED,
            "agy could not be started",
        ))
    }

    /// One turn: the user line on the kept process's stdin, then the filtered output up
    /// to this turn's result.
    pub(crate) async fn turn(
        &mut self,
        text: &str,
        cancel: &mut CancelSignal,
    ) -> Result<String, Failure> {
        if cancel.is_cancelled() {
            return Err(cancelled_before_start());
        }
        self.deliver(text).await?;
        let deadline = tokio::time::Instant::now() + self.env.scaled(TURN_TIMEOUT_S);
        let Some(p) = self.process.as_mut() else {
            return Err(Failure::new(
                Outcome::Permanent,
                TURN_FAILED,
                "agy process lost",
            ));
        };
        let previous = p.baseline.last_result.clone();
        let mut filter = TurnFilter::new(&p.baseline, &self.faults);
        let mut seen_id = None;
        let mut unparsed: Vec<String> = Vec::new();
        let stop = loop {
            tokio::select! {
                () = cancel.cancelled() => break Stop::Cancelled,
                () = tokio::time::sleep_until(deadline) => break Stop::TimedOut,
                out = p.output.recv() => match out {
                    Some(ProcessOutput::Event(ev)) => {
                        if let StreamEvent::Init { conversation_id, .. } = ev.as_ref() {
                            seen_id = Some(conversation_id.clone());
                        }
                        if let FilterAction::Result(result) = filter.offer(*ev) {
                            break Stop::Result(result);
                        }
                    }
                    Some(ProcessOutput::Unparsed(line)) => unparsed.push(line),
                    None => break Stop::Exited,
                },
            }
        };
        if let Some(id) = seen_id.filter(|id| !id.is_empty()) {
            self.conversation_id = Some(id);
        }
        match stop {
            Stop::Result(result) => {
                let result = *result;
                p.baseline = filter.next_baseline(&result);
                if !result.conversation_id.is_empty() {
                    self.conversation_id = Some(result.conversation_id.clone());
                }
                let verdict = judge_result(&result, previous.as_ref(), &self.faults);
                if let Some(reason) = release_after_turn(verdict.is_ok(), &self.faults) {
                    self.release(reason).await;
                }
                verdict?;
                let answer = turn_text(filter.steps(), &result, self.env.answers);
                self.last_usage = Some(filter.usage());
                self.history.record(text, &answer);
                Ok(answer)
            }
            Stop::Cancelled => {
                self.release(ReleaseReason::Cancel).await;
                Err(Failure::new(
                    Outcome::Transient,
                    TURN_CANCELLED,
                    "the turn was cancelled; agy was released",
                ))
            }
            Stop::TimedOut => {
                self.release(ReleaseReason::Failure).await;
                Err(Failure::new(
                    Outcome::Timeout,
                    TURN_TIMEOUT,
                    format!("no result within {TURN_TIMEOUT_S}s; agy was released"),
                ))
            }
            Stop::Exited => Err(self.exited_before_result(&unparsed).await),
        }
    }

    /// agy exited before the turn's result: the failure names its exit, its stderr and
    /// the last stdout line that was not an event.
    async fn exited_before_result(&mut self, unparsed: &[String]) -> Failure {
        let (code, stderr) = match self.process.as_mut() {
            Some(p) => (
                agy_process::wait_for(&mut p.child, self.env.scaled(1.0))
                    .await
                    .and_then(|s| s.code()),
                p.stderr_tail(),
            ),
            None => (None, String::new()),
        };
        self.release(ReleaseReason::ProcessExited).await;
        let garbage = unparsed
            .last()
            .map(|l| format!("; last unparsed stdout line: {:?}", tail(l, 200)))
            .unwrap_or_default();
        Failure::new(
            Outcome::Permanent,
            TURN_FAILED,
            format!(
                "agy exited ({}) before the turn's result; stderr: {}{garbage}",
                code.map_or("killed by a signal".to_string(), |c| format!(
                    "exit code {c}"
                )),
                if stderr.is_empty() {
                    "(empty)"
                } else {
                    &stderr
                }
            ),
        )
    }
}

/// The failure of a turn cancelled before its line was sent.
fn cancelled_before_start() -> Failure {
    Failure::new(
        Outcome::Transient,
        TURN_CANCELLED,
        "the turn was cancelled before it started",
    )
}
