//! The running invocation: its command line, knobs, streams, conversation and the
//! state of the current turn. Everything that writes agy output goes through here, so
//! step indices, cumulative usage and turn counts stay consistent.

use super::due_steps::DueSteps;
use super::pending_question::PendingQuestion;
use super::process_io::ProcessIo;
use super::setup::{Setup, SetupParts};
use super::turn_state::TurnState;
use crate::cli::OutputFormat;
use crate::error::FakeError;
use crate::exit_code;
use crate::io::output::Output;
use crate::io::recorder::Recorder;
use crate::io::signals::SignalControl;
use crate::io::stdin_reader::StdinReader;
use crate::model::tools::tools_for;
use crate::model::version_model::{has, Behaviour};
use crate::session::structured::Schema;
use crate::store::brain::AppDir;
use crate::store::conversation::Conversation;
use crate::store::settings::tool_permission;
use agy_protocol::layout::Layout;
use agy_protocol::script::{InitSpec, ModelTurn};
use agy_protocol::stream::{Init, StepState, StepType, StepUpdate, StreamEvent};
use agy_protocol::{Envelope, Status, Usage};
use std::sync::Arc;

/// How a result changes the conversation's cumulative usage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageUpdate {
    /// Add what this turn's steps spent.
    AddSpent,
    /// The result states the cumulative figure; take it.
    Cumulative,
}

/// Everything one invocation acts with.
#[derive(Debug)]
pub struct Session {
    setup: Setup,
    io: ProcessIo,
    /// agy's data directory.
    app: AppDir,
    turn: TurnState,
    /// True once `init` was written.
    init_sent: bool,
    /// The exit code the last result implies.
    exit_code: i32,
    /// Set when the process must end after the current turn (quota: 3).
    ending: Option<i32>,
    /// A question waiting for its answer.
    pending_question: Option<PendingQuestion>,
    /// Results written by this process, for `duplicate_result`.
    last_result_line: Option<String>,
    /// The compiled `--json-schema`, loaded by the pre-turn checks.
    schema: Option<Schema>,
    due: DueSteps,
    conversation: Option<Conversation>,
    last_step_index: Option<u64>,
    last_step: Option<StepUpdate>,
    /// A persistent process whose stdin ended before any line came: no turn ran.
    idle_start: bool,
}

impl Session {
    /// Marks this process an idle start: a persistent process whose stdin ended before
    /// any line came, so it ran no turn (and does not count as one).
    pub fn mark_idle_start(&mut self) {
        self.idle_start = true;
    }

    /// Whether this process was an idle start ([`Session::mark_idle_start`]).
    pub fn was_idle_start(&self) -> bool {
        self.idle_start
    }

    /// The stdin thread, started on first use.
    pub fn stdin(&mut self) -> &mut StdinReader {
        self.io.stdin()
    }

    /// stdout and stderr.
    pub fn out(&self) -> &Output {
        self.io.out()
    }

    /// The journal record.
    pub fn recorder(&self) -> &Arc<Recorder> {
        self.io.recorder()
    }

    /// The signal dispositions.
    pub fn signals(&self) -> &Arc<SignalControl> {
        self.io.signals()
    }

    /// agy's data directory.
    pub fn app(&self) -> &AppDir {
        &self.app
    }

    /// The compiled `--json-schema`, once the pre-turn checks loaded it.
    pub fn schema(&self) -> Option<&Schema> {
        self.schema.as_ref()
    }

    /// Answers every later turn under `schema` (`--json-schema`).
    pub fn set_schema(&mut self, schema: Schema) {
        self.schema = Some(schema);
    }

    /// Keeps the question the current turn asked; the next stdin line answers it.
    pub fn ask_question(&mut self, question: PendingQuestion) {
        self.pending_question = Some(question);
    }

    /// The question waiting for its answer, if any (it is answered now).
    pub fn take_pending_question(&mut self) -> Option<PendingQuestion> {
        self.pending_question.take()
    }

    /// The steps the conversation owes its next turns.
    pub fn due_steps(&mut self) -> &mut DueSteps {
        &mut self.due
    }

    /// The session of an invocation started with `setup`, acting through `io` on the
    /// data directory `app`.
    pub fn new(setup: SetupParts, io: ProcessIo, app: AppDir) -> Session {
        let prompt = setup.args.prompt.clone().unwrap_or_default();
        Session {
            io,
            setup: Setup::new(setup),
            app,
            turn: TurnState::new(prompt),
            init_sent: false,
            exit_code: exit_code::OK,
            ending: None,
            pending_question: None,
            last_result_line: None,
            schema: None,
            due: DueSteps::new(),
            conversation: None,
            last_step_index: None,
            last_step: None,
            idle_start: false,
        }
    }

