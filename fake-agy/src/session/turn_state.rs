//! The current turn of a session: its prompt, when it started, what its steps spent and
//! streamed, the stream-json lines it wrote, and a tool error that makes its result
//! ERROR.

use crate::store::conversation_db::StepRow;
use agy_protocol::stream::StepUpdate;
use agy_protocol::Usage;
use std::collections::BTreeMap;
use std::time::Instant;

/// The current turn. Its steps are accounted as the session writes them
/// (`Session::emit_step_to`); the result takes what they spent.
#[derive(Debug, Clone)]
pub struct TurnState {
    prompt: String,
    started: Instant,
    spent: Usage,
    spent_any: bool,
    /// stream-json lines it wrote (for the replay quirk).
    lines: Vec<String>,
    /// Text streamed in `text_delta`s (the partial output a print timeout returns).
    streamed_text: String,
    max_step: Option<u64>,
    /// A tool error that makes the turn's result ERROR while the answer stands
    /// (`crate::turn::boundary`).
    failed_with: Option<String>,
    /// Each step's latest state, by index (the conversation database's rows).
    steps: BTreeMap<u64, StepRow>,
}

impl TurnState {
    /// A turn for `prompt` starting now.
    pub(super) fn new(prompt: String) -> TurnState {
        TurnState {
            prompt,
            started: Instant::now(),
            spent: Usage::ZERO,
            spent_any: false,
            lines: Vec::new(),
            streamed_text: String::new(),
            max_step: None,
            failed_with: None,
            steps: BTreeMap::new(),
        }
    }

    /// The prompt it answers.
    pub fn prompt(&self) -> &str {
        &self.prompt
    }

    /// Usage its steps reported so far.
    pub fn spent(&self) -> Usage {
        self.spent
    }

    /// Usage its steps reported so far, when any step reported usage.
    pub fn spent_if_any(&self) -> Option<Usage> {
        self.spent_any.then_some(self.spent)
    }

    /// Text streamed in `text_delta`s so far.
    pub fn streamed_text(&self) -> &str {
        &self.streamed_text
    }

    /// The tool error that makes the turn's result ERROR, if any.
    pub fn failed_with(&self) -> Option<&str> {
        self.failed_with.as_deref()
    }

    /// Makes the turn's result ERROR with `message` while its answer stands.
    pub fn fail_with(&mut self, message: String) {
        self.failed_with = Some(message);
    }

    /// True while the turn has written no stream-json line.
    pub fn wrote_nothing(&self) -> bool {
        self.lines.is_empty()
    }

    /// Seconds since the turn started.
    pub fn elapsed_secs(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Highest step index it used.
    pub(super) fn max_step(&self) -> Option<u64> {
        self.max_step
    }

    /// Keeps a stream-json line it wrote.
    pub(super) fn push_line(&mut self, line: String) {
        self.lines.push(line);
    }

    /// Hands over the lines it wrote (a result ends them).
    pub(super) fn take_lines(&mut self) -> Vec<String> {
        std::mem::take(&mut self.lines)
    }

    /// Accounts a step: its usage, its streamed text and its index.
    pub(super) fn account(&mut self, step: &StepUpdate) {
        if let Some(u) = &step.usage {
            self.spent = self.spent.add(u);
            self.spent_any = true;
        }
        if let Some(t) = &step.text_delta {
            self.streamed_text.push_str(t);
        }
        self.max_step = Some(self.max_step.unwrap_or(0).max(step.step_index));
        self.steps
            .entry(step.step_index)
            .and_modify(|row| row.absorb(step))
            .or_insert_with(|| StepRow::of(step));
    }

    /// Hands over the steps it wrote, by index (a result ends them).
    pub(super) fn take_steps(&mut self) -> Vec<StepRow> {
        std::mem::take(&mut self.steps).into_values().collect()
    }

    /// Forgets what was spent (a result has taken it).
    pub(super) fn reset_spent(&mut self) {
        self.spent = Usage::ZERO;
        self.spent_any = false;
    }
}
