//! The model's decisions in a capture, and nothing of agy's: per turn, the model's
//! responses (whether text streamed in chunks or arrived whole, with the prose replaced
//! by a placeholder), the tools it called with their arguments, the subagents it
//! started, and that a tool failed (not its words). A fidelity run gives these to
//! fake-agy as the script's `[[model]]` layer, so what is compared is how fake-agy
//! renders them as agy (docs/fidelity.md, "Model decisions and agy's rendering").
//!
//! What is left out on purpose, because agy decides it: step states, tool_info keys,
//! whether a tool's output shows, agy's own denials (a tool error in agy's words of a
//! permission check), the wording of any tool error, the `system_message` of a
//! subagent's report, `finish` (agy's `--json-schema` answer), the result and
//! everything on stderr. A host hook's deny is the host's: its answer is given as the
//! call's failure, agy's wording around it is not.

use agy_protocol::capture::CaptureKind;
use agy_protocol::script::{ModelCall, ModelResponse, ModelTurn, SUBAGENT_TOOL};
use serde_json::{Map, Value};

/// The placeholder for the model's prose (its words are not agy's behaviour).
const PROSE: &str = "text";

/// The placeholder for a tool's own error message.
const TOOL_ERROR: &str = "the tool failed";

/// How agy words its own permission denial of a call (its check per `--mode` and the
/// settings' `toolPermission`), as the corpus shows it: the message starts so
/// (`pi-1.1.17-denied-turn`, `jd-1.2.7-write-denied`; 1.1.13:
/// `wo-1.1.13-denied-command-steps`). Any other tool error, even one that mentions
/// permissions (`kp-1.1.27-view-file-error`: a missing file), is a failure of the call.
const AGY_DENIALS: &[&str] = &[
    "permission check failed",
    "User denied permission to run command:",
];

/// How agy words a host hook's deny: this prefix, then the hook's own answer
/// (`gb-1.1.18-hook-denied`).
const HOOK_DENIAL: &str = "tool call denied by pre-tool hook: ";

/// What the model's side of a tool ERROR step is: `None` for agy's own denial, the
/// hook's answer for a hook's deny, the placeholder for any other failure.
fn failure_of(message: &str) -> Option<String> {
    if AGY_DENIALS.iter().any(|p| message.starts_with(p)) {
        return None;
    }
    match message.strip_prefix(HOOK_DENIAL) {
        Some(answer) => Some(answer.to_string()),
        None => Some(TOOL_ERROR.to_string()),
    }
}

/// The model's decisions per turn in `stdout` of a capture of `kind`; empty when the
/// record shows none (probes, or nothing recorded). With `interrupted` (the record
/// says the run got a signal), a tool step left ACTIVE ran past it.
pub fn model_decisions(kind: CaptureKind, stdout: &[u8], interrupted: bool) -> Vec<ModelTurn> {
    match kind {
        CaptureKind::StreamJson | CaptureKind::Persistent => {
            let mut turns = stream_decisions(stdout);
            if !interrupted {
                for call in turns
                    .iter_mut()
                    .flat_map(|t| t.responses.iter_mut())
                    .flat_map(|r| r.calls.iter_mut())
                {
                    call.unfinished = false;
                }
            }
            turns
        }
        CaptureKind::PrintJson => envelope_decisions(stdout),
        CaptureKind::PrintText => {
            let text = String::from_utf8_lossy(stdout);
            if text.trim().is_empty() {
                Vec::new()
            } else {
                vec![answer_turn(&text)]
            }
        }
        _ => Vec::new(),
    }
}

/// The model's prose as a placeholder: whitespace kept as is (how the answer ended is
/// how the tokens streamed), words replaced.
fn prose(text: &str) -> String {
    if text.trim().is_empty() {
        return text.to_string();
    }
    let tail = &text[text.trim_end().len()..];
    format!("{PROSE}{tail}")
}

fn answer_turn(text: &str) -> ModelTurn {
    ModelTurn {
        responses: vec![ModelResponse {
            text: prose(text),
            ..ModelResponse::default()
        }],
    }
}

/// A `--output-format json` envelope: its answer, and the gated call a denial names
/// (the model asked for the tool; agy denied it).
fn envelope_decisions(stdout: &[u8]) -> Vec<ModelTurn> {
    let Some(env) = json_lines(stdout)
        .into_iter()
        .find(|v| v.get("status").is_some())
    else {
        return Vec::new();
    };
    let response = env.get("response").and_then(Value::as_str).unwrap_or("");
    let calls: Vec<ModelCall> = env
        .get("denied_actions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|a| a.get("action").and_then(Value::as_str))
        .map(|action| ModelCall {
            tool: gated_tool(action).into(),
            parameters: Value::Object(Map::new()),
            fails: None,
            quiet: false,
            unfinished: false,
        })
        .collect();
    if response.is_empty() && calls.is_empty() {
        return Vec::new();
    }
    let mut turn = answer_turn(response);
    if !calls.is_empty() {
        turn.responses[0].calls = calls;
    }
    vec![turn]
}

/// The tool behind a denied action.
fn gated_tool(action: &str) -> &'static str {
    match action {
        "mcp" => "call_mcp_tool",
        "file" | "write_file" => "write_to_file",
        _ => "run_command",
    }
}

