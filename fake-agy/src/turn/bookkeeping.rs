//! Steps agy adds to a default turn besides the model's (docs/agy-versions.md, the
//! `AgentSetupStep` and `TitleCheckpoint` rows): the default agent's `unknown` step and
//! the `checkpoint` of a new conversation's first turn, on the versions that show them.

use crate::error::FakeError;
use crate::session::Session;
use agy_protocol::calibration::{AddedStep, UsageCheckpoint};
use agy_protocol::stream::{StepState, StepType, StepUpdate};
use agy_protocol::Usage;

/// The checkpoint's own usage (jd-1.1.9-unknown-conversation: 98 in, 4 out).
const CHECKPOINT_USAGE: Usage = Usage {
    input_tokens: 98,
    output_tokens: 4,
    thinking_tokens: 0,
    cache_read_tokens: 0,
    total_tokens: 102,
    cache_read_absent: false,
};

/// Right after `user_input` of a new conversation's first turn: the default agent's
/// `unknown` step (no `--agent`), DONE in half a millisecond
/// (jd-1.1.9-unknown-conversation: 0.000551 s; a resumed turn has none: jd-1.1.9-resume).
pub fn agent_setup(s: &mut Session, id: &str) -> Result<(), FakeError> {
    if s.setup().args().agent.is_some()
        || !first_adds(s, AddedStep::Unknown)
        || s.turns_after_this(false) > 0
    {
        return Ok(());
    }
    let i = s.next_step_index()?;
    let mut step = StepUpdate::new(id, i, StepState::Done, StepType::Other("unknown".into()));
    step.duration_seconds = Some(0.000551);
    s.emit_step(step);
    Ok(())
}

/// Marks a checkpoint as due when this turn is its conversation's first; on the
/// versions that show it right after `user_input` (gb-1.1.18-run-command-turn: DONE
/// with a duration, no usage), writes it now.
///
/// A turn whose script states its usage spends exactly that: its checkpoint then shows
/// no usage of its own (the fake's choice, so a scenario's figures stay its own).
pub fn plan_checkpoint(s: &mut Session, id: &str, scripted_usage: bool) -> Result<(), FakeError> {
    let first = s.turns_after_this(false) == 0;
    let due = first
        && s.setup().calibration().turns.first_usage_checkpoint == UsageCheckpoint::AfterFirstTool;
    s.due_steps().plan_checkpoint(due, !scripted_usage);
    if first && first_adds(s, AddedStep::Checkpoint) {
        let i = s.next_step_index()?;
        let mut step = StepUpdate::new(id, i, StepState::Done, StepType::Checkpoint);
        step.duration_seconds = Some(1.180448);
        s.emit_step(step);
    }
    Ok(())
}

/// True when a new conversation's first turn shows `step` right after `user_input`.
fn first_adds(s: &Session, step: AddedStep) -> bool {
    let turns = &s.setup().calibration().turns;
    turns.first_after_user_input.contains(&step)
}

/// The due checkpoint, once (after a tool step, or before the result).
pub fn checkpoint(s: &mut Session, id: &str) -> Result<(), FakeError> {
    if !s.due_steps().take_checkpoint() {
        return Ok(());
    }
    let i = s.next_step_index()?;
    let mut step = StepUpdate::new(id, i, StepState::Done, StepType::Checkpoint);
    step.duration_seconds = Some(0.362076);
    if s.due_steps().checkpoint_spends() {
        step.usage = Some(CHECKPOINT_USAGE);
    }
    s.emit_step(step);
    Ok(())
}
