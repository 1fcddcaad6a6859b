//! Writing the turn's output: steps (accounted for usage and text), lines of the
//! current turn, and the result with the conversation's cumulative usage.

use super::Session;
use crate::cli::OutputFormat;
use crate::error::FakeError;
use crate::exit_code;
use agy_protocol::stream::{StepState, StepType, StepUpdate, StreamEvent};
use agy_protocol::{Envelope, Status, Usage};

/// How a result changes the conversation's cumulative usage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageUpdate {
    /// Add what this turn's steps spent.
    AddSpent,
    /// The result states the cumulative figure; take it.
    Cumulative,
}

impl Session {
    /// Opens a turn's output: `init` when not yet written, then one DONE step of
    /// `step_type` at the next index; returns the conversation id and that index.
    pub fn open_with_done_step(&mut self, step_type: StepType) -> Result<(String, u64), FakeError> {
        let id = self.conversation_id()?;
        self.ensure_init()?;
        let i = self.next_step_index()?;
        self.emit_step(StepUpdate::new(id.clone(), i, StepState::Done, step_type));
        Ok((id, i))
    }

    /// The index of the step written last (for an ACTIVE line's DONE line).
    pub fn last_step_index(&self) -> Option<u64> {
        self.last_step_index
    }

    /// The step written last (a DONE line of the same step takes its tool).
    pub fn last_step(&self) -> Option<&StepUpdate> {
        self.last_step.as_ref()
    }

    /// Writes a stream-json line that belongs to the current turn.
    pub fn turn_line(&mut self, line: String) {
        self.io.out().stdout(line.as_bytes());
        self.turn.push_line(line);
    }

    /// Writes a `step_update` (stream-json only) and accounts its usage and text.
    pub fn emit_step(&mut self, step: StepUpdate) {
        let stream = self.is_stream();
        self.emit_step_to(step, stream);
    }

    /// Accounts a step and writes it when `write` (a scripted step is written in every
    /// output format).
    pub fn emit_step_to(&mut self, step: StepUpdate, write: bool) {
        self.turn.account(&step);
        if let Some(c) = self.conversation.as_mut() {
            c.next_step = c.next_step.max(step.step_index + 1);
        }
        self.last_step_index = Some(step.step_index);
        self.last_step = Some(step.clone());
        if write {
            self.turn_line(StreamEvent::StepUpdate(step).to_line());
        }
    }

    /// The result a default run would report for the turn so far: cumulative usage,
    /// turn count advanced.
    pub fn cumulative_usage(&self, turn: &Usage) -> Usage {
        self.conversation
            .as_ref()
            .map(|c| c.usage)
            .unwrap_or(Usage::ZERO)
            .add(turn)
    }

    /// The turn count after this turn.
    pub fn turns_after_this(&self, advance: bool) -> u64 {
        let n = self.conversation.as_ref().map(|c| c.num_turns).unwrap_or(0);
        if advance {
            n + 1
        } else {
            n
        }
    }

    /// Writes the result: the envelope (json), a `result` event (stream-json) or the
    /// response text (text). Updates the conversation and the implied exit code.
    pub fn emit_result(&mut self, env: Envelope, usage: UsageUpdate) -> Result<(), FakeError> {
        self.emit_result_as(env, usage, self.setup.format())
    }

    /// [`Session::emit_result`] in `format` whatever `--output-format` says.
    pub fn emit_result_as(
        &mut self,
        env: Envelope,
        usage: UsageUpdate,
        format: OutputFormat,
    ) -> Result<(), FakeError> {
        let mut env = env;
        let keys = &self.setup.calibration().usage.keys;
        if !keys.iter().any(|k| k == "cache_read_tokens") {
            // ua-1.0.16-print-json-ok: no `cache_read_tokens` key.
            env.usage.cache_read_absent = true;
        }
        let line = match format {
            OutputFormat::StreamJson => StreamEvent::Result(env.clone()).to_line(),
            OutputFormat::Json => env.to_line(),
            OutputFormat::Text => env.response.clone(),
        };
        if format == OutputFormat::Text {
            self.io.out().stdout(line.as_bytes());
        } else {
            self.turn_line(line.clone());
        }
        self.last_result_line = Some(line.clone());
        self.exit_code = match (&env.status, self.ending) {
            (_, Some(code)) => code,
            (Status::Error, None) => exit_code::TURN_FAILED,
            _ => exit_code::OK,
        };
        let spent = self.turn.spent();
        let turn_lines = self.turn.take_lines();
        let max_step = self.turn.max_step();
        let app = self.app.clone();
        if let Some(c) = self.conversation.as_mut() {
            if c.id == env.conversation_id {
                c.num_turns = env.num_turns;
                c.usage = match usage {
                    UsageUpdate::AddSpent => c.usage.add(&spent),
                    UsageUpdate::Cumulative => env.usage,
                };
                c.last_result_line = Some(line);
                if env.status == Status::Success {
                    c.last_turn_lines = turn_lines;
                    c.last_turn_max_step = max_step.or(c.last_turn_max_step);
                }
                c.save(&app)?;
            }
        }
        self.record_turn_steps()?;
        self.turn.reset_spent();
        Ok(())
    }

    /// Ends the turn with an ERROR result carrying `error` and the usage spent so far.
    pub fn emit_error_result(&mut self, id: String, error: String) -> Result<(), FakeError> {
        let spent = self.turn.spent();
        let env = Envelope {
            error,
            duration_seconds: self.turn_elapsed(),
            num_turns: self.turns_after_this(true),
            usage: self.cumulative_usage(&spent),
            ..Envelope::empty(id, Status::Error)
        };
        self.emit_result(env, UsageUpdate::AddSpent)
    }
}
