//! Acts out script steps, one after another (docs/script-format.md).

use crate::cli::OutputFormat;
use crate::error::FakeError;
use crate::io::children::{start_child, ChildPlan};
use crate::io::ending::{die_by_signal, exit_with};
use crate::io::signals::{INT, TERM};
use crate::run::print_run::default_run;
use crate::script::rules::TurnContext;
use crate::script::trace_replay;
use crate::session::{Session, UsageUpdate};
use crate::turn::artifact::{append_log, write_brain_file, write_images};
use crate::turn::default_turn::{canned_response, default_turn, default_turn_usage, resolve_usage};
use crate::turn::situations::{deny, print_timeout, question, quota_exhausted};
use agy_protocol::layout::Layout;
use agy_protocol::script::{
    CommandResultSpec, CrashKind, DenySpec, EnvelopeSpec, ResultFormat, RunMode, Step,
    StepErrorSpec, StepSpec, ToolChildSpec, UsageName, UsageSpec,
};
use agy_protocol::stream::{StepError, StepState, StepType, StepUpdate, StreamEvent, ToolInfo};
use agy_protocol::{Envelope, Status, Usage};
use serde_json::{Map, Value};

/// Serves persistent-mode stdin lines until EOF (`persistent::serve_lines`). It is
/// passed in, so the steps do not depend on the loop that runs them per line.
pub type LineServer = fn(&mut Session, &mut TurnContext) -> Result<(), FakeError>;

/// Where steps run.
#[derive(Debug, Clone, Copy)]
pub enum Place {
    /// An invocation's own steps; in persistent mode a `default` step serves stdin
    /// lines with this server.
    Invocation(LineServer),
    /// The steps of one persistent-mode stdin line.
    Turn,
}

/// Runs `steps` in order. Steps that end the process do not return.
pub fn run_steps(
    s: &mut Session,
    steps: &[Step],
    place: Place,
    ctx: &mut TurnContext,
) -> Result<(), FakeError> {
    for step in steps {
        run_step(s, step, place, ctx)?;
    }
    Ok(())
}

fn run_step(
    s: &mut Session,
    step: &Step,
    place: Place,
    ctx: &mut TurnContext,
) -> Result<(), FakeError> {
    match step {
        Step::Default(spec) => match (s.setup().mode(), place) {
            (RunMode::Persistent, Place::Invocation(serve_lines)) => {
                ctx.line_default = spec.0.clone();
                serve_lines(s, ctx)?
            }
            (_, Place::Turn) => default_turn(s, &spec.0)?,
            (_, Place::Invocation(_)) => default_run(s, &spec.0)?,
        },
        Step::Envelope(spec) => {
            let env = build_envelope(s, spec)?;
            let format = spec.format.map(output_format).unwrap_or(s.setup().format());
            s.emit_result_as(env, UsageUpdate::Cumulative, format)?;
        }
        Step::Init(spec) => s.write_init(&spec.0)?,
        Step::CommandResult(spec) => write_command_result(s, spec),
        Step::StepUpdate(spec) => {
            let step = build_step(s, spec, None)?;
            s.emit_step_to(step, true);
        }
        Step::LateStep(spec) => {
            let prev = s.conversation()?.last_turn_max_step.unwrap_or(0);
            let step = build_step(s, spec, Some(prev))?;
            s.emit_step_to(step, true);
        }
        Step::Stdout(t) => s.out().stdout_line(t),
        Step::StdoutRaw(t) => s.out().stdout(t.as_bytes()),
        Step::StdoutHex(b) => s.out().stdout(&b.0),
        Step::Stderr(t) => s.out().stderr_line(t),
        Step::StderrRaw(t) => s.out().stderr(t.as_bytes()),
        Step::Log(t) => append_log(s, t)?,
        Step::Sleep(d) => s.setup().clock().sleep(d.0),
        Step::Exit(code) => exit_with(s.recorder(), *code),
        Step::Hang(_) => loop {
            // Only a signal ends a hang (its disposition decides how).
            std::thread::park();
        },
        Step::OnSigterm(a) => s.signals().set(TERM, a.clone()),
        Step::OnSigint(a) => s.signals().set(INT, a.clone()),
        Step::Crash(kind) => crash(s, *kind),
        Step::CloseStdout(_) => s.out().close_stdout(),
        Step::CloseStdin(_) => s.stdin().close(),
        Step::ReadLine(_) => {
            let _ = s.stdin().next();
        }
        Step::Image(spec) => {
            write_images(s, &spec.0)?;
        }
        Step::File(spec) => write_brain_file(s, spec)?,
        Step::Trace(path) => {
            let inv = trace_replay::load(s.setup().script(), path)?;
            trace_replay::replay(s, &inv)?;
        }
        Step::PrintTimeout(spec) => {
            let planned = default_turn_usage(s.turn().prompt());
            print_timeout(s, planned, &spec.0)?;
        }
        Step::ReplayPrevious(_) => replay_previous(s)?,
        Step::DuplicateResult(_) => duplicate_result(s)?,
        Step::QuotaExhausted(spec) => quota_exhausted(s, spec.0.message.as_deref())?,
        Step::Deny(spec) => scripted_deny(s, &spec.0)?,
        Step::Question(q) => question(s, &q.text, q.tool.as_deref())?,
        Step::ToolChild(spec) => start_tool_child(s, &spec.0)?,
    }
    Ok(())
}

