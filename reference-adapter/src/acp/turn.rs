//! A prompt turn: `prompt_pending` is saved before the prompt is sent, the turn's
//! updates are the ones that arrive while its prompt is outstanding, and the turn is
//! committed only after its terminal response is consumed (seed 003).

use super::checkpoint::{PendingPrompt, Phase};
use super::client::{rpc_failure, typed, AcpClient};
use super::error_names::ACP_TURN_CANCELLED;
use super::quarantine::Gate;
use super::signals::{Interrupted, Signals};
use crate::failure::Failure;
use agent_client_protocol_schema::v1::{
    ContentBlock, PromptRequest, PromptResponse, StopReason, TextContent,
};
use agy_protocol::driver::{AcpRestoreState, HistoryEntry, Outcome};
use serde_json::{json, Value};
use tokio::sync::watch;

/// What a finished turn produced.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnReport {
    /// The turn number.
    pub turn: u64,
    /// The text attributed to the turn.
    pub text: String,
    /// The stop reason's wire name.
    pub stop_reason: String,
}

fn stop_reason_name(reason: &StopReason) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{reason:?}"))
}

impl AcpClient {
    /// `acp_prompt`: restores first when the session was saved by an earlier client or
    /// its agent is gone, then runs one turn.
    pub async fn prompt(
        &mut self,
        text: &str,
        cancel: &mut watch::Receiver<u64>,
        interrupt: &mut watch::Receiver<u64>,
    ) -> Result<TurnReport, Failure> {
        if self.state == AcpRestoreState::HistoryOnly {
            return Err(self.history_only_failure());
        }
        // The new turn's context exists from here on, before any restore (the shape of
        // the execution path the seed's P2 was found in).
        self.turn_text.clear();
        self.cancelling = false;
        if !self.is_live() {
            self.restore(true).await?;
        }
        self.run_turn(text, cancel, interrupt).await
    }

    /// Sends one prompt and waits for its terminal response.
    pub(crate) async fn run_turn(
        &mut self,
        text: &str,
        cancel: &mut watch::Receiver<u64>,
        interrupt: &mut watch::Receiver<u64>,
    ) -> Result<TurnReport, Failure> {
        // Late output already received belongs to no turn.
        if self.gate != Gate::Turn {
            self.drain().await;
        }
        let Some(record) = self.record.as_mut() else {
            return Err(Failure::bad_request(format!(
                "session `{}` has no external session; send `acp_new` first",
                self.handle
            )));
        };
        let turn = record.turns + 1;
        record.turns = turn;
        record.phase = Phase::PromptPending;
        record.pending = Some(PendingPrompt {
            turn,
            text: text.to_string(),
        });
        let session_id = record.session_id.clone();
        if let Err(f) = self.save() {
            self.rollback_pending(turn);
            return Err(f);
        }
        self.gate = Gate::Turn;
        self.cancelling = false;
        let request = PromptRequest::new(
            session_id,
            vec![ContentBlock::Text(TextContent::new(text.to_string()))],
        );
        let params = serde_json::to_value(&request).unwrap_or(Value::Null);
        let signals = Signals {
            cancel: Some(cancel),
            interrupt: Some(interrupt),
        };
        let outcome = self.call("session/prompt", params, signals, false).await;
        self.gate = Gate::Idle;
        // A request still pending when its turn ended is stale: never leave it open.
        self.release_held().await;
        let said = std::mem::take(&mut self.turn_text);
        match outcome {
            Err(why) => {
                // The terminal response was never consumed: the checkpoint stays
                // `prompt_pending`, and the next restore loads with a history gap.
                let f = self.exited_failure(&format!("turn {turn}"), &why);
                if matches!(
                    why,
                    Interrupted::Io(_) | Interrupted::Exited | Interrupted::Interrupt
                ) {
                    self.drop_agent().await;
                    self.state = AcpRestoreState::Restorable;
                }
                Err(f)
            }
            Ok(Err(e)) => {
                // Answered with an error: nothing happened, nothing is pending.
                self.rollback_pending(turn);
                self.save()?;
                Err(rpc_failure("session/prompt", &e))
            }
            Ok(Ok(value)) => self.commit_turn(turn, text, said, value),
        }
    }

    /// The prompt's terminal response: the turn and its answer join the history and
    /// the checkpoint is committed; a cancelled turn is a failure.
    fn commit_turn(
        &mut self,
        turn: u64,
        text: &str,
        said: String,
        value: Value,
    ) -> Result<TurnReport, Failure> {
        let response: PromptResponse = match typed("session/prompt", value) {
            Ok(r) => r,
            Err(f) => {
                self.rollback_pending(turn);
                let _ = self.save();
                return Err(f);
            }
        };
        if let Some(record) = self.record.as_mut() {
            for (role, t) in [("user", text), ("assistant", said.as_str())] {
                record.history.push(HistoryEntry {
                    role: role.to_string(),
                    text: t.to_string(),
                    turn: Some(turn),
                });
            }
            record.phase = Phase::Committed;
            record.pending = None;
        }
        self.save()?;
        let stop_reason = stop_reason_name(&response.stop_reason);
        if response.stop_reason == StopReason::Cancelled {
            return Err(Failure::new(
                Outcome::Transient,
                ACP_TURN_CANCELLED,
                format!("turn {turn} was cancelled (stopReason: cancelled)"),
            ));
        }
        Ok(TurnReport {
            turn,
            text: said,
            stop_reason,
        })
    }

    fn rollback_pending(&mut self, turn: u64) {
        if let Some(record) = self.record.as_mut() {
            record.turns = turn - 1;
            record.phase = Phase::Committed;
            record.pending = None;
        }
    }
}

/// The `extra` of a turn reply.
pub fn turn_extra(report: &TurnReport) -> Value {
    json!({ "turn": report.turn, "stop_reason": report.stop_reason })
}
