//! A default turn whose model decisions are given (`[[model]]`, docs/script-format.md):
//! the model's responses, tool calls and subagent launches come from the script, and
//! everything agy does with them is the modelled agy's: the `agent_response` steps, each
//! call's permission check and tool step (states, tool_info keys), denials ending the
//! turn, subagent steps and the `system_message` of a subagent's report.

use crate::error::FakeError;
use crate::exit_code;
use crate::model::usage_figures::TEXT_USAGE;
use crate::session::Session;
use crate::turn::artifact::write_images;
use crate::turn::bookkeeping::checkpoint;
use crate::turn::boundary::denial;
use crate::turn::permission::denied;
use crate::turn::situations::{deny_call, end_denied};
use crate::turn::subagent::{report_back, start_subagent};
use agy_protocol::script::{ImageSpec, ModelCall, ModelResponse, ModelTurn, SUBAGENT_TOOL};
use agy_protocol::stream::{StepError, StepState, StepType, StepUpdate, ToolInfo};
use agy_protocol::Usage;

/// How the model's part of a decided turn ended.
#[derive(Debug)]
pub enum Acted {
    /// agy ended the turn (a denial); its result is written.
    Ended,
    /// The model answered: the text of the responses before the answer (agy joins it
    /// into the result's response) and the answer itself.
    Answer {
        /// Text of the earlier responses.
        lead: String,
        /// The final response.
        answer: ModelResponse,
    },
}

/// Tools whose DONE step carries an `output` in the record (view_file, run_command:
/// pb-1.2.17-success-tools; list_dir: kp-1.1.27-list-dir-turn; find_by_name:
/// jd-1.1.8-adversarial-review; schedule, manage_subagents:
/// cp-1.2.16-image-subagent-429). Recorded without: generate_image (cp-unknown-image-run),
/// search_web (pb-1.2.17-web-tool), write_to_file (ut-1.3.1-accept-edits),
/// replace_file_content (ut-1.3.1-hook-deny-bypass). Other tools are unrecorded: the
/// fake gives them an output (unverified).
const SILENT_TOOLS: &[&str] = &[
    "generate_image",
    "search_web",
    "write_to_file",
    "replace_file_content",
    "multi_replace_file_content",
];

/// Acts out the model's responses and calls up to its answer.
pub fn act_out(s: &mut Session, id: &str, turn: &ModelTurn) -> Result<Acted, FakeError> {
    let mut responses = turn.responses.clone();
    let answer = if responses.last().is_some_and(|r| r.calls.is_empty()) {
        responses.pop().unwrap_or_default()
    } else {
        ModelResponse::default()
    };
    let mut lead = String::new();
    let mut reporting = false;
    for r in &responses {
        respond(s, id, r)?;
        lead.push_str(&r.full_text());
        for call in &r.calls {
            if denied(s, &call.tool).is_some() {
                deny_call(s, id, &call.tool, &call.parameters)?;
                end_denied(s, id, &call.tool)?;
                return Ok(Acted::Ended);
            }
            reporting |= call.tool == SUBAGENT_TOOL;
            if call.unfinished {
                return interrupted(s, id, call).map(|()| Acted::Ended);
            }
            run_call(s, id, call)?;
        }
    }
    if reporting {
        // The subagent's report reaches the parent before its answer
        // (cp-1.2.16-image-subagent, cp-1.2.16-image-subagent-429, ut-1.3.1-subagent).
        report_back(s, id)?;
    }
    Ok(Acted::Answer { lead, answer })
}

/// One model response as `agent_response` steps: its streamed text as one ACTIVE chunk,
/// then DONE with the rest of its text, the step's duration and usage.
pub fn respond(s: &mut Session, id: &str, r: &ModelResponse) -> Result<(), FakeError> {
    respond_with(s, id, r, TEXT_USAGE)
}

/// [`respond`] with the step's usage.
pub fn respond_with(
    s: &mut Session,
    id: &str,
    r: &ModelResponse,
    usage: Usage,
) -> Result<(), FakeError> {
    let i = s.next_step_index()?;
    if !r.streamed.is_empty() {
        let mut chunk = StepUpdate::new(id, i, StepState::Active, StepType::AgentResponse);
        chunk.text_delta = Some(r.streamed.clone());
        s.emit_step(chunk);
    }
    let mut done = StepUpdate::new(id, i, StepState::Done, StepType::AgentResponse);
    if !r.text.is_empty() {
        done.text_delta = Some(r.text.clone());
    }
    done.duration_seconds = Some(s.turn_elapsed());
    done.usage = Some(usage);
    s.emit_step(done);
    Ok(())
}

