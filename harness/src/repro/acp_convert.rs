//! An ACP transcript ([`crate::repro::acp_transcript`]) as a reproduction: one process per
//! agent process (a new `initialize` starts one), per prompt the steps fake-agy-acp
//! acts out (message and thought chunks, tool calls, permission requests, the
//! response, what came after it), a prompt left unanswered when the agent was
//! replaced as `crash = "kill"`, and per restore what `[acp.load]` / `[acp.resume]`
//! script: the replay's place, an error answer, late output. What the client did wrong
//! (a prompt sent again after a restore, `session/new` after a failed one) is left out:
//! the scenario's ops are what a user of the client asked for, and the oracle says what
//! the client must do.

use crate::profile::repro_kit::case::{Process, ReproCase, Restore, ScriptStep, Turn};
use crate::repro::acp_transcript::{Direction, Line, Message};
use crate::repro::build::BuildError;
use crate::repro::build::Built;
use agy_protocol::acp::script::StopReasonName;
use agy_protocol::driver::AcpPermission;
use serde::Deserialize;
use serde_json::Value as Json;
use toml::Value;

/// Where the next agent message belongs.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Between turns: nothing to script.
    Idle,
    /// Inside the prompt turn of this index (of the current process).
    Turn(usize),
    /// After that turn's response: late steps.
    AfterResponse(usize),
    /// Between a restore request and its response.
    Restoring,
    /// After the restore response; `true` while the last replayed user chunk still
    /// waits for its one agent chunk.
    Restored(bool),
    /// The answer to a prompt the client sent again: not scripted.
    Resent,
}

struct Conv {
    processes: Vec<Process>,
    notes: Vec<String>,
    permission: Option<AcpPermission>,
    phase: Phase,
    /// The user's prompts so far, in order.
    prompts: Vec<String>,
    /// The prompt whose answer never came when its agent was replaced.
    pending: Option<String>,
}

/// Builds the reproduction of a transcript; `Err` says what it lacks.
pub fn acp_case(lines: &[Line]) -> Result<Built, BuildError> {
    let mut c = Conv {
        processes: Vec::new(),
        notes: Vec::new(),
        permission: None,
        phase: Phase::Idle,
        prompts: Vec::new(),
        pending: None,
    };
    for l in lines {
        c.line(l);
    }
    if let Phase::Turn(i) = c.phase {
        let line = lines.last().map_or(0, |l| l.line);
        c.note(
            line,
            "the transcript ends inside a turn: the agent hangs there",
        );
        c.step(i, ScriptStep::new("hang", Value::Boolean(true), 0));
    }
    if c.processes
        .iter()
        .all(|p| p.turns.is_empty() && p.restore.is_none())
    {
        return Err(BuildError::NoAcpTurn);
    }
    Ok(Built {
        case: ReproCase {
            profile: crate::profile::reproduced_as(crate::profile::AgyRun::AcpServer),
            version: None,
            processes: c.processes,
            permission: c.permission,
        },
        profile_reason: "the report is an ACP JSON-RPC transcript".into(),
        notes: c.notes,
    })
}

impl Conv {
    fn note(&mut self, line: usize, text: &str) {
        self.notes.push(format!("line {line}: {text}"));
    }

    fn current(&mut self) -> &mut Process {
        if self.processes.is_empty() {
            self.start_process(0);
        }
        let last = self.processes.len() - 1;
        &mut self.processes[last]
    }

    fn start_process(&mut self, line: usize) {
        let n = self.processes.len() + 1;
        self.processes.push(Process {
            model: None,
            prompt: None,
            timeout_s: None,
            turns: Vec::new(),
            origin: if line > 0 {
                format!("agent process {n} (line {line})")
            } else {
                format!("agent process {n}")
            },
            restore: None,
        });
    }

    fn step(&mut self, turn: usize, step: ScriptStep) {
        if let Some(t) = self.current().turns.get_mut(turn) {
            t.steps.push(step);
        }
    }

