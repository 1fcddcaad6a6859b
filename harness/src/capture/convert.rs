//! A capture as an agy script: its stdout lines become `init`, `step_update`,
//! `command_result` and `envelope` steps with every field given, its stderr `stderr`
//! steps, its `--log-file` a `log` step, its stdin lines `read_line` steps, its exit
//! code an `exit` step. fake-agy acting out the script with the capture's argv and stdin
//! writes the capture's bytes. A command line agy's flag parser answers itself (`-h`, an
//! undefined flag) gets a rule that names it, so the script, not the parser, answers.

use agy_protocol::capture::{read_transformed, Capture};
use agy_protocol::command_line::{
    flag_error_token, invocation_kind, parse_args, InvocationKind, OutputFormat,
};
use agy_protocol::layout::Layout;
use agy_protocol::script::{
    CommandResultSpec, EnvelopeSpec, Flag, InitSpec, InvocationMatch, InvocationRule, JsonObject,
    ResultFormat, RunMode, Script, Step, StepErrorSpec, StepSpec, True, UsageSpec,
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
    // The bytes agy wrote: the stored file with the capture's declared transforms.
    let read = |role: &str, f: &Option<String>| match f {
        Some(rel) => {
            read_transformed(dir, capture, role, rel).map_err(|what| ConvertError { what })
        }
        None => Ok(Vec::new()),
    };
    let mut steps: Vec<Step> = capture
        .stdin_lines()
        .iter()
        .map(|_| Step::ReadLine(True))
        .collect();
    let log = read("log", &capture.files.log)?;
    if !log.is_empty() {
        match String::from_utf8(log) {
            Ok(text) => steps.push(Step::Log(text)),
            Err(_) => return fail("a --log-file that is not UTF-8 (the `log` step writes text)"),
        }
    }
    let implied = capture.argv().and_then(implied_format);
    for (n, line) in split_lines(&read("stdout", &capture.files.stdout)?)
        .into_iter()
        .enumerate()
    {
        let step = typed_stdout(&line).map(|(mut step, form)| {
            if let (Step::Envelope(spec), Some(form)) = (&mut step, form) {
                spec.format = (implied != Some(form)).then_some(form);
            }
            step
        });
        steps.push(step.map_err(|e| ConvertError {
            what: format!("stdout line {}: {}", n + 1, e.what),
        })?);
    }
    for line in split_lines(&read("stderr", &capture.files.stderr)?) {
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
            when: capture.argv().map(rule_match).transpose()?.flatten(),
            steps,
            ..InvocationRule::default()
        }],
        ..Script::default()
    })
}

/// The form of a result the capture's command line asks for; `None` when the argv is
/// unknown or agy does not run it, so every result states its own.
fn implied_format(argv: &[String]) -> Option<ResultFormat> {
    let args = parse_args(argv.get(1..).unwrap_or_default()).ok()?;
    Some(match args.output_format().ok()? {
        OutputFormat::Text => ResultFormat::Text,
        OutputFormat::Json => ResultFormat::Json,
        OutputFormat::StreamJson => ResultFormat::StreamJson,
    })
}

/// Which invocations the rule serves: every turn (no `when`), a probe by run mode or by
/// its `--version` token, and a command line the flag parser answers by the token the
/// parser stops at.
fn rule_match(argv: &[String]) -> Result<Option<InvocationMatch>, ConvertError> {
    let rest = argv.get(1..).unwrap_or_default();
    let args = match parse_args(rest) {
        Ok(args) => args,
        Err(_) => return flag_error_match(rest).map(Some),
    };
    if invocation_kind(argv) == InvocationKind::Turn {
        return Ok(None);
    }
    if args.run_mode() == RunMode::Command {
        return Ok(Some(InvocationMatch {
            mode: Some(RunMode::Command),
            ..InvocationMatch::default()
        }));
    }
    let token = argv
        .iter()
        .skip(1)
        .find(|a| a.trim_start_matches('-').starts_with("version"));
    Ok(token.map(|t| InvocationMatch {
        argv_has: vec![t.clone()],
        ..InvocationMatch::default()
    }))
}