    /// The model's decisions for this turn, when the script gives decisions: the
    /// conversation's next one, counted across every process that continued it (a turn
    /// past the last one decided nothing: an empty answer).
    pub fn take_model_turn(&mut self) -> Result<Option<ModelTurn>, FakeError> {
        if self.setup.model_turns().is_none() {
            return Ok(None);
        }
        let app = self.app.clone();
        let conv = self.conversation()?;
        let taken = conv.decisions_taken;
        conv.decisions_taken += 1;
        conv.save(&app)?;
        let turn = usize::try_from(taken)
            .ok()
            .and_then(|i| self.setup.model_turns().and_then(|m| m.get(i)).cloned());
        Ok(Some(turn.unwrap_or_default()))
    }

    /// True when output is stream-json events.
    pub fn is_stream(&self) -> bool {
        self.setup.format() == OutputFormat::StreamJson
    }

    /// What the invocation was started with.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// The current turn.
    pub fn turn(&self) -> &TurnState {
        &self.turn
    }

    /// The current turn, to mark it failed.
    pub fn turn_mut(&mut self) -> &mut TurnState {
        &mut self.turn
    }

    /// The exit code the last result implies (or a pre-turn check set).
    pub fn exit_code(&self) -> i32 {
        self.exit_code
    }

    /// Sets the exit code the process ends with, unless a later result sets another.
    pub fn set_exit_code(&mut self, code: i32) {
        self.exit_code = code;
    }

    /// The code the process must end with after the current turn, if one was set.
    pub fn ending(&self) -> Option<i32> {
        self.ending
    }

    /// Makes the process end with `code` after the current turn (quota: 3); the
    /// turn's result then implies that code.
    pub fn end_after_turn(&mut self, code: i32) {
        self.ending = Some(code);
    }

    /// The last result line this process wrote.
    pub fn last_result_line(&self) -> Option<&str> {
        self.last_result_line.as_deref()
    }

    /// Starts a new turn for `prompt`.
    pub fn begin_turn(&mut self, prompt: String) {
        self.turn = TurnState::new(prompt);
    }

    /// The conversation, created or resumed on first use (docs/agy-reference.md §1.3).
    pub fn conversation(&mut self) -> Result<&mut Conversation, FakeError> {
        if self.conversation.is_none() {
            let (conv, stored) = self.resolve_conversation()?;
            self.app.create_brain(&conv.id)?;
            let cache = self
                .app
                .set_last_conversation(self.setup.workspace(), &conv.id)?;
            let id = conv.id.clone();
            let continued = stored.then(|| id.clone());
            let turn = conv.num_turns + 1;
            self.io.recorder().update(true, |r| {
                r.conversation_id = Some(id);
                r.continued_conversation = continued;
                r.conversation_turn = Some(turn);
                if !r
                    .files
                    .iter()
                    .any(|f| f.path == cache.display().to_string())
                {
                    r.files.push(agy_protocol::journal::FileRecord {
                        path: cache.display().to_string(),
                        bytes: std::fs::metadata(&cache).map(|m| m.len()).unwrap_or(0),
                    });
                }
            });
            conv.save(&self.app)?;
            self.due.owe_resume_message(conv.num_turns > 0);
            self.conversation = Some(conv);
        }
        self.conversation
            .as_mut()
            .ok_or_else(|| FakeError::Step("no conversation".into()))
    }

    /// The conversation this run works on, and whether an earlier run stored it.
    fn resolve_conversation(&mut self) -> Result<(Conversation, bool), FakeError> {
        let new_id = || uuid::Uuid::new_v4().to_string();
        let workspace = self.setup.workspace().to_string();
        if let Some(id) = self.setup.args().conversation.clone() {
            if let Some(c) = Conversation::load(&self.app, &id) {
                return Ok((c, true));
            }
            if !has(self.setup.version(), Behaviour::ResumeOnlyConversation) {
                // ≤1.1.x: a client-minted id creates the conversation (UX, 1.1.4).
                return Ok((Conversation::new(id, workspace), false));
            }
            // ≥1.2: warning and an agy-minted id (uxnan PR #255, 1.2.7).
            self.io
                .out()
                .stderr_line(&format!("warning: conversation \"{id}\" not found"));
            return Ok((Conversation::new(new_id(), workspace), false));
        }
        if self.setup.args().continue_last {
            if let Some(c) = self
                .app
                .last_conversation(self.setup.workspace())
                .and_then(|id| Conversation::load(&self.app, &id))
            {
                return Ok((c, true));
            }
        }
        Ok((Conversation::new(new_id(), workspace), false))
    }

