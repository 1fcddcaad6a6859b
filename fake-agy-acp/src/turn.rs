//! `session/prompt`: choosing what a turn does, acting out its steps (and the late ones
//! after the response), the default turn, cancellation, and saving the turn.

use super::agent::{Agent, Woke};
use super::rpc_error::{auth_required, typed};
use super::store::now_iso;
use super::updates;
use agent_client_protocol_schema::v1::{
    ContentBlock, Error as RpcError, PromptRequest, PromptResponse, RequestId, StopReason,
    ToolCall, ToolCallStatus,
};
use agy_protocol::acp::script::{AcpStep, PermissionSpec, StopReasonName, ToolCallSpec};
use agy_protocol::acp::{AcpDirection, AcpKind};
use agy_protocol::script::Times;
use serde_json::{json, Value};
use std::path::Path;

/// Context size reported in `usage_update` (docs/agy-acp-reference.md §6.3).
const CONTEXT_SIZE: u64 = 1_048_576;

/// One turn, or one late phase after a load/resume response.
pub(crate) struct TurnState {
    session_id: String,
    /// The prompt request to answer; `None` in a late phase.
    prompt_id: Option<RequestId>,
    responded: bool,
    tools: Vec<ToolCall>,
    text: String,
}

impl TurnState {
    /// A late phase: everything runs after the response.
    pub(crate) fn late(session_id: &str) -> TurnState {
        TurnState {
            session_id: session_id.to_string(),
            prompt_id: None,
            responded: true,
            tools: Vec::new(),
            text: String::new(),
        }
    }
}

/// Whether to go on with the next step.
enum Flow {
    Next,
    Stop,
}

fn stop_reason(name: StopReasonName) -> StopReason {
    match name {
        StopReasonName::EndTurn => StopReason::EndTurn,
        StopReasonName::MaxTokens => StopReason::MaxTokens,
        StopReasonName::MaxTurnRequests => StopReason::MaxTurnRequests,
        StopReasonName::Refusal => StopReason::Refusal,
        StopReasonName::Cancelled => StopReason::Cancelled,
    }
}

