//! A conversation's own store, as agy keeps it (docs/agy-reference.md §5): from 1.0.4
//! the SQLite database `conversations/<id>.db` in WAL mode with the tables AX documents,
//! one `steps` row per step; before, the single protobuf file `conversations/<id>.pb`.
//!
//! What the record shows is filled: each step's `idx`, its `step_type` and `status`
//! codes (AX's decoded enums), the trajectory's row in `trajectory_meta`, and an
//! answer's text in its `step_payload` where a published reader looks for it
//! (**unverified**). The other blobs (`metadata`, `render_info`, `gen_metadata`, …)
//! are protobuf messages whose schema is not public: their rows and columns stay empty.

use crate::error::FakeError;
use crate::store::brain::{write_file, AppDir};
use agy_protocol::app_files::CONVERSATIONS_DIR;
use agy_protocol::stream::{StepState, StepType, StepUpdate};
use rusqlite::{params, Connection};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The per-conversation schema, as AX's `docs/database_architecture.md` gives it.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS `trajectory_meta` (
    `trajectory_id` TEXT, `cascade_id` TEXT, `trajectory_type` INTEGER, `source` INTEGER,
    PRIMARY KEY (`trajectory_id`));
CREATE TABLE IF NOT EXISTS `steps` (
    `idx` INTEGER,
    `step_type` INTEGER NOT NULL DEFAULT 0,
    `status` INTEGER NOT NULL DEFAULT 0,
    `has_subtrajectory` NUMERIC NOT NULL DEFAULT false,
    `metadata` BLOB, `error_details` BLOB, `permissions` BLOB, `task_details` BLOB,
    `render_info` BLOB, `step_payload` BLOB,
    `step_format` INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (`idx`));
CREATE INDEX IF NOT EXISTS `idx_steps_status` ON `steps`(`status`);
CREATE INDEX IF NOT EXISTS `idx_steps_step_type` ON `steps`(`step_type`);
CREATE TABLE IF NOT EXISTS `trajectory_metadata_blob` (
    `id` TEXT DEFAULT \"main\", `data` BLOB, PRIMARY KEY (`id`));
CREATE TABLE IF NOT EXISTS `gen_metadata` (
    `idx` INTEGER, `data` BLOB, `size` INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (`idx`));
CREATE TABLE IF NOT EXISTS `executor_metadata` (
    `idx` INTEGER, `data` BLOB, PRIMARY KEY (`idx`));
CREATE TABLE IF NOT EXISTS `parent_references` (
    `idx` INTEGER, `data` BLOB, PRIMARY KEY (`idx`));
CREATE TABLE IF NOT EXISTS `battle_mode_infos` (
    `idx` INTEGER, `data` BLOB, PRIMARY KEY (`idx`));
";

/// `trajectory_meta.trajectory_type` of a CLI agent trajectory (AX: 4).
const TRAJECTORY_TYPE_AGENT: i64 = 4;
/// `trajectory_meta.source` of the CLI's runner (AX: 17).
const SOURCE_CLI: i64 = 17;
/// `PRAGMA user_version` of a conversation database (AX: 1).
const USER_VERSION: i64 = 1;
/// How long a writer waits for another process's lock before failing.
pub(crate) const BUSY_WAIT: Duration = Duration::from_secs(10);

/// One row of `steps`: the step's latest state in the turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepRow {
    /// The step's index (`step_index`).
    pub idx: u64,
    /// `step_type` (AX's codes; 0 where the record has none).
    pub step_type: i64,
    /// `status` (AX's codes).
    pub status: i64,
    /// The text an `agent_response` streamed.
    pub text: String,
}

impl StepRow {
    /// The row of a step first written as `step`.
    pub fn of(step: &StepUpdate) -> StepRow {
        let mut row = StepRow {
            idx: step.step_index,
            step_type: step_type_code(step),
            status: 0,
            text: String::new(),
        };
        row.absorb(step);
        row
    }

    /// Takes a later update of the same step: its state, and its text chunk.
    pub fn absorb(&mut self, step: &StepUpdate) {
        self.status = status_code(&step.state);
        if let Some(t) = &step.text_delta {
            self.text.push_str(t);
        }
    }

    /// True for a user's line (what `conversation_summaries` points at).
    pub fn is_user_input(&self) -> bool {
        self.step_type == USER_INPUT
    }

    /// True for a model's answer (`agent_response`).
    pub fn is_planner_response(&self) -> bool {
        self.step_type == PLANNER_RESPONSE
    }
}

const USER_INPUT: i64 = 14;
const PLANNER_RESPONSE: i64 = 15;

/// AX's `step_type` code of a step: the tool's code for a tool step, else the step
/// type's; 0 for a type AX did not decode (`checkpoint`, `generate_image`, …).
fn step_type_code(step: &StepUpdate) -> i64 {
    let tool = step.tool_name.as_deref().unwrap_or_default();
    let by_tool = match tool {
        "write_to_file" => 5,
        "grep_search" => 7,
        "view_file" => 8,
        "list_dir" => 9,
        "run_command" => 21,
        "manage_task" => 28,
        "read_url_content" => 31,
        "search_web" => 33,
        "list_permissions" => 132,
        "ask_question" => 138,
        "invoke_subagent" => 139,
        _ => 0,
    };
    if by_tool != 0 {
        return by_tool;
    }
    match &step.step_type {
        StepType::UserInput => USER_INPUT,
        StepType::AgentResponse => PLANNER_RESPONSE,
        StepType::SystemMessage => 101,
        _ => 0,
    }
}

