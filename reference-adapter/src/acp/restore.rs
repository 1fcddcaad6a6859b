//! Restoring a saved session on a new agent process (seed 003): `session/resume` when
//! the last turn was committed, `session/load` with an explicit history gap when a
//! prompt was pending, never `session/new`, no earlier prompt sent again. Every update
//! and permission request stays quarantined until the restore has fully closed: the
//! response consumed, the checkpoint written, model and mode re-applied.

use super::checkpoint::{CheckpointRecord, Phase};
use super::client::{rpc_failure, typed, AcpClient};
use super::error_names::{ACP_AGENT_EXITED, ACP_RESTORE_FAILED};
use super::quarantine::Gate;
use super::restore_plan::{plan_restore, RestoreMethod, RestorePlan};
use super::signals::{Interrupted, Signals};
use crate::failure::Failure;
use crate::faults::Fault;
use agent_client_protocol_schema::v1::{
    Error as RpcError, LoadSessionRequest, LoadSessionResponse, NewSessionRequest,
    NewSessionResponse, ResumeSessionRequest, ResumeSessionResponse,
};
use agy_protocol::driver::{AcpRestoreState, HistoryEntry, Outcome};
use serde_json::Value;

impl AcpClient {
    /// Restores the saved session on a new agent. `with_turn` is true when a new turn's
    /// context is already installed (a prompt that restores first).
    pub async fn restore(&mut self, with_turn: bool) -> Result<(), Failure> {
        if self.state == AcpRestoreState::HistoryOnly {
            return Err(self.history_only_failure());
        }
        let Some(record) = self.record.clone() else {
            return Err(Failure::bad_request(format!(
                "session `{}` has nothing saved to restore",
                self.handle
            )));
        };
        self.start_agent().await?;
        let plan = plan_restore(record.phase, self.caps);
        let RestorePlan::Continue { method, gap } = plan else {
            self.drop_agent().await;
            self.state = AcpRestoreState::HistoryOnly;
            self.history_only_reason =
                Some("the agent advertises neither `session/resume` nor `loadSession`".into());
            return Err(self.history_only_failure());
        };
        let (name, params) = restore_request(method, &record);
        let answer = self.call_restore(name, params).await?;
        let value = match answer {
            Err(why) => {
                let f = self.exited_failure(&format!("`{name}`"), &why);
                self.drop_agent().await;
                self.state = AcpRestoreState::Restorable;
                return Err(Failure {
                    name: ACP_AGENT_EXITED,
                    ..f
                });
            }
            Ok(Err(e)) => {
                if self.has(Fault::AcpFallsBackToSessionNew) {
                    return self.fall_back_to_new_session().await;
                }
                return Err(self.refused_restore(name, &e).await);
            }
            Ok(Ok(v)) => v,
        };
        // `null` and `{}` are both valid load results (docs/agy-acp-reference.md §1.5, §7 item 25).
        let offered =
            match method {
                RestoreMethod::Resume => typed::<Option<ResumeSessionResponse>>(name, value)?
                    .and_then(|r| r.config_options),
                RestoreMethod::Load => typed::<Option<LoadSessionResponse>>(name, value)?
                    .and_then(|r| r.config_options),
            }
            .unwrap_or_default();
        self.offered = offered;

        if self.has(Fault::AcpQuarantineLiftedEarly) && gap && with_turn {
            // The reviewed bug: the restoring flag is cleared before the awaited
            // history-gap write, while the new turn's context is already installed.
            self.gate = Gate::Turn;
        }
        self.settle_pending(gap);
        if let Err(f) = self.save() {
            self.drop_agent().await;
            self.state = AcpRestoreState::Restorable;
            return Err(f);
        }
        // Antigravity forgets model and mode on restart (docs/agy-acp-reference.md §2.9): re-apply them.
        // The round trip also closes the restore: anything the agent wrote before
        // answering it (late replay, late output) has been routed by now.
        self.reapply_config(&record.model, &record.mode).await?;
        self.gate = Gate::Idle;
        self.state = if gap {
            AcpRestoreState::HistoryGap
        } else {
            AcpRestoreState::Restored
        };
        if self.has(Fault::AcpResendsLastPrompt) {
            self.resend_last_prompt(&record).await?;
        }
        Ok(())
    }

