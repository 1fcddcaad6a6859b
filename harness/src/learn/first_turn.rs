//! What a new conversation's first turn shows (`[turns]`): the steps agy adds right
//! after `user_input`, and whether a `checkpoint` with its own usage closes the turn.
//!
//! - `turns.first_after_user_input`: the `unknown` and `checkpoint` steps DONE right
//!   after the first `user_input`, each once, in order; not from a run with `--agent`
//!   (the default agent's step is absent there) nor one that resumes a conversation.
//! - `turns.first_usage_checkpoint`: `after-first-tool` when a `checkpoint` step of the
//!   first turn carries `usage`; `none` when the first turn reached a SUCCESS result
//!   without one (a turn cut short shows neither).

use agy_protocol::command_line::Args;
use serde_json::Value as Json;
use toml::Value;

/// The `[turns]` fields one stream-json run of a new conversation shows.
pub fn first_turn(args: &Args, lines: &[Json]) -> Vec<(&'static str, Value)> {
    if args.conversation.is_some() || args.continue_last {
        return Vec::new();
    }
    let turn = first_turn_steps(lines);
    let mut out = Vec::new();
    if args.agent.is_none() {
        out.extend(added_steps(&turn.steps));
    }
    let usage_checkpoint = turn.steps.iter().any(|s| {
        s.get("step_type").and_then(Json::as_str) == Some("checkpoint") && s.get("usage").is_some()
    });
    let learned = match (usage_checkpoint, turn.result_status.as_deref()) {
        (true, _) => Some("after-first-tool"),
        (false, Some("SUCCESS")) if !turn.steps.is_empty() => Some("none"),
        _ => None,
    };
    if let Some(v) = learned {
        out.push(("turns.first_usage_checkpoint", Value::String(v.into())));
    }
    out
}

/// The first turn of a stream-json stdout: its `step_update`s and its result's status.
struct FirstTurn<'a> {
    steps: Vec<&'a Json>,
    result_status: Option<String>,
}

fn first_turn_steps(lines: &[Json]) -> FirstTurn<'_> {
    let mut steps = Vec::new();
    for line in lines {
        match line.get("event").and_then(Json::as_str) {
            Some("step_update") => steps.extend(line.get("step_update")),
            Some("result") => {
                let status = line.pointer("/result/status").and_then(Json::as_str);
                return FirstTurn {
                    steps,
                    result_status: status.map(String::from),
                };
            }
            _ => {}
        }
    }
    FirstTurn {
        steps,
        result_status: None,
    }
}

/// The added steps right after the first `user_input`, when the run shows one.
fn added_steps(steps: &[&Json]) -> Vec<(&'static str, Value)> {
    let kind = |s: &Json| s.get("step_type").and_then(Json::as_str).map(String::from);
    let state = |s: &Json| s.get("state").and_then(Json::as_str).map(String::from);
    let Some(start) = steps
        .iter()
        .position(|s| kind(s).as_deref() == Some("user_input"))
    else {
        return Vec::new();
    };
    let mut added: Vec<Value> = Vec::new();
    let mut saw_next = false;
    for s in &steps[start + 1..] {
        saw_next = true;
        let k = kind(s).unwrap_or_default();
        if state(s).as_deref() != Some("DONE") || !matches!(k.as_str(), "unknown" | "checkpoint") {
            break;
        }
        if !added.iter().any(|a| a.as_str() == Some(k.as_str())) {
            added.push(Value::String(k));
        }
    }
    // A run that ends at `user_input` does not show what would have followed it.
    if !saw_next {
        return Vec::new();
    }
    vec![("turns.first_after_user_input", Value::Array(added))]
}