/// A tool that runs until the process is interrupted: its step stays ACTIVE; on SIGINT
/// or SIGTERM agy ends the turn with an ERROR result `interrupted` carrying the usage
/// spent, `error: interrupted` on stderr, and exits 1 (ut-1.3.1-interrupted-sigint,
/// ut-1.3.1-interrupted-sigterm; other versions unverified).
fn interrupted(s: &mut Session, id: &str, call: &ModelCall) -> Result<(), FakeError> {
    s.signals().arm_interrupt();
    let i = s.next_step_index()?;
    let mut active = StepUpdate::new(id, i, StepState::Active, StepType::Tool);
    active.tool_name = Some(call.tool.clone());
    active.tool_info = Some(ToolInfo {
        name: call.tool.clone(),
        parameters: call.parameters.clone(),
        output: None,
        error: None,
        extra: Default::default(),
    });
    s.emit_step(active);
    s.signals().wait_interrupt();
    // gb-1.1.18-context-canceled: before 1.1.28 the result says `context canceled`.
    let why = s.setup().calibration().errors.interrupted.clone();
    s.emit_error_result(id.to_string(), why.clone())?;
    s.out().stderr_line(&format!("error: {why}"));
    s.end_after_turn(exit_code::TURN_FAILED);
    Ok(())
}

/// A call agy lets run: a subagent launch, an image (written into the brain dir), or a
/// tool step ACTIVE then DONE (with `output` where agy gives one) or ERROR when the
/// tool itself failed.
fn run_call(s: &mut Session, id: &str, call: &ModelCall) -> Result<(), FakeError> {
    if call.tool == SUBAGENT_TOOL {
        // agy's order of the entry's keys (cp-1.2.16-image-subagent, ut-1.3.1-subagent).
        let mut entry = serde_json::Map::new();
        for key in ["type_name", "role", "initial_prompt"] {
            if let Some(v) = call.parameters.get(key) {
                entry.insert(key.into(), v.clone());
            }
        }
        return start_subagent(s, id, entry, &ImageSpec::default());
    }
    if call.tool == "ask_question" {
        // ut-1.3.1-ask-question-nohook: headless, with no hook to answer it, the question
        // is a step of type `unknown` (DONE, duration only) answered empty; the model
        // goes on (other versions unverified).
        let i = s.next_step_index()?;
        let mut step = StepUpdate::new(id, i, StepState::Done, StepType::Other("unknown".into()));
        step.duration_seconds = Some(0.021179515);
        s.emit_step(step);
        return Ok(());
    }
    if call.tool == "generate_image" && call.fails.is_none() {
        let spec = ImageSpec {
            name: call
                .parameters
                .get("ImageName")
                .and_then(|v| v.as_str())
                .map(String::from),
            tool_steps: true,
            ..ImageSpec::default()
        };
        write_images(s, &spec)?;
        return Ok(());
    }
    let i = s.next_step_index()?;
    let info = |output: Option<String>, error: Option<StepError>| ToolInfo {
        name: call.tool.clone(),
        parameters: call.parameters.clone(),
        output,
        error,
        extra: Default::default(),
    };
    let mut active = StepUpdate::new(id, i, StepState::Active, StepType::Tool);
    active.tool_name = Some(call.tool.clone());
    active.tool_info = Some(info(None, None));
    s.emit_step(active);
    let boundary = denial(s.app(), &call.parameters);
    if let Some(message) = &boundary {
        s.turn_mut().fail_with(message.clone());
    }
    let mut done = match call.fails.as_ref().or(boundary.as_ref()) {
        // cp-unknown-image-429: the image model's 429 is a tool ERROR; the turn goes on.
        Some(message) => {
            let mut d = StepUpdate::new(id, i, StepState::Error, StepType::Tool);
            d.tool_info = Some(info(
                None,
                Some(StepError {
                    kind: "TOOL_ERROR".into(),
                    message: message.clone(),
                    extra: Default::default(),
                }),
            ));
            d
        }
        None => {
            let output = (!call.quiet && !SILENT_TOOLS.contains(&call.tool.as_str()))
                .then(|| format!("(the output of {})\n", call.tool));
            let mut d = StepUpdate::new(id, i, StepState::Done, StepType::Tool);
            d.tool_info = Some(info(output, None));
            d
        }
    };
    done.tool_name = Some(call.tool.clone());
    done.duration_seconds = Some(0.006262922);
    s.emit_step(done);
    // jd-1.1.8-adversarial-review: a new conversation's checkpoint follows its first tool.
    checkpoint(s, id)
}