/// `argv_has` naming the token at which the flag parser stops.
fn flag_error_match(rest: &[String]) -> Result<InvocationMatch, ConvertError> {
    match flag_error_token(rest) {
        Some(token) if !token.contains(' ') => Ok(InvocationMatch {
            argv_has: vec![token.clone()],
            ..InvocationMatch::default()
        }),
        _ => fail("a command line the flag parser stops at a token an `argv_has` item cannot name"),
    }
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
    typed_stdout(line).map(|(step, _)| step)
}

/// [`stdout_step`], with the form of the line when it is a result.
fn typed_stdout(line: &[u8]) -> Result<(Step, Option<ResultFormat>), ConvertError> {
    let plain = || Ok((text_step(line.to_vec(), true), None));
    let Ok(text) = std::str::from_utf8(line) else {
        return plain();
    };
    let Some(json) = text.strip_suffix('\n') else {
        return plain();
    };
    let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(json) else {
        return plain();
    };
    if !obj.contains_key("event") {
        let env = Envelope::parse(json).map_err(|e| ConvertError {
            what: e.to_string(),
        })?;
        let spec = envelope_spec(env, &Value::Object(obj))?;
        return Ok((Step::Envelope(spec), Some(ResultFormat::Json)));
    }
    let payload = |key: &str| obj.get(key).cloned().unwrap_or(Value::Null);
    let event = StreamEvent::parse(json).map_err(|e| ConvertError {
        what: e.to_string(),
    })?;
    Ok(match event {
        StreamEvent::Init {
            conversation_id,
            init,
        } => (init_step(conversation_id, init, &payload("init"))?, None),
        StreamEvent::StepUpdate(s) => {
            let spec = step_spec(s, &payload("step_update"))?;
            (Step::StepUpdate(spec), None)
        }
        StreamEvent::Result(env) => {
            let spec = envelope_spec(env, &payload("result"))?;
            (Step::Envelope(spec), Some(ResultFormat::StreamJson))
        }
        StreamEvent::Other(m) => (command_result(m)?, None),
    })
}

/// `{"event":"command_result","command":{"name":…,"data":{…}}}`.
fn command_result(m: Map<String, Value>) -> Result<Step, ConvertError> {
    let keys: Vec<&str> = m.keys().map(String::as_str).collect();
    let command = match (m.get("event"), keys.as_slice(), m.get("command")) {
        (Some(Value::String(e)), ["event", "command"], Some(Value::Object(c)))
            if e == "command_result" =>
        {
            c
        }
        _ => return fail("an event the script format has no step for"),
    };
    let fields: Vec<&str> = command.keys().map(String::as_str).collect();
    match (fields.as_slice(), command.get("name"), command.get("data")) {
        (["name"], Some(Value::String(name)), None) => Ok(Step::CommandResult(CommandResultSpec {
            name: name.clone(),
            data: None,
        })),
        (["name", "data"], Some(Value::String(name)), Some(Value::Object(data))) => {
            Ok(Step::CommandResult(CommandResultSpec {
                name: name.clone(),
                data: Some(JsonObject(data.clone())),
            }))
        }
        _ => fail("a `command_result` whose command is not `{name, data}` with an object `data`"),
    }
}

/// The top-level key order that turns `rendered` (the payload as fake-agy builds it from
/// the step) into `original`; empty when the orders agree.
fn key_order(original: &Value, rendered: Value) -> Result<Vec<String>, ConvertError> {
    if Layout::capture(original, &rendered).is_canonical() {
        return Ok(Vec::new());
    }
    Layout::top_level_keys(original, &rendered).ok_or_else(|| ConvertError {
        what: "keys of a nested object in an order the script format cannot give".into(),
    })
}

fn json_object(v: Option<Value>, what: &str) -> Result<Option<JsonObject>, ConvertError> {
    match v {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some(JsonObject(m))),
        Some(_) => fail(format!("{what} that is not a JSON object")),
    }
}

