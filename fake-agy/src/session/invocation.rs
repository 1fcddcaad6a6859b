//! The running invocation: its command line, knobs, streams, conversation and the
//! state of the current turn. Everything that writes agy output goes through here, so
//! step indices, cumulative usage and turn counts stay consistent.

mod conversation;
mod disk_state;
mod init_event;
mod output;

pub use output::UsageUpdate;

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
use crate::session::structured::Schema;
use crate::store::brain::AppDir;
use crate::store::conversation::Conversation;
use agy_protocol::script::ModelTurn;
use agy_protocol::stream::StepUpdate;
use std::sync::Arc;

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
    /// The script writes `--log-file` itself ([`Session::leave_log_to_script`]).
    script_logs: bool,
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
            script_logs: false,
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

    /// Seconds since the turn started.
    pub fn turn_elapsed(&self) -> f64 {
        self.turn.elapsed_secs()
    }

    /// Records a file written under the data dir.
    pub fn record_file(&self, path: &std::path::Path, bytes: u64) {
        self.io.recorder().file(path.display().to_string(), bytes);
    }
}