/// Stream-json events: one decided turn per `result` whose turn had model steps.
fn stream_decisions(stdout: &[u8]) -> Vec<ModelTurn> {
    let mut turns = Vec::new();
    let mut turn = TurnReader::default();
    for event in json_lines(stdout) {
        match event.get("event").and_then(Value::as_str) {
            Some("step_update") => {
                if let Some(step) = event.get("step_update") {
                    turn.step(step);
                }
            }
            Some("result") => {
                if let Some(t) = std::mem::take(&mut turn).finish() {
                    turns.push(t);
                }
            }
            _ => {}
        }
    }
    turns.extend(turn.finish());
    turns
}

/// One turn's model steps as they are read.
#[derive(Default)]
struct TurnReader {
    responses: Vec<ModelResponse>,
    streamed: String,
    seen: bool,
}

impl TurnReader {
    fn step(&mut self, step: &Value) {
        let text = |k: &str| step.get(k).and_then(Value::as_str);
        let state = text("state").unwrap_or("");
        match text("step_type").unwrap_or("") {
            "agent_response" if state == "ACTIVE" => {
                self.streamed.push_str(text("text_delta").unwrap_or(""));
            }
            "agent_response" => {
                let streamed = std::mem::take(&mut self.streamed);
                self.responses.push(ModelResponse {
                    streamed: prose(&streamed),
                    text: prose(text("text_delta").unwrap_or("")),
                    calls: Vec::new(),
                });
                self.seen = true;
            }
            "tool" => self.tool(step, state),
            "subagent" if state == "ACTIVE" => {
                let entry = step
                    .pointer("/subagent_info/subagents/0")
                    .and_then(Value::as_object);
                let mut parameters = Map::new();
                for key in ["type_name", "role", "initial_prompt"] {
                    if let Some(v) = entry.and_then(|e| e.get(key)) {
                        parameters.insert(key.into(), without_nulls(v));
                    }
                }
                self.call(ModelCall {
                    tool: SUBAGENT_TOOL.into(),
                    parameters: Value::Object(parameters),
                    fails: None,
                    quiet: false,
                    unfinished: false,
                });
            }
            _ => {}
        }
    }