fn init_step(conversation_id: String, init: Init, original: &Value) -> Result<Step, ConvertError> {
    let rendered = serde_json::to_value(&init).unwrap_or(Value::Null);
    Ok(Step::Init(Flag(InitSpec {
        key_order: key_order(original, rendered)?,
        model: init.model,
        cwd: Some(init.cwd),
        tools: Some(init.tools),
        permission_mode: Some(init.permission_mode),
        conversation_id: Some(conversation_id),
        json_schema: json_object(init.json_schema, "an init `json_schema`")?,
        extra: extra(init.extra),
    })))
}

fn step_spec(s: StepUpdate, original: &Value) -> Result<StepSpec, ConvertError> {
    let rendered = serde_json::to_value(&s).unwrap_or(Value::Null);
    let mut spec = StepSpec {
        key_order: key_order(original, rendered)?,
        step_type: Some(s.step_type.as_str().to_string()),
        state: Some(s.state.as_str().to_string()),
        step_index: Some(s.step_index),
        text_delta: s.text_delta,
        tool_name: s.tool_name.clone(),
        duration_seconds: s.duration_seconds,
        usage: s.usage.map(usage_spec),
        conversation_id: Some(s.conversation_id),
        extra: extra(s.extra),
        ..StepSpec::default()
    };
    let step_error = s.error.map(error_spec).transpose()?;
    match (s.tool_info, s.tool_name) {
        (Some(info), Some(name)) if info.name == name && info.extra.is_empty() => {
            check_toml(&info.parameters, "tool parameters")?;
            spec.parameters = Some(info.parameters);
            spec.output = info.output;
            spec.error = info.error.map(error_spec).transpose()?;
            // agy 1.1.17 put a denied tool's error on the step, beside `tool_info`.
            spec.step_error = step_error;
        }
        (None, Some(_)) => {
            spec.tool_info = Some(false);
            spec.step_error = step_error;
        }
        (None, None) if s.step_type.as_str() != "tool" => spec.error = step_error,
        _ => {
            return fail(
                "a tool_info the script format cannot give (its own name or keys, or no tool_name)",
            )
        }
    }
    Ok(spec)
}

fn envelope_spec(mut env: Envelope, original: &Value) -> Result<EnvelopeSpec, ConvertError> {
    if env.denied_actions.iter().any(|d| !d.extra.is_empty()) {
        return fail("a denied action with keys the script format does not name");
    }
    // A payload TOML cannot hold in order travels in `extra` (JSON text), put back in
    // its place by `key_order`.
    let mut moved = Map::new();
    if let Some(c) = env.command.take_if(|c| check_toml(c, "").is_err()) {
        moved.insert("command".to_string(), c);
    }
    if let Some(v) = env
        .structured_output
        .take_if(|v| check_toml(v, "").is_err())
    {
        moved.insert("structured_output".to_string(), v);
    }
    moved.append(&mut env.extra);
    env.extra = moved;
    let order = key_order(original, serde_json::to_value(&env).unwrap_or(Value::Null))?;
    Ok(EnvelopeSpec {
        conversation_id: Some(env.conversation_id),
        status: Some(env.status),
        response: Some(env.response),
        error: Some(env.error),
        duration_seconds: Some(env.duration_seconds),
        num_turns: Some(env.num_turns),
        usage: Some(usage_spec(env.usage)),
        denied_actions: env.denied_actions,
        command: env.command,
        structured_output: env.structured_output,
        json_schema: json_object(env.json_schema, "a result `json_schema`")?,
        extra: extra(env.extra),
        format: None,
        key_order: order,
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

fn usage_spec(u: Usage) -> UsageSpec {
    UsageSpec::Counts {
        input: u.input_tokens,
        output: u.output_tokens,
        thinking: u.thinking_tokens,
        cache_read: u.cache_read_tokens,
        total: Some(u.total_tokens),
        // agy 1.0.16 printed no `cache_read_tokens`.
        cache_read_key: u.cache_read_absent.then_some(false),
    }
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