    fn line(&mut self, l: &Line) {
        match (&l.dir, &l.message) {
            (Direction::ToAgent, Message::Request { method, params, .. }) => {
                self.client_request(l.line, method, params)
            }
            (Direction::ToAgent, Message::Notification { method, .. }) => self.note(
                l.line,
                &format!("`{method}` from the client is not converted"),
            ),
            (Direction::ToAgent, Message::Response { method, result })
                if method == "session/request_permission" =>
            {
                self.permission_answer(result)
            }
            (Direction::ToClient, Message::Notification { method, params })
                if method == "session/update" =>
            {
                self.update(l.line, params.get("update").unwrap_or(&Json::Null))
            }
            (Direction::ToClient, Message::Request { method, params, .. }) => {
                if method == "session/request_permission" {
                    self.permission_request(l.line, params);
                } else {
                    self.note(
                        l.line,
                        &format!("`{method}` is not simulated by fake-agy-acp"),
                    );
                }
            }
            (Direction::ToClient, Message::Response { method, result }) => {
                self.response(l.line, method, Some(result), None)
            }
            (
                Direction::ToClient,
                Message::Error {
                    method,
                    code,
                    message,
                },
            ) => self.response(l.line, method, None, Some((*code, message.clone()))),
            _ => {}
        }
    }

    fn client_request(&mut self, line: usize, method: &str, params: &Json) {
        match method {
            "initialize" => self.initialize(line),
            "session/new" => {
                let failed = self
                    .current()
                    .restore
                    .as_ref()
                    .is_some_and(|r| r.error.is_some());
                if failed {
                    self.note(line, "`session/new` after the failed restore forks the conversation: left out (the scenario expects the client not to)");
                }
                self.phase = Phase::Idle;
            }
            "session/load" | "session/resume" => {
                self.current().restore = Some(Restore {
                    method: method.to_string(),
                    replay: "none".into(),
                    error: None,
                    late: Vec::new(),
                    line,
                });
                self.phase = Phase::Restoring;
            }
            "session/prompt" => self.prompt(line, prompt_text(params)),
            "session/cancel" => self.note(
                line,
                "`session/cancel` is not converted: the turn plays as the agent answered it",
            ),
            _ => {}
        }
    }

    /// A new agent process: a turn left without its answer died with the old one.
    fn initialize(&mut self, line: usize) {
        if let Phase::Turn(i) = self.phase {
            let text = self.current().turns.get(i).map(|t| t.text.clone());
            self.step(
                i,
                ScriptStep::new("crash", Value::String("kill".into()), line),
            );
            self.pending = text;
        }
        // The first `initialize` opens the process messages before it were put in.
        let fresh = self
            .processes
            .last()
            .is_some_and(|p| p.turns.is_empty() && p.restore.is_none());
        if !fresh {
            self.start_process(line);
        }
        self.phase = Phase::Idle;
    }

    fn prompt(&mut self, line: usize, text: String) {
        let restored = self.current().restore.is_some() && self.current().turns.is_empty();
        let again = self.pending.as_deref() == Some(text.as_str())
            || (self.pending.is_none() && self.prompts.last() == Some(&text));
        if restored && again {
            self.note(line, &format!("{} sent again after the restore: the client's resend, left out (no earlier prompt may be resent)", crate::profile::repro_kit::plan::quote(&text)));
            self.phase = Phase::Resent;
            return;
        }
        self.prompts.push(text.clone());
        let p = self.current();
        p.turns.push(Turn {
            text,
            steps: Vec::new(),
        });
        self.phase = Phase::Turn(p.turns.len() - 1);
    }

