//! What a run leaves in agy's data directory besides the brain folder and the cache
//! (docs/fake-agy.md, "Files on disk"): the conversation's store (`.db` from 1.0.4,
//! `.pb` before), its row in the catalogue `conversation_summaries.db`, its transcript in
//! the brain folder, and agy's log lines about the sign-in and the conversation.

use super::Session;
use crate::error::FakeError;
use crate::store::agy_log::{append_events, LogEvent};
use crate::store::conversation_db::{create, record_steps};
use crate::store::summaries::{record_summary, Summary};
use crate::store::transcript::{append_turn, now_in_seconds};
use agy_protocol::agy_log::sign_in_events;
use agy_protocol::script::RunMode;
use std::path::Path;

impl Session {
    /// Leaves `--log-file` to the script: an invocation whose rule writes the log
    /// (`log` steps, a converted capture) gets no lines of the fake's own.
    pub fn leave_log_to_script(&mut self) {
        self.script_logs = true;
    }

    /// Lays down conversation `id` as the run starts on it: its store, its catalogue
    /// row, and the log lines (`stored`: an earlier run kept the conversation).
    pub(super) fn record_conversation_start(
        &mut self,
        id: &str,
        stored: bool,
        step_count: u64,
    ) -> Result<(), FakeError> {
        let with_db = self.writes_database();
        let store = create(&self.app, id, with_db)?;
        self.record_file_once(&store);
        if with_db {
            let summary = Summary {
                id,
                workspace: self.setup.workspace(),
                steps: &[],
                step_count,
            };
            record_summary(&self.app, &summary)?;
        }
        self.log_conversation(id, stored)
    }

    /// `Created conversation` for a new one; in print mode `Print mode: resuming
    /// conversation` for a stored one, then `Print mode: conversation=…, sending
    /// message`. A persistent session continuing a stored conversation logs nothing
    /// the record shows.
    fn log_conversation(&mut self, id: &str, stored: bool) -> Result<(), FakeError> {
        if self.script_logs {
            return Ok(());
        }
        let print = matches!(
            self.setup.mode(),
            RunMode::Text | RunMode::Json | RunMode::StreamJson
        );
        let mut events = Vec::new();
        if !stored {
            events.push(LogEvent::Created(id));
        } else if print {
            events.push(LogEvent::Resuming(id));
        }
        if print {
            events.push(LogEvent::Sending(id));
        }
        if events.is_empty() {
            return Ok(());
        }
        let log_file = self.setup.args().log_file.clone();
        let path = append_events(&self.app, log_file.as_deref(), &events)?;
        self.record_file_once(&path);
        Ok(())
    }

    /// A signed-in turn invocation's sign-in lines, before anything else it logs: the
    /// applied result and the success naming the account, and in print mode the silent
    /// sign-in (docs/agy-reference.md §5).
    pub fn log_sign_in(&mut self) -> Result<(), FakeError> {
        if self.script_logs {
            return Ok(());
        }
        let print = matches!(
            self.setup.mode(),
            RunMode::Text | RunMode::Json | RunMode::StreamJson
        );
        let events = sign_in_events(print);
        let log_file = self.setup.args().log_file.clone();
        let path = append_events(&self.app, log_file.as_deref(), &events)?;
        self.record_file_once(&path);
        Ok(())
    }

    /// Writes the finished turn's steps into the conversation's transcript and its
    /// database, and updates its catalogue row (the database from 1.0.4; the `.pb`
    /// file before stays as it is).
    pub(super) fn record_turn_steps(&mut self) -> Result<(), FakeError> {
        let prompt = self.turn.prompt().to_owned();
        let steps = self.turn.take_steps();
        let Some(c) = self.conversation.as_ref() else {
            return Ok(());
        };
        if steps.is_empty() {
            return Ok(());
        }
        let (id, workspace, step_count) = (c.id.clone(), c.workspace.clone(), c.next_step);
        for path in append_turn(&self.app, &id, &prompt, &steps, &now_in_seconds())? {
            self.record_file_once(&path);
        }
        if !self.writes_database() {
            return Ok(());
        }
        record_steps(&self.app, &id, &steps)?;
        let summary = Summary {
            id: &id,
            workspace: &workspace,
            steps: &steps,
            step_count,
        };
        record_summary(&self.app, &summary)
    }

    /// True when each conversation is a SQLite database (`conversations/{id}.db`), not
    /// a protobuf file (`.pb`).
    fn writes_database(&self) -> bool {
        self.setup.calibration().files.conversation.ends_with(".db")
    }

    /// Records a file in the journal unless it is there already.
    fn record_file_once(&self, path: &Path) {
        let name = path.display().to_string();
        let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let mut known = false;
        self.io.recorder().update(false, |r| {
            known = r.files.iter().any(|f| f.path == name);
        });
        if !known {
            self.io.recorder().file(name, bytes);
        }
    }
}
