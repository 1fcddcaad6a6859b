//! The recorded situations a turn can end in, each as the modelled version shows it:
//! print-timeout expiry (docs/agy-reference.md §2.4), headless permission denial (§2.5), quota
//! exhausted mid-turn (§2.2 item 5), and a question awaiting the next stdin line.

use crate::cli::OutputFormat;
use crate::error::FakeError;
use crate::exit_code;
use crate::session::{PendingQuestion, Session, UsageUpdate};
use agy_protocol::calibration::{EndStatus, StepStatus};
use agy_protocol::script::PrintTimeoutSpec;
use agy_protocol::stream::{StepError, StepState, StepType, StepUpdate, ToolInfo};
use agy_protocol::{DeniedAction, Envelope, Status, Usage};

/// The quota message of the PB `quota-exhausted` trace (1.2.17).
pub const QUOTA_MESSAGE: &str =
    "Individual quota reached. Please upgrade your subscription to increase your limits. Resets in 34m13s.";

/// `--print-timeout` expired with the turn in progress.
pub fn print_timeout(
    s: &mut Session,
    planned_usage: Usage,
    spec: &PrintTimeoutSpec,
) -> Result<(), FakeError> {
    let id = s.conversation_id()?;
    let d = s.setup().args().print_timeout();
    // A scripted notice replaces the version's line; `""` writes none.
    let notice = |s: &mut Session, line: String| {
        let line = spec.notice.clone().unwrap_or(line);
        if !line.is_empty() {
            s.out().stderr_line(&line);
        }
    };
    let calibrated = s.setup().calibration().print_timeout.clone();
    if calibrated.status == EndStatus::Success {
        // 1.2.6+ (TF S6c, PB trace): SUCCESS, partial text, zero usage, duration 0,
        // one stderr line; exit 0. In text mode the partial text is stdout
        // (unverified: every 1.2.x capture of it is json or stream-json).
        notice(s, calibrated.notice.replace("{duration}", &d.go_string()));
        let env = Envelope {
            response: match &spec.partial {
                Some(text) => text.clone(),
                None => s.turn().streamed_text().to_string(),
            },
            num_turns: s.turns_after_this(true),
            ..Envelope::empty(id, Status::Success)
        };
        s.emit_result(env, UsageUpdate::AddSpent)?;
        s.set_exit_code(calibrated.exit_code);
        Ok(())
    } else {
        // ≤1.1.24 (HV capture): ERROR "timeout waiting for response", exit 1, empty
        // stderr, usage kept.
        let usage = s.turn().spent_if_any().unwrap_or(planned_usage);
        if s.setup().format() == OutputFormat::Text {
            // gb-1.1.18-text-timeout: text mode says so on stderr.
            notice(s, calibrated.notice.replace("{duration}", &d.go_string()));
        } else if let Some(line) = spec.notice.as_ref().filter(|l| !l.is_empty()) {
            s.out().stderr_line(line);
        }
        let env = Envelope {
            error: calibrated.error.clone(),
            duration_seconds: d.0.as_secs_f64(),
            num_turns: s.turns_after_this(true),
            usage: s.cumulative_usage(&usage),
            ..Envelope::empty(id, Status::Error)
        };
        s.emit_result(env, UsageUpdate::Cumulative)?;
        s.set_exit_code(calibrated.exit_code);
        Ok(())
    }
}

/// The `denied_actions` entry for a tool (recorded: run_command → command/RunCommand,
/// call_mcp_tool → mcp/CallMcpTool, write_to_file → write_file/WriteToFile in
/// jd-1.2.7-write-denied; the other file edits are the fake's guess).
pub fn denied_action(tool: &str) -> DeniedAction {
    let (action, display) = match tool {
        "run_command" => ("command", "RunCommand".to_string()),
        "call_mcp_tool" => ("mcp", "CallMcpTool".to_string()),
        "write_to_file" | "replace_file_content" | "multi_replace_file_content" => {
            ("write_file", pascal(tool))
        }
        other => ("command", pascal(other)),
    };
    DeniedAction {
        action: action.into(),
        display_name: display,
        extra: Default::default(),
    }
}