    fn response(
        &mut self,
        line: usize,
        method: &str,
        result: Option<&Json>,
        error: Option<(i64, String)>,
    ) {
        match method {
            "session/prompt" => match self.phase {
                Phase::Turn(i) => {
                    let reason = result
                        .and_then(|r| r.get("stopReason"))
                        .and_then(Json::as_str)
                        .filter(|r| is_stop_reason(r));
                    if let Some((code, message)) = &error {
                        self.note(line, &format!("the prompt's error answer ({code} {message:?}) is not scriptable in fake-agy-acp: the turn ends with `end_turn`"));
                    }
                    let reason = reason.unwrap_or("end_turn").to_string();
                    self.step(i, ScriptStep::new("respond", Value::String(reason), line));
                    self.phase = Phase::AfterResponse(i);
                }
                _ => self.phase = Phase::Idle,
            },
            "session/load" | "session/resume" => {
                if let Some(r) = self.current().restore.as_mut() {
                    r.error = error;
                }
                self.phase = Phase::Restored(false);
            }
            _ => {}
        }
    }

    fn update(&mut self, line: usize, update: &Json) {
        let kind = update
            .get("sessionUpdate")
            .and_then(Json::as_str)
            .unwrap_or("");
        let replay = matches!(kind, "user_message_chunk" | "agent_message_chunk");
        match self.phase {
            Phase::Turn(i) | Phase::AfterResponse(i) => {
                if let Some(s) = update_step(update, line) {
                    self.step(i, s);
                }
            }
            Phase::Restoring if replay => self.set_replay("before_response"),
            Phase::Restored(_) if kind == "user_message_chunk" => {
                self.set_replay("after_response");
                self.phase = Phase::Restored(true);
            }
            Phase::Restored(true) if kind == "agent_message_chunk" => {
                self.phase = Phase::Restored(false)
            }
            Phase::Restored(_) if kind != "available_commands_update" => {
                if let Some(s) = update_step(update, line) {
                    if let Some(r) = self.current().restore.as_mut() {
                        r.late.push(s);
                    }
                }
            }
            Phase::Restoring if kind != "available_commands_update" => self.note(
                line,
                &format!("`{kind}` before the restore response is not scriptable: left out"),
            ),
            _ => {}
        }
    }

    fn set_replay(&mut self, when: &str) {
        if let Some(r) = self.current().restore.as_mut() {
            r.replay = when.to_string();
        }
    }

    fn permission_request(&mut self, line: usize, params: &Json) {
        let id = params
            .get("toolCall")
            .and_then(|t| t.get("toolCallId"))
            .and_then(Json::as_str);
        let mut spec = toml::Table::new();
        if let Some(id) = id {
            spec.insert("tool_call_id".into(), Value::String(id.to_string()));
        }
        match self.phase {
            Phase::Turn(i) => self.step(i, ScriptStep::new("permission", Value::Table(spec), line)),
            Phase::AfterResponse(i) => {
                spec.insert("no_wait".into(), Value::Boolean(true));
                self.step(i, ScriptStep::new("permission", Value::Table(spec), line));
            }
            Phase::Restored(_) | Phase::Restoring => {
                if let Some(r) = self.current().restore.as_mut() {
                    r.late
                        .push(ScriptStep::new("permission", Value::Table(spec), line));
                }
            }
            _ => {}
        }
    }

    /// The client's answer to a permission asked inside a turn gives its policy.
    fn permission_answer(&mut self, result: &Json) {
        let option = result
            .get("outcome")
            .and_then(|o| o.get("optionId"))
            .and_then(Json::as_str)
            .unwrap_or("");
        if matches!(self.phase, Phase::Turn(_)) && (option.contains("reject") || option == "deny") {
            self.permission = Some(AcpPermission::Deny);
        }
    }
}

/// Whether fake-agy-acp can answer with stop reason `name` (a [`StopReasonName`]).
fn is_stop_reason(name: &str) -> bool {
    StopReasonName::deserialize(
        serde::de::value::StrDeserializer::<serde::de::value::Error>::new(name),
    )
    .is_ok()
}

/// The text of a `session/prompt`: its text content blocks, joined.
fn prompt_text(params: &Json) -> String {
    params
        .get("prompt")
        .and_then(Json::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Json::as_str))
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default()
}

