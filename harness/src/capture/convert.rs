//! A capture as an agy script: its stdout lines become `init`, `step_update` and
//! `envelope` steps with every field given, its stderr `stderr` steps, its stdin lines
//! `read_line` steps, its exit code an `exit` step. fake-agy acting out the script with
//! the capture's argv and stdin writes the capture's bytes.

use agy_protocol::capture::{read_capture_file, Capture};
use agy_protocol::command_line::{invocation_kind, parse_args, InvocationKind};
use agy_protocol::script::{
    EnvelopeSpec, Flag, InitSpec, InvocationMatch, InvocationRule, JsonObject, RunMode, Script,
    Step, StepErrorSpec, StepSpec, True, UsageSpec,
};
use agy_protocol::stream::{Init, StepUpdate, StreamEvent};
use agy_protocol::{Envelope, Usage};
use serde_json::{Map, Value};
use std::path::Path;

/// Why a capture cannot be written as a script.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what}")]
pub struct ConvertError {
    /// What the script format cannot say, or which file could not be read.
    pub what: String,
}

fn fail<T>(what: impl Into<String>) -> Result<T, ConvertError> {
    Err(ConvertError { what: what.into() })
}

/// The script that replays `capture` (files relative to `dir`).
pub fn capture_to_script(dir: &Path, capture: &Capture) -> Result<Script, ConvertError> {
    let read = |f: &Option<String>| match f {
        Some(rel) => read_capture_file(dir, rel).map_err(|what| ConvertError { what }),
        None => Ok(Vec::new()),
    };
    let mut steps: Vec<Step> = capture
        .stdin_lines()
        .iter()
        .map(|_| Step::ReadLine(True))
        .collect();
    for (n, line) in split_lines(&read(&capture.files.stdout)?)
        .into_iter()
        .enumerate()
    {
        steps.push(stdout_step(&line).map_err(|e| ConvertError {
            what: format!("stdout line {}: {}", n + 1, e.what),
        })?);
    }
    for line in split_lines(&read(&capture.files.stderr)?) {
        if std::str::from_utf8(&line).is_err() {
            return fail("stderr bytes that are not UTF-8 (the script format has no stderr_hex)");
        }
        steps.push(text_step(line, false));
    }
    if let Some(code) = capture.exit.get() {
        steps.push(Step::Exit(*code));
    }
    Ok(Script {
        invocations: vec![InvocationRule {
            name: Some(capture.id.clone()),
            when: capture.argv().and_then(probe_match),
            steps,
            ..InvocationRule::default()
        }],
        ..Script::default()
    })
}

/// A recorded probe (`--version`, a subcommand, a slash command) is served only by a rule
/// that targets probes: by run mode, or by the `--version` token itself.
fn probe_match(argv: &[String]) -> Option<InvocationMatch> {
    if invocation_kind(argv) == InvocationKind::Turn {
        return None;
    }
    let args = parse_args(argv.get(1..).unwrap_or_default()).ok()?;
    if args.run_mode() == RunMode::Command {
        return Some(InvocationMatch {
            mode: Some(RunMode::Command),
            ..InvocationMatch::default()
        });
    }
    let token = argv
        .iter()
        .skip(1)
        .find(|a| a.trim_start_matches('-').starts_with("version"))?;
    Some(InvocationMatch {
        argv_has: vec![token.clone()],
        ..InvocationMatch::default()
    })
}