fn prompt_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Splits text into `n` pieces at character boundaries (true deltas, docs/agy-acp-reference.md §2.6).
fn deltas(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let size = chars.len().div_ceil(n.max(1)).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// The file a prompt asks to create, and its content: "Create hello.txt containing
/// ok" (docs/agy-acp-reference.md §6.3).
fn wanted_file(prompt: &str) -> Option<(String, String)> {
    // Compiling this Unicode, case-insensitive pattern costs more CPU than the rest of a
    // default turn: it is compiled once, and only for a prompt that can match (no
    // character outside ASCII folds to a letter of "create" or "write").
    static WANTED: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let lower = prompt.to_ascii_lowercase();
    if !lower.contains("create") && !lower.contains("write") {
        return None;
    }
    let re = WANTED
        .get_or_init(|| regex::Regex::new(r"(?i)\b(?:create|write)\s+(?:a\s+file\s+(?:named\s+|called\s+)?)?([\w./-]+\.\w+)(?:\s+containing\s+(.+))?").ok())
        .as_ref()?;
    let caps = re.captures(prompt)?;
    let name = caps.get(1)?.as_str().to_string();
    let body = caps
        .get(2)
        .map(|m| format!("{}\n", m.as_str().trim()))
        .unwrap_or_else(|| "ok\n".into());
    Some((name, body))
}

fn new_tool_id() -> String {
    // 32 hex digits, one of the recorded id formats (docs/agy-acp-reference.md §2.7 c).
    uuid::Uuid::new_v4().simple().to_string()
}

impl Agent {
    /// Runs one `session/prompt`.
    pub(crate) fn prompt(&mut self, id: RequestId, params: Value) {
        let req: PromptRequest = match typed(params) {
            Ok(r) => r,
            Err(e) => return self.respond(id, Err(e)),
        };
        if !self.signed_in {
            return self.respond(id, Err(auth_required()));
        }
        let session_id = req.session_id.0.to_string();
        // Only sessions created, loaded or resumed by this process take prompts
        // (inferred: the spec requires a restore first, docs/agy-acp-reference.md §1.5).
        if !self.sessions.contains_key(&session_id) {
            let e = self.unknown_session(&session_id);
            return self.respond(id, Err(e));
        }
        self.prompts_seen += 1;
        let text = prompt_text(&req.prompt);
        let turn_index = self.begin_turn(&session_id, &text);
        self.turn_session = Some(session_id.clone());
        self.cancel_requested = false;
        let (rule, steps) = self.pick_rule(&text);
        if let Some(name) = rule {
            self.wire.event(AcpDirection::Event, AcpKind::Rule, &name);
        }
        self.commands_before_first_prompt(&session_id);
        let mut state = TurnState {
            session_id: session_id.clone(),
            prompt_id: Some(id),
            responded: false,
            tools: Vec::new(),
            text: String::new(),
        };
        self.run_steps(&mut state, &steps, &text);
        if !state.responded {
            let reason = if self.cancel_honoured() {
                self.fail_open_tools(&mut state);
                StopReasonName::Cancelled
            } else {
                StopReasonName::EndTurn
            };
            self.answer(&mut state, reason);
        }
        self.end_turn(&session_id, turn_index, &state.text, true);
        self.turn_session = None;
        self.cancel_requested = false;
    }

    fn pick_rule(&mut self, text: &str) -> (Option<String>, Vec<AcpStep>) {
        let nth = self.prompts_seen;
        let rules = self.settings.script.prompts.clone();
        for (i, rule) in rules.iter().enumerate() {
            let limit = Times::limit(rule.times, rule.when.is_some());
            if limit.is_some_and(|l| self.rule_uses[i] >= l) {
                continue;
            }
            if let Some(when) = &rule.when {
                if when.nth.is_some_and(|n| n != nth) {
                    continue;
                }
                if when.contains.as_deref().is_some_and(|c| !text.contains(c)) {
                    continue;
                }
            }
            self.rule_uses[i] += 1;
            let name = rule
                .name
                .clone()
                .unwrap_or_else(|| format!("prompt {}", i + 1));
            return (Some(name), rule.steps.clone());
        }
        (None, vec![AcpStep::Default(agy_protocol::script::True)])
    }

    /// Acts out steps; `prompt` is the prompt text (empty in a late phase).
    pub(crate) fn run_steps(&mut self, state: &mut TurnState, steps: &[AcpStep], prompt: &str) {
        for step in steps {
            if !state.responded && self.cancel_honoured() {
                self.fail_open_tools(state);
                self.answer(state, StopReasonName::Cancelled);
                return;
            }
            if let Flow::Stop = self.run_step(state, step, prompt) {
                return;
            }
        }
    }

    fn run_step(&mut self, state: &mut TurnState, step: &AcpStep, prompt: &str) -> Flow {
        let sid = state.session_id.clone();
        match step {
            AcpStep::Default(_) => return self.default_turn(state, prompt),
            AcpStep::Text(t) => self.say(state, t),
            AcpStep::Thought(t) => {
                self.notify(updates::notification(&sid, updates::thought_text(t)))
            }
            AcpStep::ToolCall(spec) => self.tool_call_step(state, spec),
            AcpStep::ToolUpdate(spec) => {
                let id = spec
                    .id
                    .clone()
                    .or_else(|| state.tools.last().map(|t| t.tool_call_id.0.to_string()));
                let id = id.unwrap_or_else(new_tool_id);
                self.update_tool(state, &id, &spec.status, spec.output.as_deref());
            }
            AcpStep::DuplicateToolCall(_) => {
                // The same `tool_call` re-sent verbatim, same id (docs/agy-acp-reference.md §2.7 quirk a).
                if let Some(call) = state.tools.last().cloned() {
                    self.notify(updates::notification(
                        &sid,
                        agent_client_protocol_schema::v1::SessionUpdate::ToolCall(call),
                    ));
                }
            }
            AcpStep::Permission(spec) => return self.permission(state, &spec.0),
            AcpStep::Usage(spec) => {
                let used = spec.0.used.unwrap_or_else(|| self.context_used(&sid));
                self.notify(updates::notification(
                    &sid,
                    updates::usage(used, spec.0.size.unwrap_or(CONTEXT_SIZE)),
                ));
            }
            AcpStep::Commands(_) => self.notify(updates::notification(&sid, updates::commands())),
            AcpStep::Update(update) => self.wire.send_value(&json!({
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": { "sessionId": sid, "update": update },
            })),
            AcpStep::Raw(line) => self.wire.send_raw(line),
            AcpStep::Stderr(line) => self.wire.stderr(line),
            AcpStep::Sleep(d) => {
                if let Woke::Eof = self.sleep(d.0, !state.responded) {
                    return Flow::Stop;
                }
            }
            AcpStep::WaitForCancel(_) => {
                // With cancel ignored this waits until stdin closes (RC01-like).
                if let Woke::Eof = self.wait(None, true, None) {
                    return Flow::Stop;
                }
            }
            AcpStep::Respond(reason) => {
                if !state.responded {
                    self.answer(state, *reason);
                }
            }
            AcpStep::Crash(kind) => {
                self.save_progress(state);
                self.crash(*kind)
            }
            AcpStep::Hang(_) => {
                self.save_progress(state);
                self.hang()
            }
            AcpStep::Exit(code) => {
                self.save_progress(state);
                std::process::exit(self.exit(*code))
            }
        }
        Flow::Next
    }

    /// A `tool_call` as the step gives it: an edit of a file in the session's folder
    /// unless it says otherwise.
    fn tool_call_step(&mut self, state: &mut TurnState, spec: &ToolCallSpec) {
        let cwd = self
            .sessions
            .get(&state.session_id)
            .map(|s| s.cwd.clone())
            .unwrap_or_default();
        let path = spec
            .path
            .as_ref()
            .map(|p| Path::new(&cwd).join(p).display().to_string());
        let body = spec.new_text.clone().unwrap_or_else(|| "ok\n".into());
        let call = updates::tool_call(
            spec.id.as_deref().unwrap_or(&new_tool_id()),
            spec.title.as_deref().unwrap_or("Run create_file?"),
            spec.kind.as_deref().unwrap_or("edit"),
            spec.status.as_deref().unwrap_or("pending"),
            path.as_deref().map(|p| (p, body.as_str())),
        );
        self.send_tool_call(state, call);
    }

    fn say(&mut self, state: &mut TurnState, text: &str) {
        self.notify(updates::notification(
            &state.session_id,
            updates::agent_text(text),
        ));
        if !state.responded {
            state.text.push_str(text);
        }
    }

    fn send_tool_call(&mut self, state: &mut TurnState, call: ToolCall) {
        self.notify(updates::notification(
            &state.session_id,
            agent_client_protocol_schema::v1::SessionUpdate::ToolCall(call.clone()),
        ));
        state.tools.push(call);
    }

    fn update_tool(&mut self, state: &mut TurnState, id: &str, status: &str, output: Option<&str>) {
        self.notify(updates::notification(
            &state.session_id,
            updates::tool_update(id, status, output),
        ));
        if let Some(t) = state
            .tools
            .iter_mut()
            .find(|t| t.tool_call_id.0.as_ref() == id)
        {
            t.status = updates::tool_status(status);
        }
    }

    /// Marks unfinished tool calls `failed` before a cancelled stop (docs/agy-acp-reference.md §6.4).
    fn fail_open_tools(&mut self, state: &mut TurnState) {
        let open: Vec<String> = state
            .tools
            .iter()
            .filter(|t| {
                matches!(
                    t.status,
                    ToolCallStatus::Pending | ToolCallStatus::InProgress
                )
            })
            .map(|t| t.tool_call_id.0.to_string())
            .collect();
        for id in open {
            self.update_tool(state, &id, "failed", None);
        }
    }

    fn answer(&mut self, state: &mut TurnState, reason: StopReasonName) {
        if let Some(id) = state.prompt_id.clone() {
            let response = serde_json::to_value(PromptResponse::new(stop_reason(reason)))
                .map_err(|e| RpcError::new(-32603, e.to_string()));
            self.respond(id, response);
        }
        state.responded = true;
    }

    /// Sends `session/request_permission` and, inside a turn, waits for the answer.
    /// In a late phase (or with `no_wait`) it does not wait: the answer is journaled
    /// whenever it comes.
    fn permission(&mut self, state: &mut TurnState, spec: &PermissionSpec) -> Flow {
        let sid = state.session_id.clone();
        let request = match &spec.question {
            Some(q) => {
                let id = spec
                    .tool_call_id
                    .clone()
                    .unwrap_or_else(|| format!("interaction_{}", self.prompts_seen));
                updates::question(&sid, &id, q, &spec.answers)
            }
            None => {
                let call = match (&spec.tool_call_id, state.tools.last()) {
                    (Some(id), _) => state
                        .tools
                        .iter()
                        .find(|t| t.tool_call_id.0.as_ref() == id.as_str())
                        .cloned()
                        .unwrap_or_else(|| {
                            updates::tool_call(id, "Run create_file?", "edit", "pending", None)
                        }),
                    (None, Some(last)) => last.clone(),
                    (None, None) => updates::tool_call(
                        &new_tool_id(),
                        "Run create_file?",
                        "edit",
                        "pending",
                        None,
                    ),
                };
                agent_client_protocol_schema::v1::RequestPermissionRequest::new(
                    sid.clone(),
                    updates::call_as_update(&call),
                    updates::permission_options(),
                )
            }
        };
        let mut params = serde_json::to_value(&request).unwrap_or(Value::Null);
        if spec.question.is_none() {
            updates::explicit_pending(params.pointer_mut("/toolCall"));
        }
        let id = self.send_request("session/request_permission", params);
        if state.responded || spec.no_wait == Some(true) {
            return Flow::Next;
        }
        // Wait for the answer even when a cancel arrives: the client must answer every
        // pending permission request with `cancelled` (docs/agy-acp-reference.md §1.7).
        match self.wait(Some(&id), false, None) {
            Woke::Response(Ok(result)) => {
                let outcome = result.pointer("/outcome/outcome").and_then(Value::as_str);
                if outcome == Some("selected") {
                    return Flow::Next;
                }
                self.fail_open_tools(state);
                self.answer(state, StopReasonName::Cancelled);
                Flow::Stop
            }
            Woke::Response(Err(_)) => {
                self.fail_open_tools(state);
                self.answer(state, StopReasonName::Cancelled);
                Flow::Stop
            }
            Woke::Eof => Flow::Stop,
            Woke::Cancelled | Woke::Timeout => Flow::Next,
        }
    }

    /// The default turn: a gated file edit when the prompt asks for a file, otherwise a
    /// streamed answer; then `usage_update` on builds that send it.
    fn default_turn(&mut self, state: &mut TurnState, prompt: &str) -> Flow {
        let sid = state.session_id.clone();
        let (cwd, mode) = self
            .sessions
            .get(&sid)
            .map(|s| (s.cwd.clone(), s.mode.clone()))
            .unwrap_or_default();
        if let Some((name, body)) = wanted_file(prompt) {
            self.say(state, "I'll create the file.");
            let path = Path::new(&cwd).join(&name).display().to_string();
            let call = updates::tool_call(
                &new_tool_id(),
                "Run create_file?",
                "edit",
                "pending",
                Some((&path, &body)),
            );
            let id = call.tool_call_id.0.to_string();
            self.send_tool_call(state, call);
            // Permission only in `default` mode and only for writes (docs/agy-acp-reference.md §2.7).
            let allowed = if mode == "default" {
                match self.write_permission(state, &sid, &id) {
                    Ok(allowed) => allowed,
                    Err(flow) => return flow,
                }
            } else {
                true
            };
            if allowed {
                self.update_tool(state, &id, "in_progress", None);
                self.update_tool(state, &id, "completed", Some(&format!("Created {name}")));
                self.say(state, "Done.");
            } else {
                self.update_tool(state, &id, "failed", None);
                self.say(state, "I did not create the file.");
            }
        } else {
            // The print-mode answer rules ("reply with the single word PONG" → PONG);
            // any other prompt is echoed, so a client's transcript shows which turn
            // answered (docs/acp-fake-agent.md).
            let reply = match fake_agy::read_prompt(prompt).reply_word {
                Some(word) => word,
                None => format!("Received: {}", prompt.trim()),
            };
            for piece in deltas(&reply, 3) {
                self.say(state, &piece);
            }
        }
        if self.settings.version.sends_usage_update() {
            // After the message chunk (1.3.0, docs/agy-acp-reference.md §2.6); the count is synthetic.
            let used = self.context_used(&sid) + (state.text.len() as u64) / 4;
            self.notify(updates::notification(
                &sid,
                updates::usage(used, CONTEXT_SIZE),
            ));
        }
        Flow::Next
    }

    /// Asks the client to allow the file write of tool call `id`: whether it was
    /// allowed, or how the turn ends when the answer is no answer.
    fn write_permission(
        &mut self,
        state: &mut TurnState,
        sid: &str,
        id: &str,
    ) -> Result<bool, Flow> {
        let request = agent_client_protocol_schema::v1::RequestPermissionRequest::new(
            sid.to_string(),
            updates::call_as_update(
                state
                    .tools
                    .last()
                    .unwrap_or(&updates::tool_call(id, "", "edit", "pending", None)),
            ),
            updates::permission_options(),
        );
        let rid = self.send_request(
            "session/request_permission",
            serde_json::to_value(&request).unwrap_or(Value::Null),
        );
        match self.wait(Some(&rid), false, None) {
            Woke::Response(Ok(result)) => {
                match result.pointer("/outcome/optionId").and_then(Value::as_str) {
                    Some("allow")
                        if result.pointer("/outcome/outcome").and_then(Value::as_str)
                            == Some("selected") =>
                    {
                        Ok(true)
                    }
                    Some("deny") => Ok(false),
                    _ => {
                        self.fail_open_tools(state);
                        self.answer(state, StopReasonName::Cancelled);
                        Err(Flow::Stop)
                    }
                }
            }
            Woke::Response(Err(_)) | Woke::Cancelled | Woke::Timeout => {
                self.fail_open_tools(state);
                self.answer(state, StopReasonName::Cancelled);
                Err(Flow::Stop)
            }
            Woke::Eof => Err(Flow::Stop),
        }
    }

    fn context_used(&self, session_id: &str) -> u64 {
        let stored = self.store.load(session_id).ok().flatten();
        let chars: usize = stored
            .map(|s| s.turns.iter().map(|t| t.user.len() + t.agent.len()).sum())
            .unwrap_or(0);
        1_000 + (chars as u64) / 4
    }

    /// Records the prompt before anything else happens, as a turn not yet complete.
    fn begin_turn(&mut self, session_id: &str, text: &str) -> usize {
        let Ok(Some(mut stored)) = self.store.load(session_id) else {
            return 0;
        };
        if stored.title.is_none() {
            // The title algorithm is unrecorded; the first line, shortened.
            let first = text.lines().next().unwrap_or("").trim();
            stored.title = Some(first.chars().take(48).collect());
        }
        stored.turns.push(super::store::StoredTurn {
            user: text.to_string(),
            agent: String::new(),
            complete: false,
        });
        stored.updated_at = now_iso();
        let index = stored.turns.len() - 1;
        if let Err(e) = self.store.save(&stored) {
            self.wire.stderr(&format!("fake-agy-acp: {e}"));
        }
        index
    }

    fn end_turn(&mut self, session_id: &str, index: usize, text: &str, complete: bool) {
        let Ok(Some(mut stored)) = self.store.load(session_id) else {
            return;
        };
        if let Some(turn) = stored.turns.get_mut(index) {
            turn.agent = text.to_string();
            turn.complete = complete;
        }
        stored.updated_at = now_iso();
        if let Err(e) = self.store.save(&stored) {
            self.wire.stderr(&format!("fake-agy-acp: {e}"));
        }
    }

    fn save_progress(&mut self, state: &TurnState) {
        if state.prompt_id.is_some() {
            let index = self
                .store
                .load(&state.session_id)
                .ok()
                .flatten()
                .map(|s| s.turns.len().saturating_sub(1))
                .unwrap_or(0);
            self.end_turn(&state.session_id, index, &state.text, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_and_its_content_are_read_from_the_prompt() {
        assert_eq!(
            wanted_file("Create hello.txt containing ok"),
            Some(("hello.txt".into(), "ok\n".into()))
        );
        assert_eq!(wanted_file("What is 2 + 2?"), None);
    }

    #[test]
    fn deltas_rejoin_to_the_text() {
        let text = "Received: héllo wörld";
        assert_eq!(deltas(text, 3).concat(), text);
        assert_eq!(deltas(text, 3).len(), 3);
    }
}
