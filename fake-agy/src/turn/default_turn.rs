//! The default turn: what a plausible agy 1.2.x does with one prompt (docs/agy-reference.md §3.5
//! ordering): `user_input`, optional planning step and `generate_image` call, the
//! answer streamed as `agent_response` chunks, then the result with cumulative usage.

use crate::error::FakeError;
use crate::model::usage_figures::TEXT_USAGE;
use crate::session::{Session, UsageUpdate};
use crate::turn::answer_stream::stream_answer;
use crate::turn::artifact::write_images;
use crate::turn::bookkeeping::{agent_setup, checkpoint, plan_checkpoint};
use crate::turn::decided_turn::{act_out, respond_with, Acted};
use crate::turn::situations::{deny, print_timeout, quota_used_up};
use crate::turn::subagent::delegate_image;
use agy_protocol::calibration::ImageGeneration;
use agy_protocol::prompt::{read_prompt, GatedTool, PromptReading};
use agy_protocol::script::{DefaultSpec, ImageSpec, PrintTimeoutSpec, UsageName, UsageSpec};
use agy_protocol::stream::{StepState, StepType, StepUpdate, ToolInfo};
use agy_protocol::{Envelope, Status, Usage};

/// An image run's usage (S8: 62753/4953/4459/85548), split over the planning step and
/// the final answer.
const IMAGE_USAGE_PLAN: Usage = Usage {
    input_tokens: 30000,
    output_tokens: 4500,
    thinking_tokens: 4300,
    cache_read_tokens: 40000,
    total_tokens: 34500,
    cache_read_absent: false,
};
const IMAGE_USAGE_ANSWER: Usage = Usage {
    input_tokens: 32753,
    output_tokens: 453,
    thinking_tokens: 159,
    cache_read_tokens: 45548,
    total_tokens: 33206,
    cache_read_absent: false,
};

/// Resolves a scripted usage (`"zero"`, `"default"`, counts).
pub fn resolve_usage(spec: &UsageSpec, default: Usage) -> Usage {
    match spec {
        UsageSpec::Named(UsageName::Zero) => Usage::ZERO,
        UsageSpec::Named(UsageName::Default) => default,
        UsageSpec::Counts {
            input,
            output,
            thinking,
            cache_read,
            total,
            cache_read_key,
        } => Usage {
            input_tokens: *input,
            output_tokens: *output,
            thinking_tokens: *thinking,
            cache_read_tokens: *cache_read,
            total_tokens: total.unwrap_or(input.saturating_add(*output)),
            cache_read_absent: *cache_read_key == Some(false),
        },
    }
}

/// The answer the default behaviour gives to `prompt`.
pub fn canned_response(prompt: &str) -> String {
    let r = read_prompt(prompt);
    if let Some(word) = r.reply_word {
        return format!("{word}\n");
    }
    if r.wants_image {
        return format!(
            "I generated the image `{}` with the generate_image tool. The tool has no path parameter, so it is saved in this conversation's artifacts.\n",
            r.image_name
        );
    }
    "Done.\n".to_string()
}

/// The answer after the image-generator subagent reported back (the recorded one is the
/// model's own word, "done"; the fake names the image as it does for a direct call).
fn delegated_answer(image_name: &str) -> String {
    format!("The image-generator subagent created the image `{image_name}`; it is saved in the subagent's conversation artifacts.\n")
}

/// The usage a default turn for `prompt` reports.
pub fn default_turn_usage(prompt: &str) -> Usage {
    if read_prompt(prompt).wants_image {
        IMAGE_USAGE_PLAN.add(&IMAGE_USAGE_ANSWER)
    } else {
        TEXT_USAGE
    }
}