/// A `session/update` as a fake-agy-acp step: typed where the script has a step for
/// it, else `update = { … }` with the update as sent.
fn update_step(update: &Json, line: usize) -> Option<ScriptStep> {
    let kind = update
        .get("sessionUpdate")
        .and_then(Json::as_str)
        .unwrap_or("");
    let text = || {
        update
            .get("content")
            .and_then(|c| c.get("text"))
            .and_then(Json::as_str)
            .map(|t| Value::String(t.to_string()))
    };
    let fields = |pairs: &[(&str, &str)]| {
        let mut t = toml::Table::new();
        for (json, key) in pairs {
            if let Some(v) = update.get(*json).and_then(Json::as_str) {
                t.insert(key.to_string(), Value::String(v.to_string()));
            }
        }
        t
    };
    let typed = match kind {
        "agent_message_chunk" => text().map(|t| ("text", t)),
        "agent_thought_chunk" => text().map(|t| ("thought", t)),
        "tool_call" => Some((
            "tool_call",
            Value::Table(fields(&[
                ("toolCallId", "id"),
                ("title", "title"),
                ("kind", "kind"),
                ("status", "status"),
            ])),
        )),
        "tool_call_update" if update.get("status").is_some_and(Json::is_string) => Some((
            "tool_update",
            Value::Table(fields(&[
                ("toolCallId", "id"),
                ("status", "status"),
                ("rawOutput", "output"),
            ])),
        )),
        "available_commands_update" => Some(("commands", Value::Boolean(true))),
        _ => None,
    };
    let (key, value) = match typed {
        Some(kv) => kv,
        None => ("update", toml::Value::try_from(without_nulls(update)).ok()?),
    };
    Some(ScriptStep::new(key, value, line))
}