    fn tool(&mut self, step: &Value, state: &str) {
        let info = step.get("tool_info");
        let name = info
            .and_then(|i| i.get("name"))
            .or_else(|| step.get("tool_name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        // `finish` is how agy delivers a `--json-schema` answer, not a model's call.
        if name.is_empty() || name == "finish" {
            return;
        }
        match state {
            "ACTIVE" => self.call(ModelCall {
                tool: name.into(),
                parameters: info
                    .and_then(|i| i.get("parameters"))
                    .map(without_nulls)
                    .unwrap_or(Value::Object(Map::new())),
                fails: None,
                quiet: false,
                // Until its DONE or ERROR step shows.
                unfinished: true,
            }),
            // Whether the DONE step shows an output is agy's rendering: not passed on.
            "DONE" => {
                if let Some(call) = self.last_call() {
                    call.unfinished = false;
                }
            }
            "ERROR" => {
                let message = info
                    .and_then(|i| i.pointer("/error/message"))
                    .or_else(|| step.pointer("/error/message"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let Some(call) = self.last_call() else {
                    return;
                };
                call.unfinished = false;
                call.fails = failure_of(message);
            }
            _ => {}
        }
    }

    fn last_call(&mut self) -> Option<&mut ModelCall> {
        self.responses.last_mut().and_then(|r| r.calls.last_mut())
    }

    fn call(&mut self, call: ModelCall) {
        if self.responses.is_empty() {
            self.responses.push(ModelResponse::default());
        }
        if let Some(r) = self.responses.last_mut() {
            r.calls.push(call);
        }
        self.seen = true;
    }

    fn finish(mut self) -> Option<ModelTurn> {
        if !self.streamed.is_empty() {
            let streamed = std::mem::take(&mut self.streamed);
            self.responses.push(ModelResponse {
                streamed: prose(&streamed),
                ..ModelResponse::default()
            });
            self.seen = true;
        }
        self.seen.then_some(ModelTurn {
            responses: self.responses,
        })
    }
}

/// `v` without `null` members (the script is TOML, which has no null; an argument the
/// model left null is an argument it did not give).
fn without_nulls(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(_, x)| !x.is_null())
                .map(|(k, x)| (k.clone(), without_nulls(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(
            a.iter()
                .filter(|x| !x.is_null())
                .map(without_nulls)
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The JSON objects among `bytes`' lines (other lines are skipped).
fn json_lines(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|b| *b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter(Value::is_object)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(events: &[Value]) -> Vec<u8> {
        events
            .iter()
            .map(|e| format!("{e}\n"))
            .collect::<String>()
            .into_bytes()
    }

    fn step(v: Value) -> Value {
        serde_json::json!({ "event": "step_update", "step_update": v })
    }

    #[test]
    fn a_denied_write_gives_the_call_and_not_the_denial() {
        let out = lines(&[
            serde_json::json!({"event": "init", "init": {}}),
            step(serde_json::json!({"step_index": 0, "state": "DONE", "step_type": "user_input"})),
            step(
                serde_json::json!({"step_index": 1, "state": "DONE", "step_type": "agent_response"}),
            ),
            step(
                serde_json::json!({"step_index": 2, "state": "ACTIVE", "step_type": "tool", "tool_info": {"name": "write_to_file", "parameters": {"TargetFile": "/w/a"}}}),
            ),
            step(
                serde_json::json!({"step_index": 2, "state": "ERROR", "step_type": "tool", "tool_info": {"name": "write_to_file", "parameters": {}, "error": {"type": "TOOL_ERROR", "message": "permission check failed for write_file"}}}),
            ),
            serde_json::json!({"event": "result", "result": {"status": "SUCCESS"}}),
        ]);
        let turns = model_decisions(CaptureKind::Persistent, &out, false);
        assert_eq!(turns.len(), 1);
        let calls = &turns[0].responses[0].calls;
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].tool, "write_to_file");
        assert_eq!(calls[0].parameters["TargetFile"], "/w/a");
        assert_eq!(
            calls[0].fails, None,
            "a permission denial is agy's, not the tool's"
        );
    }

    #[test]
    fn a_tool_failure_streamed_answer_and_subagent_are_the_model_and_world() {
        let out = lines(&[
            step(
                serde_json::json!({"step_index": 1, "state": "DONE", "step_type": "agent_response"}),
            ),
            step(
                serde_json::json!({"step_index": 2, "state": "ACTIVE", "step_type": "subagent", "subagent_info": {"subagents": [{"type_name": "research", "role": "R", "initial_prompt": "p"}]}}),
            ),
            step(
                serde_json::json!({"step_index": 3, "state": "ACTIVE", "step_type": "tool", "tool_info": {"name": "generate_image", "parameters": {}}}),
            ),
            step(
                serde_json::json!({"step_index": 3, "state": "ERROR", "step_type": "tool", "tool_info": {"name": "generate_image", "error": {"message": "429 Too Many Requests"}}}),
            ),
            step(
                serde_json::json!({"step_index": 4, "state": "ACTIVE", "step_type": "agent_response", "text_delta": "secret words"}),
            ),
            step(
                serde_json::json!({"step_index": 4, "state": "DONE", "step_type": "agent_response", "text_delta": "\n"}),
            ),
            serde_json::json!({"event": "result", "result": {"status": "SUCCESS"}}),
        ]);
        let turns = model_decisions(CaptureKind::StreamJson, &out, false);
        let r = &turns[0].responses;
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].calls[0].tool, SUBAGENT_TOOL);
        assert_eq!(r[0].calls[0].parameters["type_name"], "research");
        assert_eq!(r[0].calls[1].fails.as_deref(), Some(TOOL_ERROR));
        assert_eq!((r[1].streamed.as_str(), r[1].text.as_str()), ("text", "\n"));
    }

    #[test]
    fn a_turn_without_model_steps_decides_nothing() {
        let out = lines(&[
            step(serde_json::json!({"step_index": 0, "state": "DONE", "step_type": "user_input"})),
            serde_json::json!({"event": "result", "result": {"status": "ERROR"}}),
        ]);
        assert!(model_decisions(CaptureKind::Persistent, &out, false).is_empty());
        assert!(model_decisions(CaptureKind::Version, b"1.3.1\n", false).is_empty());
    }

    #[test]
    fn only_agys_own_denial_wording_is_taken_as_agys_denial() {
        assert_eq!(
            failure_of("permission check failed for command \"ls\""),
            None
        );
        // A failure that mentions permissions is still the call's failure.
        assert_eq!(
            failure_of("declaring permissions: cortex tool view_file: convert tool call for permissions: model output error: failed to read file").as_deref(),
            Some(TOOL_ERROR)
        );
        assert_eq!(
            failure_of("tool call denied by pre-tool hook: gate0: tool not in allowed set")
                .as_deref(),
            Some("gate0: tool not in allowed set")
        );
    }

    #[test]
    fn whether_a_tool_showed_output_is_not_passed_on() {
        let out = lines(&[
            step(
                serde_json::json!({"step_index": 2, "state": "ACTIVE", "step_type": "tool", "tool_info": {"name": "search_web", "parameters": {}}}),
            ),
            step(
                serde_json::json!({"step_index": 2, "state": "DONE", "step_type": "tool", "tool_info": {"name": "search_web", "parameters": {}}}),
            ),
            serde_json::json!({"event": "result", "result": {"status": "SUCCESS"}}),
        ]);
        let turns = model_decisions(CaptureKind::Persistent, &out, false);
        assert!(!turns[0].responses[0].calls[0].quiet);
    }

    #[test]
    fn a_json_denial_names_the_gated_call() {
        let out = br#"{"status":"SUCCESS","response":"","denied_actions":[{"action":"command","display_name":"RunCommand"}]}"#;
        let turns = model_decisions(CaptureKind::PrintJson, out, false);
        assert_eq!(turns[0].responses[0].calls[0].tool, "run_command");
    }
}