/// Acts out one default turn for the session's current prompt, with overrides.
pub fn default_turn(s: &mut Session, spec: &DefaultSpec) -> Result<(), FakeError> {
    let plan = plan_turn(s, spec);
    let duration = plan.duration;
    if s.setup().quota_exhausted() {
        return quota_used_up(s);
    }
    let (id, _) = s.open_with_done_step(StepType::UserInput)?;
    resume_message(s, &id)?;
    agent_setup(s, &id)?;
    plan_checkpoint(s, &id, spec.usage.is_some())?;
    let timeout = s.setup().args().print_timeout().0;
    if timeout < duration {
        s.setup().clock().sleep(timeout);
        return print_timeout(s, plan.usage, &PrintTimeoutSpec::default());
    }
    s.setup().clock().sleep(duration);
    // Given model decisions replace the fake's own model (its prompt reading).
    let (lead, decided) = match s.take_model_turn()? {
        Some(turn) => match act_out(s, &id, &turn)? {
            Acted::Ended => return Ok(()),
            Acted::Answer { lead, answer } => (lead, Some(answer)),
        },
        None => (String::new(), None),
    };
    let image = plan.image && decided.is_none();
    let answer = match &decided {
        Some(r) if spec.response.is_none() => r.full_text(),
        _ => plan.answer,
    };
    if !image && !s.setup().args().skip_permissions && spec.response.is_none() && decided.is_none()
    {
        if let Some(denied) = deny_gated(s, plan.reading.gated.as_ref()) {
            return denied;
        }
    }
    let (response, structured_output) = match conform(s, spec, answer) {
        Ok(pair) => pair,
        Err(why) => return fail_schema(s, why),
    };
    let mut lead = lead;
    let answer_usage = if image {
        let planned = PlannedImage {
            usage: plan.usage,
            duration,
            references: &plan.reading.references,
            delegates: plan.delegates,
        };
        image_steps(s, &id, spec, planned, &mut lead)?
    } else {
        plan.usage
    };
    match &structured_output {
        Some(value) => finish_answer(
            s,
            &id,
            &response,
            value,
            answer_usage,
            duration.as_secs_f64(),
        )?,
        None => match &decided {
            Some(r) => respond_with(s, &id, r, answer_usage)?,
            None => stream_answer(
                s,
                &id,
                &response,
                spec.chunks,
                answer_usage,
                duration.as_secs_f64(),
            )?,
        },
    }
    let answered = Answered {
        response: lead + &response,
        structured_output,
        duration,
    };
    write_result(s, spec, id, answered)
}

/// What the prompt and the script's overrides make of a default turn, before it acts.
struct TurnPlan {
    reading: PromptReading,
    image: bool,
    duration: std::time::Duration,
    delegates: bool,
    answer: String,
    usage: Usage,
}

/// Reads the prompt and applies the script's overrides (image, duration, response,
/// usage).
fn plan_turn(s: &Session, spec: &DefaultSpec) -> TurnPlan {
    let reading = read_prompt(s.turn().prompt());
    let image = spec.image.unwrap_or(reading.wants_image);
    let duration = spec.duration.map(|d| d.0).unwrap_or(if image {
        s.setup().image_duration()
    } else {
        s.setup().turn_duration()
    });
    // 1.2.16 on: the image-generator subagent makes the image (docs/agy-versions.md).
    let delegates = image && s.setup().calibration().image.generation == ImageGeneration::Subagent;
    let repeat = spec.response_repeat.unwrap_or(1) as usize;
    let answer = spec
        .response
        .as_ref()
        .map(|r| r.repeat(repeat))
        .unwrap_or_else(|| {
            if delegates {
                delegated_answer(&reading.image_name)
            } else {
                canned_response(s.turn().prompt())
            }
        });
    TurnPlan {
        usage: turn_usage(spec, image),
        reading,
        image,
        duration,
        delegates,
        answer,
    }
}

/// The turn's usage: the script's, resolved against the recorded default for a text or
/// an image turn.
fn turn_usage(spec: &DefaultSpec, image: bool) -> Usage {
    let default_usage = if image {
        IMAGE_USAGE_PLAN.add(&IMAGE_USAGE_ANSWER)
    } else {
        TEXT_USAGE
    };
    spec.usage
        .as_ref()
        .map(|u| resolve_usage(u, default_usage))
        .unwrap_or(default_usage)
}

/// What a default turn answered, for its result.
struct Answered {
    /// Every text-bearing agent message of the turn, joined.
    response: String,
    structured_output: Option<serde_json::Value>,
    duration: std::time::Duration,
}

