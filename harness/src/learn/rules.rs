//! The learning rules: what one recorded invocation shows about each calibration field
//! (docs/harness.md, "Learning a calibration", lists them with the fields they set).
//!
//! - `agy --version`: `calibration.agy`, the first line of stdout when it is a version.
//! - `agy models` (text): `models.model` (one `id<TAB>label` line per model, in order)
//!   and `models.listing`.
//! - an `init` event on stdout: `init.tools`, in order.
//! - a json envelope or a stream-json `result` event: `usage.keys`, in order.
//! - a run with `--print-timeout` that timed out (a `print timeout` stderr line, or a
//!   result error naming a timeout): `print_timeout.status`, `.exit_code`, `.error`,
//!   and `.notice` (the duration as `{duration}`) only from a run that shows one: a
//!   recording without stderr does not show that agy wrote none.
//! - a stream-json run of a new conversation: `turns.first_after_user_input` and
//!   `turns.first_usage_checkpoint` (first_turn.rs says when).
//! - a persistent run whose stdin line is a slash command: `persistent.slash_command`
//!   (`fatal` when the result is `ERROR` and the exit is not 0, else `text`) and
//!   `persistent.slash_exit_code`.

use agy_protocol::command_line::parse_args;
use agy_protocol::trace::TracedInvocation;
use serde_json::Value as Json;
use toml::Value;

/// Every `(field, value)` one invocation shows.
pub fn observe_invocation(inv: &TracedInvocation) -> Vec<(&'static str, Value)> {
    let args = inv.start.argv.get(1..).unwrap_or_default();
    let stdout = String::from_utf8_lossy(&inv.stdout()).into_owned();
    let stderr = String::from_utf8_lossy(&inv.stderr()).into_owned();
    let exit = inv.exit().and_then(|x| x.code);
    let mut out = Vec::new();
    if args == ["--version"] && exit == Some(0) {
        let first = stdout.lines().next().unwrap_or_default().trim();
        if first.parse::<agy_protocol::AgyVersion>().is_ok() {
            out.push(("calibration.agy", Value::String(first.to_string())));
        }
    }
    if args == ["models"] && exit == Some(0) {
        out.extend(models(&stdout));
    }
    let lines: Vec<Json> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Json>(l).ok())
        .collect();
    out.extend(init_tools(&lines));
    if let Ok(parsed) = parse_args(args) {
        out.extend(super::first_turn::first_turn(&parsed, &lines));
    }
    out.extend(usage_keys(&lines));
    let result = result_of(&lines);
    out.extend(print_timeout(args, &stderr, result, exit));
    out.extend(slash_on_stdin(inv, result, exit));
    out
}

/// `agy models` text: `id<TAB>label` per line.
fn models(stdout: &str) -> Vec<(&'static str, Value)> {
    let mut list = Vec::new();
    for line in stdout.lines().filter(|l| !l.trim().is_empty()) {
        let Some((id, label)) = line.split_once('\t') else {
            return Vec::new();
        };
        let mut entry = toml::Table::new();
        entry.insert("id".into(), Value::String(id.to_string()));
        entry.insert("label".into(), Value::String(label.to_string()));
        list.push(Value::Table(entry));
    }
    if list.is_empty() {
        return Vec::new();
    }
    vec![
        ("models.model", Value::Array(list)),
        ("models.listing", Value::String("{id}\t{label}".into())),
    ]
}

fn init_tools(lines: &[Json]) -> Vec<(&'static str, Value)> {
    let tools = lines
        .iter()
        .filter(|l| l.get("event").and_then(Json::as_str) == Some("init"))
        .find_map(|l| l.pointer("/init/tools").and_then(Json::as_array));
    let Some(tools) = tools else {
        return Vec::new();
    };
    let names: Option<Vec<Value>> = tools
        .iter()
        .map(|t| t.as_str().map(|s| Value::String(s.to_string())))
        .collect();
    names.map_or_else(Vec::new, |n| vec![("init.tools", Value::Array(n))])
}

/// The run's result: a json envelope (a line with `status` and `usage`) or the
/// `result` of a stream-json `result` event.
fn result_of(lines: &[Json]) -> Option<&Json> {
    lines.iter().find_map(|l| {
        if l.get("event").and_then(Json::as_str) == Some("result") {
            return l.get("result");
        }
        (l.get("event").is_none() && l.get("status").is_some() && l.get("usage").is_some())
            .then_some(l)
    })
}

fn usage_keys(lines: &[Json]) -> Vec<(&'static str, Value)> {
    let Some(usage) = result_of(lines)
        .and_then(|r| r.get("usage"))
        .and_then(Json::as_object)
    else {
        return Vec::new();
    };
    let keys = usage.keys().map(|k| Value::String(k.clone())).collect();
    vec![("usage.keys", Value::Array(keys))]
}

fn print_timeout(
    args: &[String],
    stderr: &str,
    result: Option<&Json>,
    exit: Option<i32>,
) -> Vec<(&'static str, Value)> {
    let Ok(parsed) = parse_args(args) else {
        return Vec::new();
    };
    let (Some(duration), Some(result), Some(code)) = (parsed.print_timeout, result, exit) else {
        return Vec::new();
    };
    let notice = stderr.lines().find(|l| l.contains("print timeout"));
    let error = result
        .get("error")
        .and_then(Json::as_str)
        .unwrap_or_default();
    if notice.is_none() && !error.contains("timeout") {
        return Vec::new();
    }
    let status = result
        .get("status")
        .and_then(Json::as_str)
        .unwrap_or_default();
    let mut out = vec![
        ("print_timeout.status", Value::String(status.to_string())),
        ("print_timeout.exit_code", Value::Integer(code.into())),
    ];
    // Only a notice seen is learned: a recording without one may not hold stderr at all.
    if let Some(n) = notice {
        let text = n.replace(&duration.go_string(), "{duration}");
        out.push(("print_timeout.notice", Value::String(text)));
    }
    if status == "ERROR" {
        out.push(("print_timeout.error", Value::String(error.to_string())));
    }
    out
}

fn slash_on_stdin(
    inv: &TracedInvocation,
    result: Option<&Json>,
    exit: Option<i32>,
) -> Vec<(&'static str, Value)> {
    let first_stdin = inv.events.iter().find_map(|e| match &e.event {
        agy_protocol::trace::TraceEvent::Stdin(s) => Some(s.clone()),
        _ => None,
    });
    let slash = first_stdin
        .and_then(|s| agy_protocol::stream::parse_input_line(s.trim_end()).ok())
        .is_some_and(|line| line.message.content.text().trim_start().starts_with('/'));
    let (true, Some(result), Some(code)) = (slash, result, exit) else {
        return Vec::new();
    };
    let fatal = result.get("status").and_then(Json::as_str) == Some("ERROR") && code != 0;
    let mut out = vec![(
        "persistent.slash_command",
        Value::String(if fatal { "fatal" } else { "text" }.into()),
    )];
    if fatal {
        out.push(("persistent.slash_exit_code", Value::Integer(code.into())));
    }
    out
}