/// A real child process standing for a tool run, in agy's process group.
fn start_tool_child(s: &mut Session, spec: &ToolChildSpec) -> Result<(), FakeError> {
    // A given life is the script's delay, scaled like any; the default is the turn's
    // own life, not scaled: the child stays until the turn ends or its group is killed,
    // so a client whose fixed timeout comes late still finds it running.
    let lasts = match spec.lasts {
        Some(d) => s.setup().clock().scaled(d.0),
        None => DEFAULT_CHILD_LIFE,
    };
    let plan = ChildPlan {
        label: spec.label.clone().unwrap_or_else(|| "run_command".into()),
        outlives: spec.outlives,
        lasts,
    };
    start_child(s.recorder(), &plan)?;
    Ok(())
}

/// How long a tool child lives if nothing kills it, whatever the time scale: longer
/// than any scenario (the sandbox's sweep ends it with the scenario), short enough that
/// a child outside any sandbox sweep does not stay for good.
const DEFAULT_CHILD_LIFE: std::time::Duration = std::time::Duration::from_secs(600);

/// Seed 000: the previous turn's steps and result come again, unchanged (old
/// `num_turns`), before this turn's own output.
fn replay_previous(s: &mut Session) -> Result<(), FakeError> {
    let lines = s.conversation()?.last_turn_lines.clone();
    for l in lines {
        s.out().stdout(l.as_bytes());
    }
    Ok(())
}

/// The last result written again: this process's, else the conversation's.
fn duplicate_result(s: &mut Session) -> Result<(), FakeError> {
    let line = match s.last_result_line().map(str::to_string) {
        Some(l) => Some(l),
        None => s.conversation()?.last_result_line.clone(),
    };
    if let Some(l) = line {
        s.out().stdout(l.as_bytes());
    }
    Ok(())
}

/// A scripted denial of a tool call (`run_command` by default), after the turn's
/// `user_input` step when nothing of the turn was written yet.
fn scripted_deny(s: &mut Session, spec: &DenySpec) -> Result<(), FakeError> {
    let tool = spec.tool.clone().unwrap_or_else(|| "run_command".into());
    let params = spec.parameters.clone().unwrap_or_else(|| {
        if tool == "run_command" {
            serde_json::json!({ "CommandLine": "touch notes-copy.txt" })
        } else {
            serde_json::json!({})
        }
    });
    s.ensure_init()?;
    if s.turn().wrote_nothing() {
        let id = s.conversation_id()?;
        let i = s.next_step_index()?;
        s.emit_step(StepUpdate::new(id, i, StepState::Done, StepType::UserInput));
    }
    deny(s, &tool, params)
}

fn crash(s: &mut Session, kind: CrashKind) -> ! {
    match kind {
        CrashKind::Abort => {
            if s.recorder().finish(agy_protocol::journal::ExitRecord {
                code: None,
                signal: Some("SIGABRT".into()),
            }) {
                std::process::abort()
            }
            loop {
                std::thread::park();
            }
        }
        CrashKind::Segv => die_by_signal(s.recorder(), nix::libc::SIGSEGV),
        CrashKind::Kill => die_by_signal(s.recorder(), nix::libc::SIGKILL),
    }
}