/// AX's `status` code of a step state: RUNNING 2, COMPLETED 3, ERROR 6.
fn status_code(state: &StepState) -> i64 {
    match state {
        StepState::Active => 2,
        StepState::Done => 3,
        StepState::Error => 6,
        _ => 0,
    }
}

/// `conversations/<id>.db`.
pub fn db_path(app: &AppDir, id: &str) -> PathBuf {
    app.root.join(CONVERSATIONS_DIR).join(format!("{id}.db"))
}

/// `conversations/<id>.pb`.
pub fn pb_path(app: &AppDir, id: &str) -> PathBuf {
    app.root.join(CONVERSATIONS_DIR).join(format!("{id}.pb"))
}

/// Opens (creating) an agy SQLite database in WAL mode at `path`, with `schema` and
/// `user_version`. The fake needs no durability: `synchronous` is off before the first
/// write, so no commit (not even the switch to WAL) waits for the disk. A database that
/// already has `user_version` is set up and only opened.
pub(crate) fn open(path: &Path, schema: &str, user_version: i64) -> Result<Connection, FakeError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| FakeError::io("create dir", dir, e))?;
    }
    let fail = |action| FakeError::database(action, path);
    let conn = Connection::open(path).map_err(fail("open the database"))?;
    conn.busy_timeout(BUSY_WAIT)
        .map_err(fail("set the busy timeout of"))?;
    conn.pragma_update(None, "synchronous", "OFF")
        .map_err(fail("set `synchronous` on"))?;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(fail("read `user_version` of"))?;
    if version == user_version {
        return Ok(conn);
    }
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))
        .map_err(fail("switch to WAL mode"))?;
    conn.execute_batch(schema)
        .map_err(fail("create the tables of"))?;
    conn.pragma_update(None, "user_version", user_version)
        .map_err(fail("set `user_version` on"))?;
    Ok(conn)
}

/// Creates conversation `id`'s store if it has none: the database with its trajectory
/// row from 1.0.4 (`with_database`), else the `.pb` file, empty (an empty protobuf
/// message; what agy wrote in it is not public). Returns the file.
pub fn create(app: &AppDir, id: &str, with_database: bool) -> Result<PathBuf, FakeError> {
    if !with_database {
        let path = pb_path(app, id);
        if !path.exists() {
            write_file(&path, b"")?;
        }
        return Ok(path);
    }
    let path = db_path(app, id);
    let conn = open(&path, SCHEMA, USER_VERSION)?;
    let known: i64 = conn
        .query_row("SELECT count(*) FROM trajectory_meta", [], |r| r.get(0))
        .map_err(FakeError::database("read `trajectory_meta` of", &path))?;
    if known == 0 {
        conn.execute(
            "INSERT INTO trajectory_meta (trajectory_id, cascade_id, trajectory_type, source) VALUES (?1, ?2, ?3, ?4)",
            params![uuid::Uuid::new_v4().to_string(), id, TRAJECTORY_TYPE_AGENT, SOURCE_CLI],
        )
        .map_err(FakeError::database("write `trajectory_meta` of", &path))?;
    }
    Ok(path)
}

/// Writes a turn's steps into conversation `id`'s database, one row per step (a step
/// written again replaces its row).
pub fn record_steps(app: &AppDir, id: &str, steps: &[StepRow]) -> Result<(), FakeError> {
    let path = db_path(app, id);
    let mut conn = open(&path, SCHEMA, USER_VERSION)?;
    let fail = |action| FakeError::database(action, &path);
    let tx = conn.transaction().map_err(fail("begin a write to"))?;
    for row in steps {
        let payload = (row.step_type == PLANNER_RESPONSE && !row.text.is_empty())
            .then(|| answer_payload(&row.text));
        tx.execute(
            "INSERT OR REPLACE INTO steps (idx, step_type, status, step_payload) VALUES (?1, ?2, ?3, ?4)",
            params![row.idx as i64, row.step_type, row.status, payload],
        )
        .map_err(fail("write `steps` of"))?;
    }
    tx.commit().map_err(fail("commit a write to"))
}

/// An answer's `step_payload`: the text in field 1 of the message in field 20, where a
/// published bridge reads agy's reply (its comment: verified on 1.0.10 databases; the
/// rest of the message is not public, **unverified**). Protobuf's wire format: each
/// field is its tag (number << 3 | 2 for bytes) and its length as varints, then bytes.
fn answer_payload(text: &str) -> Vec<u8> {
    let mut inner = Vec::new();
    length_delimited(1, text.as_bytes(), &mut inner);
    let mut outer = Vec::new();
    length_delimited(20, &inner, &mut outer);
    outer
}

fn length_delimited(field: u64, bytes: &[u8], out: &mut Vec<u8>) {
    varint(field << 3 | 2, out);
    varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_payload_is_field_20_holding_field_1() {
        // 20 << 3 | 2 = 162 = varint a2 01; 1 << 3 | 2 = 0x0a.
        assert_eq!(
            answer_payload("hi"),
            vec![0xa2, 0x01, 4, 0x0a, 2, b'h', b'i']
        );
        let long = "x".repeat(200);
        let p = answer_payload(&long);
        // Inner length 200 = varint c8 01; outer length 203.
        assert_eq!(&p[..7], &[0xa2, 0x01, 0xcb, 0x01, 0x0a, 0xc8, 0x01]);
    }
}