/// Lines with their `\n`; a last line without one stays as it is.
fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split_inclusive(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

/// A line as plain output: `stdout`/`stderr` for a text line, the raw forms for one
/// without its newline or that is not UTF-8.
fn text_step(line: Vec<u8>, stdout: bool) -> Step {
    match (String::from_utf8(line), stdout) {
        (Ok(t), true) => match t.strip_suffix('\n') {
            Some(body) if !body.ends_with('\r') => Step::Stdout(body.to_string()),
            _ => Step::StdoutRaw(t),
        },
        (Ok(t), false) => match t.strip_suffix('\n') {
            Some(body) if !body.ends_with('\r') => Step::Stderr(body.to_string()),
            _ => Step::StderrRaw(t),
        },
        (Err(e), true) => Step::StdoutHex(agy_protocol::script::HexBytes(e.into_bytes())),
        // Callers reject stderr that is not UTF-8 before this point.
        (Err(e), false) => Step::StderrRaw(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

/// A stdout line: a typed step when it is a stream-json event or an envelope that the
/// script format renders back byte for byte, plain output otherwise (model text).
pub(crate) fn stdout_step(line: &[u8]) -> Result<Step, ConvertError> {
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(_) => return Ok(text_step(line.to_vec(), true)),
    };
    let Some(json) = text.strip_suffix('\n') else {
        return Ok(text_step(line.to_vec(), true));
    };
    let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(json) else {
        return Ok(text_step(line.to_vec(), true));
    };
    let step = if obj.contains_key("event") {
        match StreamEvent::parse(json).map_err(|e| ConvertError {
            what: e.to_string(),
        })? {
            StreamEvent::Init {
                conversation_id,
                init,
            } => init_step(conversation_id, init)?,
            StreamEvent::StepUpdate(s) => Step::StepUpdate(step_spec(s)?),
            StreamEvent::Result(env) => Step::Envelope(envelope_spec(env)?),
            StreamEvent::Other(_) => {
                return fail("an event the script format has no step for (`command_result`)")
            }
        }
    } else {
        let env = Envelope::parse(json).map_err(|e| ConvertError {
            what: e.to_string(),
        })?;
        Step::Envelope(envelope_spec(env)?)
    };
    Ok(step)
}

fn init_step(conversation_id: String, init: Init) -> Result<Step, ConvertError> {
    if !init.layout.is_canonical() {
        return fail("the init keys are in an order the script format cannot give");
    }
    Ok(Step::Init(Flag(InitSpec {
        model: init.model,
        cwd: Some(init.cwd),
        tools: Some(init.tools),
        permission_mode: Some(init.permission_mode),
        conversation_id: Some(conversation_id),
        extra: extra(init.extra),
    })))
}

fn step_spec(s: StepUpdate) -> Result<StepSpec, ConvertError> {
    if !s.layout.is_canonical() {
        return fail("the step's keys are in an order the script format cannot give");
    }
    let mut spec = StepSpec {
        step_type: Some(s.step_type.as_str().to_string()),
        state: Some(s.state.as_str().to_string()),
        step_index: Some(s.step_index),
        text_delta: s.text_delta,
        tool_name: s.tool_name.clone(),
        duration_seconds: s.duration_seconds,
        usage: s.usage.map(usage_spec).transpose()?,
        conversation_id: Some(s.conversation_id),
        extra: extra(s.extra),
        ..StepSpec::default()
    };
    match (s.tool_info, s.tool_name) {
        (Some(info), Some(name)) if info.name == name && info.extra.is_empty() => {
            check_toml(&info.parameters, "tool parameters")?;
            spec.parameters = Some(info.parameters);
            spec.output = info.output;
            spec.error = info.error.map(error_spec).transpose()?;
            if s.error.is_some() {
                return fail("a tool step with both a step error and a tool error");
            }
        }
        (None, Some(_)) => spec.tool_info = Some(false),
        (None, None) if s.step_type.as_str() != "tool" => {
            spec.error = s.error.map(error_spec).transpose()?;
        }
        _ => {
            return fail(
                "a tool_info the script format cannot give (its own name or keys, or no tool_name)",
            )
        }
    }
    Ok(spec)
}

fn envelope_spec(env: Envelope) -> Result<EnvelopeSpec, ConvertError> {
    if !env.layout.is_canonical() {
        return fail("the envelope's keys are in an order the script format cannot give");
    }
    if env.denied_actions.iter().any(|d| !d.extra.is_empty()) {
        return fail("a denied action with keys the script format does not name");
    }
    // A payload TOML cannot hold in order travels in `extra`, whose keys follow the
    // named ones: where `command` stands anyway when `structured_output` is absent.
    let (command, extra_keys) = match env.command {
        Some(c) if check_toml(&c, "the command payload").is_err() => {
            let mut m = Map::new();
            m.insert("command".to_string(), c);
            m.extend(env.extra);
            (None, m)
        }
        other => (other, env.extra),
    };
    Ok(EnvelopeSpec {
        conversation_id: Some(env.conversation_id),
        status: Some(env.status),
        response: Some(env.response),
        error: Some(env.error),
        duration_seconds: Some(env.duration_seconds),
        num_turns: Some(env.num_turns),
        usage: Some(usage_spec(env.usage)?),
        denied_actions: env.denied_actions,
        command,
        // `json_schema` is echoed from the run's own `--json-schema`, as agy does.
        structured_output: env.structured_output,
        extra: extra(extra_keys),
    })
}

fn error_spec(e: agy_protocol::stream::StepError) -> Result<StepErrorSpec, ConvertError> {
    if !e.extra.is_empty() {
        return fail("an error object with keys the script format does not name");
    }
    Ok(StepErrorSpec {
        kind: e.kind,
        message: e.message,
    })
}

fn usage_spec(u: Usage) -> Result<UsageSpec, ConvertError> {
    if u.cache_read_absent {
        return fail(
            "a usage without `cache_read_tokens` (agy 1.0.16), which script usage always has",
        );
    }
    Ok(UsageSpec::Counts {
        input: u.input_tokens,
        output: u.output_tokens,
        thinking: u.thinking_tokens,
        cache_read: u.cache_read_tokens,
        total: Some(u.total_tokens),
    })
}

fn extra(m: Map<String, Value>) -> Option<JsonObject> {
    (!m.is_empty()).then_some(JsonObject(m))
}

/// TOML has no `null`, and its tables sort keys (Go sorts map keys too, so a map's
/// order survives; an object with unsorted keys does not).
fn check_toml(v: &Value, what: &str) -> Result<(), ConvertError> {
    match v {
        Value::Null => fail(format!("{what} hold a null, which TOML cannot write")),
        Value::Array(a) => a.iter().try_for_each(|x| check_toml(x, what)),
        Value::Object(m) => {
            let keys: Vec<&String> = m.keys().collect();
            if keys.windows(2).any(|w| w[0] > w[1]) {
                return fail(format!(
                    "{what} have keys out of sorted order, which TOML does not keep"
                ));
            }
            m.values().try_for_each(|x| check_toml(x, what))
        }
        _ => Ok(()),
    }
}