/// An envelope from a script's `envelope` step; unset fields take the values the
/// default behaviour would use.
pub fn build_envelope(s: &mut Session, spec: &EnvelopeSpec) -> Result<Envelope, FakeError> {
    let conversation_id = match &spec.conversation_id {
        Some(id) => id.clone(),
        None => s.conversation_id()?,
    };
    // The default usage depends on the prompt; only read it when the script left it out.
    let needs_default = !matches!(
        spec.usage,
        Some(UsageSpec::Counts { .. }) | Some(UsageSpec::Named(UsageName::Zero))
    );
    let default_usage = if !needs_default {
        Usage::ZERO
    } else if let Some(spent) = s.turn().spent_if_any() {
        s.cumulative_usage(&spent)
    } else {
        s.cumulative_usage(&default_turn_usage(s.turn().prompt()))
    };
    Ok(Envelope {
        conversation_id,
        status: spec.status.clone().unwrap_or(Status::Success),
        response: spec
            .response
            .clone()
            .unwrap_or_else(|| canned_response(s.turn().prompt())),
        error: spec.error.clone().unwrap_or_default(),
        duration_seconds: spec.duration_seconds.unwrap_or_else(|| s.turn_elapsed()),
        num_turns: spec.num_turns.unwrap_or_else(|| s.turns_after_this(true)),
        usage: spec
            .usage
            .as_ref()
            .map(|u| resolve_usage(u, default_usage))
            .unwrap_or(default_usage),
        denied_actions: spec.denied_actions.clone(),
        command: spec.command.clone(),
        structured_output: spec.structured_output.clone(),
        json_schema: match &spec.json_schema {
            Some(doc) => Some(Value::Object(doc.0.clone())),
            None => s.schema().map(|x| x.document().clone()),
        },
        extra: spec.extra.clone().map(|e| e.0).unwrap_or_default(),
        layout: Layout::from_keys(&spec.key_order),
    })
}

fn output_format(f: ResultFormat) -> OutputFormat {
    match f {
        ResultFormat::Text => OutputFormat::Text,
        ResultFormat::Json => OutputFormat::Json,
        ResultFormat::StreamJson => OutputFormat::StreamJson,
    }
}

/// `{"event":"command_result","command":{"name":…,"data":…}}`, in any output format.
fn write_command_result(s: &mut Session, spec: &CommandResultSpec) {
    let mut command = Map::new();
    command.insert("name".into(), Value::from(spec.name.clone()));
    if let Some(data) = &spec.data {
        command.insert("data".into(), Value::Object(data.0.clone()));
    }
    let event = StreamEvent::Other(
        [
            ("event".to_string(), Value::from("command_result")),
            ("command".to_string(), Value::Object(command)),
        ]
        .into_iter()
        .collect(),
    );
    s.out().stdout(event.to_line().as_bytes());
}

fn step_error(e: &StepErrorSpec) -> StepError {
    StepError {
        kind: e.kind.clone(),
        message: e.message.clone(),
        extra: Default::default(),
    }
}

/// A `step_update` from a script; `late_index` is the default index of a late step.
fn build_step(
    s: &mut Session,
    spec: &StepSpec,
    late_index: Option<u64>,
) -> Result<StepUpdate, FakeError> {
    // A step that names its conversation does not make the session pick one.
    let id = match &spec.conversation_id {
        Some(id) => id.clone(),
        None => s.conversation_id()?,
    };
    let index = match (spec.step_index, spec.same_index, late_index) {
        (Some(i), _, _) => i,
        (None, Some(true), _) => match s.last_step_index() {
            Some(i) => i,
            None => s.next_step_index()?,
        },
        (None, _, Some(i)) => i,
        (None, _, None) => s.next_step_index()?,
    };
    let state = StepState::parse(spec.state.as_deref().unwrap_or("DONE"));
    let kind = StepType::parse(spec.step_type.as_deref().unwrap_or("agent_response"));
    let mut step = StepUpdate::new(id, index, state, kind.clone());
    step.text_delta = spec.text_delta.clone();
    step.duration_seconds = spec.duration_seconds;
    step.usage = spec
        .usage
        .as_ref()
        .map(|u| resolve_usage(u, crate::model::usage_figures::TEXT_USAGE));
    let error = spec.error.as_ref().map(step_error);
    // The DONE line of a step (`same_index`) takes the tool of its ACTIVE line.
    let continued = match spec.same_index {
        Some(true) => s.last_step().and_then(|l| l.tool_info.clone()),
        _ => None,
    };
    if spec.tool_name.is_some() || kind == StepType::Tool {
        let name = spec
            .tool_name
            .clone()
            .or_else(|| continued.as_ref().map(|t| t.name.clone()))
            .unwrap_or_else(|| "run_command".into());
        step.tool_name = Some(name.clone());
        step.tool_info = Some(ToolInfo {
            name,
            parameters: spec
                .parameters
                .clone()
                .or_else(|| continued.as_ref().map(|t| t.parameters.clone()))
                .unwrap_or_else(|| serde_json::json!({})),
            output: spec.output.clone(),
            error,
            extra: Default::default(),
        });
    } else {
        step.error = error;
    }
    if spec.tool_info == Some(false) {
        step.tool_info = None;
    }
    if let Some(e) = &spec.step_error {
        step.error = Some(step_error(e));
    }
    step.extra = spec.extra.clone().map(|e| e.0).unwrap_or_default();
    step.layout = Layout::from_keys(&spec.key_order);
    Ok(step)
}