    /// A resumed conversation's `duration_seconds`: the time since the conversation began
    /// (698 s on `kp-1.2.0-live-join-resumed`, 155 s on `jd-1.1.9-resume`), else `turn`.
    pub fn result_duration(&self, turn: f64) -> f64 {
        match &self.conversation {
            Some(c) if c.num_turns > 0 && c.started_unix_ms > 0 => {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_millis() as u64)
                    .unwrap_or(0);
                (now.saturating_sub(c.started_unix_ms) as f64 / 1000.0).max(turn)
            }
            _ => turn,
        }
    }

    /// The conversation id (creating the conversation).
    pub fn conversation_id(&mut self) -> Result<String, FakeError> {
        Ok(self.conversation()?.id.clone())
    }

    /// Hands out the next step index of the conversation.
    pub fn next_step_index(&mut self) -> Result<u64, FakeError> {
        let i = self.conversation()?.take_step();
        self.last_step_index = Some(i);
        Ok(i)
    }

    /// Opens a turn's output: `init` when not yet written, then one DONE step of
    /// `step_type` at the next index; returns the conversation id and that index.
    pub fn open_with_done_step(&mut self, step_type: StepType) -> Result<(String, u64), FakeError> {
        let id = self.conversation_id()?;
        self.ensure_init()?;
        let i = self.next_step_index()?;
        self.emit_step(StepUpdate::new(id.clone(), i, StepState::Done, step_type));
        Ok((id, i))
    }

    /// The index of the step written last (for an ACTIVE line's DONE line).
    pub fn last_step_index(&self) -> Option<u64> {
        self.last_step_index
    }

    /// The step written last (a DONE line of the same step takes its tool).
    pub fn last_step(&self) -> Option<&StepUpdate> {
        self.last_step.as_ref()
    }

    /// Writes a stream-json line that belongs to the current turn.
    pub fn turn_line(&mut self, line: String) {
        self.io.out().stdout(line.as_bytes());
        self.turn.push_line(line);
    }

    /// Writes `init` once (stream-json only).
    pub fn ensure_init(&mut self) -> Result<(), FakeError> {
        if self.init_sent || !self.is_stream() {
            return Ok(());
        }
        self.emit_init(&InitSpec::default())
    }

    /// Writes `init` (stream-json only), with overrides.
    pub fn emit_init(&mut self, spec: &InitSpec) -> Result<(), FakeError> {
        if !self.is_stream() {
            return Ok(());
        }
        self.write_init(spec)
    }

    /// `init.permission_mode`: `always-proceed` under `--dangerously-skip-permissions`,
    /// else the settings file's `toolPermission`, else `request-review`; `--mode` does
    /// not change it (docs/agy-versions.md, "Permissions").
    pub fn permission_mode(&self) -> String {
        if self.setup.args().skip_permissions {
            return "always-proceed".into();
        }
        tool_permission(&self.app.root).unwrap_or_else(|| "request-review".into())
    }

    /// `init` names the `--agent` after `cwd` (jd-1.1.8-adversarial-review,
    /// jd-1.1.9-review-stream, jd-1.1.9-unknown-agent: the requested name even when agy
    /// falls back to its default agent); a scripted `init` that orders its keys keeps
    /// them.
    fn with_agent(&self, mut init: Init, spec: &InitSpec) -> Init {
        let Some(agent) = &self.setup.args().agent else {
            return init;
        };
        if init.extra.contains_key("agent") || !spec.key_order.is_empty() {
            return init;
        }
        init.extra
            .insert("agent".into(), serde_json::Value::String(agent.clone()));
        let order = [
            "model",
            "cwd",
            "agent",
            "tools",
            "permission_mode",
            "json_schema",
        ];
        init.layout = Layout::from_keys(&order.map(String::from));
        init
    }

    /// Writes `init` in any output format (a scripted `init` step).
    pub fn write_init(&mut self, spec: &InitSpec) -> Result<(), FakeError> {
        // An init that names its conversation does not make the session pick one.
        let id = match &spec.conversation_id {
            Some(id) => id.clone(),
            None => self.conversation_id()?,
        };
        let init = Init {
            model: spec
                .model
                .clone()
                .or_else(|| self.setup.args().model.clone()),
            cwd: spec.cwd.clone().unwrap_or_else(|| {
                std::env::current_dir()
                    .map(|c| c.display().to_string())
                    .unwrap_or_default()
            }),
            tools: spec
                .tools
                .clone()
                .unwrap_or_else(|| tools_for(self.setup.version())),
            permission_mode: spec
                .permission_mode
                .clone()
                .unwrap_or_else(|| self.permission_mode()),
            json_schema: match &spec.json_schema {
                Some(doc) => Some(serde_json::Value::Object(doc.0.clone())),
                None => self.schema.as_ref().map(|s| s.document().clone()),
            },
            extra: spec.extra.clone().map(|e| e.0).unwrap_or_default(),
            layout: Layout::from_keys(&spec.key_order),
        };
        let init = self.with_agent(init, spec);
        let line = StreamEvent::Init {
            conversation_id: id,
            init,
        }
        .to_line();
        self.io.out().stdout(line.as_bytes());
        self.init_sent = true;
        Ok(())
    }

    /// Writes a `step_update` (stream-json only) and accounts its usage and text.
    pub fn emit_step(&mut self, step: StepUpdate) {
        let stream = self.is_stream();
        self.emit_step_to(step, stream);
    }

    /// Accounts a step and writes it when `write` (a scripted step is written in every
    /// output format).
    pub fn emit_step_to(&mut self, step: StepUpdate, write: bool) {
        self.turn.account(&step);
        if let Some(c) = self.conversation.as_mut() {
            c.next_step = c.next_step.max(step.step_index + 1);
        }
        self.last_step_index = Some(step.step_index);
        self.last_step = Some(step.clone());
        if write {
            self.turn_line(StreamEvent::StepUpdate(step).to_line());
        }
    }

    /// The result a default run would report for the turn so far: cumulative usage,
    /// turn count advanced.
    pub fn cumulative_usage(&self, turn: &Usage) -> Usage {
        self.conversation
            .as_ref()
            .map(|c| c.usage)
            .unwrap_or(Usage::ZERO)
            .add(turn)
    }

    /// The turn count after this turn.
    pub fn turns_after_this(&self, advance: bool) -> u64 {
        let n = self.conversation.as_ref().map(|c| c.num_turns).unwrap_or(0);
        if advance {
            n + 1
        } else {
            n
        }
    }

    /// Writes the result: the envelope (json), a `result` event (stream-json) or the
    /// response text (text). Updates the conversation and the implied exit code.
    pub fn emit_result(&mut self, env: Envelope, usage: UsageUpdate) -> Result<(), FakeError> {
        self.emit_result_as(env, usage, self.setup.format())
    }

    /// [`Session::emit_result`] in `format` whatever `--output-format` says.
    pub fn emit_result_as(
        &mut self,
        env: Envelope,
        usage: UsageUpdate,
        format: OutputFormat,
    ) -> Result<(), FakeError> {
        let mut env = env;
        if !has(self.setup.version(), Behaviour::CacheReadTokens) {
            // ua-1.0.16-print-json-ok: no `cache_read_tokens` key.
            env.usage.cache_read_absent = true;
        }
        let line = match format {
            OutputFormat::StreamJson => StreamEvent::Result(env.clone()).to_line(),
            OutputFormat::Json => env.to_line(),
            OutputFormat::Text => env.response.clone(),
        };
        if format == OutputFormat::Text {
            self.io.out().stdout(line.as_bytes());
        } else {
            self.turn_line(line.clone());
        }
        self.last_result_line = Some(line.clone());
        self.exit_code = match (&env.status, self.ending) {
            (_, Some(code)) => code,
            (Status::Error, None) => exit_code::TURN_FAILED,
            _ => exit_code::OK,
        };
        let spent = self.turn.spent();
        let turn_lines = self.turn.take_lines();
        let max_step = self.turn.max_step();
        let app = self.app.clone();
        if let Some(c) = self.conversation.as_mut() {
            if c.id == env.conversation_id {
                c.num_turns = env.num_turns;
                c.usage = match usage {
                    UsageUpdate::AddSpent => c.usage.add(&spent),
                    UsageUpdate::Cumulative => env.usage,
                };
                c.last_result_line = Some(line);
                if env.status == Status::Success {
                    c.last_turn_lines = turn_lines;
                    c.last_turn_max_step = max_step.or(c.last_turn_max_step);
                }
                c.save(&app)?;
            }
        }
        self.turn.reset_spent();
        Ok(())
    }

    /// Ends the turn with an ERROR result carrying `error` and the usage spent so far.
    pub fn emit_error_result(&mut self, id: String, error: String) -> Result<(), FakeError> {
        let spent = self.turn.spent();
        let env = Envelope {
            error,
            duration_seconds: self.turn_elapsed(),
            num_turns: self.turns_after_this(true),
            usage: self.cumulative_usage(&spent),
            ..Envelope::empty(id, Status::Error)
        };
        self.emit_result(env, UsageUpdate::AddSpent)
    }

    /// Seconds since the turn started.
    pub fn turn_elapsed(&self) -> f64 {
        self.turn.elapsed_secs()
    }

    /// Records a file written under the data dir.
    pub fn record_file(&self, path: &std::path::Path, bytes: u64) {
        self.io.recorder().file(path.display().to_string(), bytes);
    }
}