/// The default turn's result: the envelope with the turn's counts and usage.
fn write_result(
    s: &mut Session,
    spec: &DefaultSpec,
    id: String,
    a: Answered,
) -> Result<(), FakeError> {
    checkpoint(s, &id)?;
    let advance = spec.advance_turns.unwrap_or(true);
    let spent = s.turn().spent();
    let env = Envelope {
        // agy joins every text-bearing agent message of the turn (cp-1.2.16-image-subagent).
        response: a.response,
        error: spec
            .error
            .clone()
            .or_else(|| s.turn().failed_with().map(str::to_string))
            .unwrap_or_default(),
        duration_seconds: s.result_duration(a.duration.as_secs_f64() + 0.04),
        num_turns: s.turns_after_this(advance),
        usage: s.cumulative_usage(&spent),
        json_schema: a
            .structured_output
            .as_ref()
            .and(s.schema())
            .map(|x| x.document().clone()),
        structured_output: a.structured_output,
        ..Envelope::empty(
            id,
            spec.status
                .clone()
                .unwrap_or(if s.turn().failed_with().is_some() {
                    Status::Error
                } else {
                    Status::Success
                }),
        )
    };
    s.emit_result(env, UsageUpdate::AddSpent)?;
    if s.turn().failed_with().is_some() && s.ending().is_none() {
        // gb-1.1.18-protection-boundary: the ERROR result of a boundary denial exits 0.
        s.set_exit_code(crate::exit_code::OK);
    }
    Ok(())
}

/// What a default turn's image half needs from the turn.
struct PlannedImage<'a> {
    usage: Usage,
    duration: std::time::Duration,
    references: &'a [String],
    delegates: bool,
}

/// The image half of a default turn: the planning step, the referenced files viewed and
/// the image written (or delegated to the image subagent, whose report text becomes
/// `lead`); returns the answer step's usage.
fn image_steps(
    s: &mut Session,
    id: &str,
    spec: &DefaultSpec,
    planned: PlannedImage<'_>,
    lead: &mut String,
) -> Result<Usage, FakeError> {
    let plan_usage = if spec.usage.is_some() {
        Usage::ZERO
    } else {
        IMAGE_USAGE_PLAN
    };
    let i = s.next_step_index()?;
    let mut plan = StepUpdate::new(id.to_string(), i, StepState::Done, StepType::AgentResponse);
    plan.duration_seconds = Some(planned.duration.as_secs_f64() * 0.8);
    plan.usage = Some(plan_usage);
    s.emit_step(plan);
    view_references(s, id, planned.references)?;
    let size = spec.image_size;
    let images = ImageSpec {
        width: size.map(|[w, _]| w),
        height: size.map(|[_, h]| h),
        ..ImageSpec::default()
    };
    if planned.delegates {
        *lead = delegate_image(s, id, &images)?;
    } else {
        write_images(s, &images)?;
    }
    Ok(if spec.usage.is_some() {
        planned.usage
    } else {
        IMAGE_USAGE_ANSWER
    })
}

/// §2.5: a gated tool without --dangerously-skip-permissions is soft-denied;
/// generate_image is never gated (S5). `Some` when the turn ends in that denial.
fn deny_gated(s: &mut Session, gated: Option<&GatedTool>) -> Option<Result<(), FakeError>> {
    let (tool, input) = match gated? {
        GatedTool::Command => (
            "run_command",
            serde_json::json!({ "CommandLine": format!("touch {}", "notes-copy.txt") }),
        ),
        GatedTool::Mcp => (
            "call_mcp_tool",
            serde_json::json!({ "Arguments": {}, "ServerName": "server", "ToolName": "tool" }),
        ),
    };
    Some(deny(s, tool, input))
}

/// The first turn a process runs in a conversation with earlier turns has a
/// `system_message` step after `user_input` (every resume capture from 1.1.9 to 1.3.1:
/// `jd-1.1.9-resume`, `am-1.1.11-resume-turn`, `kp-1.2.0-live-join-resumed`,
/// `pl-1.2.13-resume-turn`, `ut-1.3.1-resume-after-interrupt`); later turns of the same
/// process have none (`kp-1.2.0-live-join-stream`).
fn resume_message(s: &mut Session, id: &str) -> Result<(), FakeError> {
    if !s.due_steps().take_resume_message() {
        return Ok(());
    }
    let i = s.next_step_index()?;
    let mut step = StepUpdate::new(id, i, StepState::Done, StepType::SystemMessage);
    // pl-1.2.13-resume-turn: 0.000265 s (1.1.9 wrote none: jd-1.1.9-resume).
    let keys = &s.setup().calibration().turns.resumed_system_message_keys;
    if keys.iter().any(|k| k == "duration_seconds") {
        step.duration_seconds = Some(0.000265);
    }
    s.emit_step(step);
    Ok(())
}