fn pascal(s: &str) -> String {
    s.split('_')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// A gated tool call auto-denied in headless mode, after the model's planning step;
/// the denial ends the turn.
pub fn deny(s: &mut Session, tool: &str, parameters: serde_json::Value) -> Result<(), FakeError> {
    let id = s.conversation_id()?;
    s.ensure_init()?;
    // The planning step before the tool call (PB denied-command: thinking only).
    let i = s.next_step_index()?;
    let mut plan = StepUpdate::new(id.clone(), i, StepState::Done, StepType::AgentResponse);
    plan.duration_seconds = Some(s.turn_elapsed());
    plan.usage = Some(Usage::new(12586, 1760, 1702, 0));
    s.emit_step(plan);
    deny_call(s, &id, tool, &parameters)?;
    end_denied(s, &id, tool)
}

/// The tool step of a denied call: ACTIVE, then DONE (a command on 1.2.8+ outside
/// `strict`) or ERROR with the tool error.
pub fn deny_call(
    s: &mut Session,
    id: &str,
    tool: &str,
    parameters: &serde_json::Value,
) -> Result<(), FakeError> {
    let i = s.next_step_index()?;
    let info = |error: Option<StepError>| ToolInfo {
        name: tool.to_string(),
        parameters: parameters.clone(),
        output: None,
        error,
        extra: Default::default(),
    };
    let mut active = StepUpdate::new(id, i, StepState::Active, StepType::Tool);
    active.tool_name = Some(tool.into());
    active.tool_info = Some(info(None));
    s.emit_step(active);
    let action = denied_action(tool);
    let target = denial_target(tool, parameters);
    // pl-1.2.13-strict-denied: under `toolPermission: strict` a denied command is a tool
    // ERROR ("… user denied permission to run command: …", the rest elided upstream).
    let strict = s.permission_mode() == "strict";
    let mut done = if action.action == "command"
        && !strict
        && s.setup().calibration().denial.command_step.last() == Some(&StepStatus::Done)
    {
        // PB denied-command (1.2.17): ACTIVE → DONE, no output, no error.
        let mut d = StepUpdate::new(id, i, StepState::Done, StepType::Tool);
        d.tool_info = Some(info(None));
        d
    } else {
        // CL denied-mcp-turn (1.2.7), jd-1.2.7-write-denied: the tool step goes ERROR
        // with TOOL_ERROR.
        let mut d = StepUpdate::new(id, i, StepState::Error, StepType::Tool);
        d.tool_info = Some(info(Some(StepError {
            kind: "TOOL_ERROR".into(),
            message: if strict && action.action == "command" {
                format!("permission check failed for command \"{target}\": user denied permission to run command: {target}")
            } else if action.action == "command" {
                s.setup()
                    .calibration()
                    .denial
                    .command_error
                    .replace("{command}", &target)
            } else {
                format!(
                "permission check failed for {kind} \"{target}\": user denied permission for {kind}({target})\nDo not attempt to circumvent this denial by rephrasing the command, using alternative tools/scripts (e.g. python, sh, curl), or accessing the same target resource. Proceed without performing this action.",
                kind = action.action
            )
            },
            extra: Default::default(),
        })));
        d
    };
    done.tool_name = Some(tool.into());
    done.duration_seconds = Some(0.015946572);
    s.emit_step(done);
    Ok(())
}

/// What a denial names: the command line, `server/tool` of an MCP call, the file, or
/// the tool.
fn denial_target(tool: &str, parameters: &serde_json::Value) -> String {
    let text = |k: &str| parameters.get(k).and_then(|v| v.as_str());
    if let Some(c) = text("CommandLine").or_else(|| text("TargetFile")) {
        return c.to_string();
    }
    match (text("ServerName"), text("ToolName")) {
        (Some(a), Some(b)) => format!("{a}/{b}"),
        _ => tool.to_string(),
    }
}

/// How agy ends a turn after a headless denial: the stderr notice, then SUCCESS with
/// `denied_actions` (1.2.0 on) or CANCELED (before).
pub fn end_denied(s: &mut Session, id: &str, tool: &str) -> Result<(), FakeError> {
    let action = denied_action(tool);
    // FM (1.1.22) quotes the live stderr form and the advice's format strings;
    // ai-1.1.5-mcp-auto-denied writes the advice on lines of their own,
    // ut-1.3.1-tools-denied on the notice's line.
    let denial = s.setup().calibration().denial.clone();
    s.out()
        .stderr_line(&denial.notice.replace("{action}", &action.action));
    let spent = s.turn().spent();
    let id = id.to_string();
    let env = if denial.status == EndStatus::Success {
        // 1.2.7 / 1.2.17: SUCCESS, empty response, denied_actions.
        Envelope {
            duration_seconds: s.turn_elapsed(),
            num_turns: s.turns_after_this(true),
            usage: s.cumulative_usage(&spent),
            denied_actions: vec![action],
            ..Envelope::empty(id, Status::Success)
        }
    } else {
        // 1.1.22 (FM): CANCELED, exit 0.
        Envelope {
            duration_seconds: s.turn_elapsed(),
            num_turns: s.turns_after_this(true),
            usage: s.cumulative_usage(&spent),
            ..Envelope::empty(id, Status::Canceled)
        }
    };
    s.emit_result(env, UsageUpdate::AddSpent)
}

/// An account whose quota was used up before the turn (`FAKE_AGY_QUOTA_EXHAUSTED`):
/// the ERROR envelope with the quota message, the conversation's id, no time, the turn
/// counted and zero usage, exit 1 (gb-1.1.18-quota-json, print json). In stream-json
/// `init` then that `result`, in text the message on stderr (**unverified**).
pub fn quota_used_up(s: &mut Session) -> Result<(), FakeError> {
    let id = s.conversation_id()?;
    if s.is_stream() {
        s.ensure_init()?;
    }
    if s.setup().format() == OutputFormat::Text {
        s.out().stderr_line(&format!("Error: {QUOTA_MESSAGE}"));
    }
    let env = Envelope {
        error: QUOTA_MESSAGE.into(),
        num_turns: s.turns_after_this(true),
        ..Envelope::empty(id, Status::Error)
    };
    s.emit_result(env, UsageUpdate::AddSpent)
}

/// Quota exhausted mid-turn: `error_message` step, `error:` and `AGY_ERROR:` on
/// stderr, ERROR result with the usage spent; the process then ends with exit 3.
pub fn quota_exhausted(s: &mut Session, message: Option<&str>) -> Result<(), FakeError> {
    let message = message.unwrap_or(QUOTA_MESSAGE).to_string();
    let (id, i) = s.open_with_done_step(StepType::ErrorMessage)?;
    s.out().stderr_line(&format!("error: {message}"));
    let agy_error = serde_json::json!({
        "short_error": format!("RESOURCE_EXHAUSTED (code 429): {message}"),
        "status": "RESOURCE_EXHAUSTED",
        "error_code": 429,
        "code_kind": "http",
        "retryable": true,
        "error_id": format!("{}-{i}", uuid::Uuid::new_v4()),
    });
    s.out().stderr_line(&format!(
        "AGY_ERROR: {}",
        agy_protocol::gojson::to_go_json(&agy_error)
    ));
    s.end_after_turn(exit_code::QUOTA);
    s.emit_error_result(id, message)
}

/// A question asked through a tool: the tool step stays ACTIVE and the turn ends with
/// a `WAITING` result carrying the question; the next stdin line answers it.
pub fn question(s: &mut Session, text: &str, tool: Option<&str>) -> Result<(), FakeError> {
    let tool = tool.unwrap_or("ask_question").to_string();
    let id = s.conversation_id()?;
    s.ensure_init()?;
    let i = s.next_step_index()?;
    let parameters = serde_json::json!({ "Question": text });
    let mut active = StepUpdate::new(id.clone(), i, StepState::Active, StepType::Tool);
    active.tool_name = Some(tool.clone());
    active.tool_info = Some(ToolInfo {
        name: tool.clone(),
        parameters: parameters.clone(),
        output: None,
        error: None,
        extra: Default::default(),
    });
    s.emit_step(active);
    s.ask_question(PendingQuestion::new(i, tool, parameters));
    let spent = s.turn().spent();
    let env = Envelope {
        response: format!("{text}\n"),
        duration_seconds: s.turn_elapsed(),
        num_turns: s.turns_after_this(true),
        usage: s.cumulative_usage(&spent),
        ..Envelope::empty(id, Status::Waiting)
    };
    s.emit_result(env, UsageUpdate::AddSpent)
}

/// Closes a pending question with the answer that arrived on stdin.
pub fn answer_question(s: &mut Session, answer: &str) -> Result<(), FakeError> {
    let Some(q) = s.take_pending_question() else {
        return Ok(());
    };
    let id = s.conversation_id()?;
    let mut done = StepUpdate::new(id, q.step_index(), StepState::Done, StepType::Tool);
    done.tool_name = Some(q.tool().to_string());
    done.tool_info = Some(ToolInfo {
        name: q.tool().to_string(),
        parameters: q.parameters().clone(),
        output: Some(answer.to_string()),
        error: None,
        extra: Default::default(),
    });
    s.emit_step(done);
    Ok(())
}