/// `value` without `null`s, which TOML cannot say.
fn without_nulls(value: &Json) -> Json {
    match value {
        Json::Object(m) => Json::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Json::Array(a) => Json::Array(
            a.iter()
                .filter(|v| !v.is_null())
                .map(without_nulls)
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repro::acp_transcript::read_transcript;
    use agy_protocol::diag::SourceFile;

    fn case(text: &str) -> ReproCase {
        let lines = read_transcript(&SourceFile::new("t", text)).expect("reads");
        acp_case(&lines).expect("builds").case
    }

    const CRASH_AND_LOAD: &str = concat!(
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/new\",\"params\":{}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/prompt\",\"params\":{\"prompt\":[{\"type\":\"text\",\"text\":\"deploy\"}]}}\n",
        "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"update\":{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"working\"}}}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/load\",\"params\":{}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
        "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"update\":{\"sessionUpdate\":\"user_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"deploy\"}}}}\n",
        "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"update\":{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"working\"}}}}\n",
        "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"update\":{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"LATE\"}}}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/prompt\",\"params\":{\"prompt\":[{\"type\":\"text\",\"text\":\"deploy\"}]}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"stopReason\":\"end_turn\"}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/prompt\",\"params\":{\"prompt\":[{\"type\":\"text\",\"text\":\"next\"}]}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"stopReason\":\"end_turn\"}}\n",
    );

    #[test]
    fn a_transcript_without_a_prompt_or_a_restore_builds_nothing() {
        let text = concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n",
        );
        let lines = read_transcript(&SourceFile::new("t", text)).expect("reads");
        assert_eq!(acp_case(&lines).err(), Some(BuildError::NoAcpTurn));
    }

    #[test]
    fn a_turn_cut_by_a_new_agent_crashes_and_the_restore_keeps_replay_and_late_output() {
        let c = case(CRASH_AND_LOAD);
        assert_eq!(c.processes.len(), 2);
        let keys: Vec<&str> = c.processes[0].turns[0]
            .steps
            .iter()
            .map(|s| s.key())
            .collect();
        assert_eq!(keys, ["text", "crash"]);
        let r = c.processes[1].restore.as_ref().expect("restore");
        assert_eq!(
            (r.method.as_str(), r.replay.as_str()),
            ("session/load", "after_response")
        );
        assert_eq!(r.late.len(), 1, "{:?}", r.late);
        assert_eq!(r.late[0].body(), Some(&Value::String("LATE".into())));
        // The resent `deploy` is the client's doing, not a turn.
        let texts: Vec<&str> = c.processes[1]
            .turns
            .iter()
            .map(|t| t.text.as_str())
            .collect();
        assert_eq!(texts, ["next"]);
    }

    #[test]
    fn stop_reasons_are_the_ones_fake_agy_acp_can_answer_with() {
        for name in [
            "end_turn",
            "max_tokens",
            "max_turn_requests",
            "refusal",
            "cancelled",
        ] {
            assert!(is_stop_reason(name), "{name}");
        }
        for name in ["", "EndTurn", "end-turn", "paused"] {
            assert!(!is_stop_reason(name), "{name}");
        }
    }

    #[test]
    fn a_published_rc01_turn_converts_to_its_text_and_stop_reason() {
        let text = include_str!(
            "../../../traces/upstream/EstebanForge__pi-antigravity-bridge__rc01-prompt-cancel.jsonl"
        );
        let c = case(text);
        let turn = &c.processes[0].turns[0];
        assert_eq!(
            turn.text,
            "Reply with exactly: HELLO ACP. Do not use any tools."
        );
        let steps: Vec<String> = turn.steps.iter().map(|s| s.value.to_string()).collect();
        assert_eq!(
            steps,
            ["{ text = \"HELLO ACP.\" }", "{ respond = \"end_turn\" }"]
        );
    }

    /// Lines a transcript is made of, mixed freely: messages of both sides, labels,
    /// cut JSON, prose.
    fn fragment() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let messages: Vec<String> = CRASH_AND_LOAD.lines().map(str::to_string).chain([
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32000,\"message\":\"unknown sessionId\"}}".to_string(),
            "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session/request_permission\",\"params\":{\"toolCall\":{\"toolCallId\":\"c\"}}}".to_string(),
            "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"outcome\":{\"outcome\":\"selected\",\"optionId\":\"deny\"}}}".to_string(),
            "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"update\":{\"sessionUpdate\":\"tool_call\",\"toolCallId\":null,\"x\":[null,1]}}}".to_string(),
            "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"update\":{\"sessionUpdate\":\"plan\",\"entries\":[]}}}".to_string(),
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"stopReason\":\"refusal\"}}".to_string(),
            "{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\",\"params\":{}}".to_string(),
            "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"fs/read_text_file\",\"params\":{}}".to_string(),
        ]).collect();
        (
            prop::sample::select(vec![
                "", "> ", "< ", "client: ", "agent: ", "--> ", "<-- ", "→ ", "stdout: ",
            ]),
            prop::sample::select(messages),
            0usize..400,
            prop::bool::weighted(0.1),
        )
            .prop_map(|(label, msg, cut, truncate)| {
                let body = if truncate {
                    msg.chars().take(cut).collect()
                } else {
                    msg
                };
                format!("{label}{body}")
            })
            .boxed()
            .prop_union("\\PC{0,60}".boxed())
    }

    proptest::proptest! {
        /// Whatever is pasted, reading, converting, judging and rendering it never panics,
        /// and what converts renders as a scenario that parses.
        #[test]
        fn arbitrary_transcripts_never_panic_the_converter(
            lines in proptest::collection::vec(fragment(), 0..30),
            raw in "\\PC{0,200}",
        ) {
            for text in [lines.join("\n"), raw] {
                let Ok(read) = read_transcript(&SourceFile::new("t", text)) else { continue };
                let Ok(built) = acp_case(&read) else { continue };
                let plan = crate::repro::plan::plan(&built.case);
                let out = crate::repro::render::render(&built.case, &plan, "x", &crate::repro::render::Provenance::default());
                let parsed = crate::scenario::parse_scenario(&SourceFile::new("x.toml", out.clone()), std::path::Path::new("x.toml"));
                proptest::prop_assert!(parsed.is_ok(), "{out}\n{}", parsed.err().map(|d| d.to_string()).unwrap_or_default());
            }
        }
    }
}