/// With `--json-schema`, the answer becomes the minimal conforming value (or the
/// script's `structured_output`), and the response text is that value as JSON
/// (unverified: docs/agy-versions.md, "Structured output"). Without, the answer as is.
fn conform(
    s: &Session,
    spec: &DefaultSpec,
    answer: String,
) -> Result<(String, Option<serde_json::Value>), String> {
    let Some(schema) = s.schema() else {
        return Ok((answer, None));
    };
    let value = match &spec.structured_output {
        Some(v) => v.clone(),
        None => schema.minimal_answer(&answer)?,
    };
    let text = spec
        .response
        .clone()
        .filter(|_| spec.structured_output.is_some())
        .unwrap_or_else(|| format!("{value}\n"));
    Ok((text, Some(value)))
}

/// A `--json-schema` answer as agy 1.3.1 gives it (untether `json_schema_finish`): one
/// `agent_response` DONE line with the whole JSON text and the usage, then the `finish`
/// tool ACTIVE with the value as its parameters, then a step of type `finish` DONE.
fn finish_answer(
    s: &mut Session,
    id: &str,
    response: &str,
    value: &serde_json::Value,
    usage: Usage,
    duration: f64,
) -> Result<(), FakeError> {
    let i = s.next_step_index()?;
    let mut answer = StepUpdate::new(id, i, StepState::Done, StepType::AgentResponse);
    answer.text_delta = Some(response.to_string());
    answer.duration_seconds = Some(duration);
    answer.usage = Some(usage);
    s.emit_step(answer);
    let i = s.next_step_index()?;
    let mut call = StepUpdate::new(id, i, StepState::Active, StepType::Tool);
    call.tool_name = Some("finish".into());
    call.tool_info = Some(ToolInfo {
        name: "finish".into(),
        parameters: value.clone(),
        output: None,
        error: None,
        extra: Default::default(),
    });
    s.emit_step(call);
    let mut done = StepUpdate::new(id, i, StepState::Done, StepType::Other("finish".into()));
    // The capture's finish step took 0.028 s.
    done.duration_seconds = Some(0.027595495);
    s.emit_step(done);
    Ok(())
}

/// An answer that cannot conform to `--json-schema` fails the turn: the ERROR result
/// names the violation (agentty reports that a schema mismatch aborts the turn; the
/// wording is unverified).
fn fail_schema(s: &mut Session, why: String) -> Result<(), FakeError> {
    let id = s.conversation_id()?;
    s.emit_error_result(id, why)
}

/// S4: each reference image named in the prompt is opened with `view_file` (ACTIVE,
/// then DONE on the same index) before `generate_image`; its bytes never reach the
/// image tool. What `view_file` outputs for an image is not recorded, so the DONE step
/// carries no `output`.
fn view_references(s: &mut Session, id: &str, references: &[String]) -> Result<(), FakeError> {
    for path in references {
        let i = s.next_step_index()?;
        let info = ToolInfo {
            name: "view_file".into(),
            parameters: serde_json::json!({ "AbsolutePath": path }),
            output: None,
            error: None,
            extra: Default::default(),
        };
        let mut active = StepUpdate::new(id.to_string(), i, StepState::Active, StepType::Tool);
        active.tool_name = Some("view_file".into());
        active.tool_info = Some(info.clone());
        s.emit_step(active);
        let mut done = StepUpdate::new(id.to_string(), i, StepState::Done, StepType::Tool);
        done.tool_name = Some("view_file".into());
        // PB success-tools: a view_file step took 0.006 s.
        done.duration_seconds = Some(0.006262922);
        done.tool_info = Some(info);
        s.emit_step(done);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_usage_follows_the_total_rule() {
        assert!(TEXT_USAGE.total_is_consistent());
        let image = IMAGE_USAGE_PLAN.add(&IMAGE_USAGE_ANSWER);
        assert!(IMAGE_USAGE_PLAN.total_is_consistent() && IMAGE_USAGE_ANSWER.total_is_consistent());
        assert_eq!(
            (
                image.input_tokens,
                image.output_tokens,
                image.thinking_tokens,
                image.cache_read_tokens,
                image.total_tokens
            ),
            (62753, 4953, 4459, 85548, 67706),
            "S8 image run"
        );
    }
}