    /// Sends the restore request; an authentication error is answered by authenticating
    /// once and asking again.
    async fn call_restore(
        &mut self,
        name: &'static str,
        params: Value,
    ) -> Result<Result<Result<Value, RpcError>, Interrupted>, Failure> {
        self.gate = Gate::Restoring;
        let mut answer = self.call(name, params.clone(), Signals::none(), true).await;
        if let Ok(Err(e)) = &answer {
            if rpc_failure(name, e).outcome == Outcome::Auth {
                // Tokens normally survive restarts (docs/agy-acp-reference.md §2.4); when they did not,
                // authenticate once with the configured method and ask again.
                if let Some(auth) = self.authenticate().await {
                    auth?;
                    self.gate = Gate::Restoring;
                    answer = self.call(name, params, Signals::none(), true).await;
                }
            }
        }
        Ok(answer)
    }

    /// The agent refused the restore: it is let go, and the session stays restorable.
    async fn refused_restore(&mut self, name: &str, e: &RpcError) -> Failure {
        let cause = rpc_failure(name, e);
        self.drop_agent().await;
        self.state = AcpRestoreState::Restorable;
        Failure::new(
            if cause.outcome == Outcome::Auth {
                Outcome::Auth
            } else {
                Outcome::Permanent
            },
            ACP_RESTORE_FAILED,
            format!(
                "{}; session `{}` stays restorable (no new session was created)",
                cause.message, self.handle
            ),
        )
    }

    /// After a restore the checkpoint is committed; with `gap`, a prompt still pending
    /// (its response never arrived) becomes a history gap.
    fn settle_pending(&mut self, gap: bool) {
        let Some(record) = self.record.as_mut() else {
            return;
        };
        if let Some(pending) = record.pending.take().filter(|_| gap) {
            record.history.push(HistoryEntry {
                role: "gap".to_string(),
                text: format!(
                    "turn {}: the prompt was sent but its response never arrived; what the agent did then is not in this history",
                    pending.turn
                ),
                turn: Some(pending.turn),
            });
        }
        record.phase = Phase::Committed;
        record.pending = None;
    }

    async fn reapply_config(
        &mut self,
        model: &Option<String>,
        mode: &Option<String>,
    ) -> Result<(), Failure> {
        for (id, value) in [("model", model), ("mode", mode)] {
            let Some(value) = value else { continue };
            if self.offered.iter().any(|o| o.id.0.as_ref() == id) {
                if let Err(f) = self.set_config(id, value).await {
                    self.drop_agent().await;
                    self.state = AcpRestoreState::Restorable;
                    return Err(f);
                }
            }
        }
        Ok(())
    }

    /// The `acp-falls-back-to-session-new` fault: a failed restore silently forks the
    /// conversation into a new external session.
    async fn fall_back_to_new_session(&mut self) -> Result<(), Failure> {
        self.gate = Gate::Idle;
        let params = serde_json::to_value(NewSessionRequest::new(self.setup.cwd.clone()))
            .unwrap_or(Value::Null);
        let value = self.call_setup("session/new", params).await?;
        let response: NewSessionResponse = typed("session/new", value)?;
        if let Some(record) = self.record.as_mut() {
            record.session_id = response.session_id.0.to_string();
            record.phase = Phase::Committed;
            record.pending = None;
        }
        self.save()?;
        self.state = AcpRestoreState::Ready;
        Ok(())
    }

    /// The `acp-resends-last-prompt` fault: the prompt that was pending (or the last
    /// one) is sent again after the restart.
    async fn resend_last_prompt(
        &mut self,
        saved: &super::checkpoint::CheckpointRecord,
    ) -> Result<(), Failure> {
        let last = saved.pending.as_ref().map(|p| p.text.clone()).or_else(|| {
            saved
                .history
                .iter()
                .rev()
                .find(|e| e.role == "user")
                .map(|e| e.text.clone())
        });
        let Some(text) = last else { return Ok(()) };
        let (_, mut cancel) = tokio::sync::watch::channel(0u64);
        let (_, mut interrupt) = tokio::sync::watch::channel(0u64);
        let kept = std::mem::take(&mut self.turn_text);
        let result = self.run_turn(&text, &mut cancel, &mut interrupt).await;
        self.turn_text = kept;
        result.map(|_| ())
    }
}

/// The restore request of `method` for the saved session: its method name and params.
fn restore_request(method: RestoreMethod, record: &CheckpointRecord) -> (&'static str, Value) {
    let cwd = std::path::PathBuf::from(&record.cwd);
    let (name, params) = match method {
        RestoreMethod::Resume => (
            "session/resume",
            serde_json::to_value(ResumeSessionRequest::new(record.session_id.clone(), cwd)),
        ),
        RestoreMethod::Load => (
            "session/load",
            serde_json::to_value(LoadSessionRequest::new(record.session_id.clone(), cwd)),
        ),
    };
    (name, params.unwrap_or(Value::Null))
}
