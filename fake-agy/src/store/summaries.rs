//! `conversation_summaries.db`: agy's global SQLite catalogue of conversations, one row
//! per conversation keyed by `conversation_id` (docs/agy-reference.md §5, AX). The fake
//! fills what it knows: the step count, the workspace as a `file://` URI, the times, the
//! last user input's step index and the data directory's name. `title`, `preview` (a
//! summary the model writes) and `raw_summary` stay empty.

use crate::error::FakeError;
use crate::store::brain::AppDir;
use crate::store::conversation_db::{open, StepRow};
use agy_protocol::app_files::SUMMARIES_DB;
use rusqlite::params;
use std::path::PathBuf;

/// The catalogue's schema, as AX gives it.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS `conversation_summaries` (
    `conversation_id` TEXT,
    `title` TEXT NOT NULL DEFAULT \"\",
    `preview` TEXT NOT NULL DEFAULT \"\",
    `step_count` INTEGER NOT NULL DEFAULT 0,
    `last_modified_time` DATETIME NOT NULL,
    `workspace_uris` TEXT NOT NULL,
    `status` TEXT NOT NULL DEFAULT \"\",
    `source` TEXT NOT NULL DEFAULT \"\",
    `project_id` TEXT NOT NULL DEFAULT \"\",
    `agent_name` TEXT NOT NULL DEFAULT \"\",
    `parent_conversation_id` TEXT NOT NULL DEFAULT \"\",
    `nesting_depth` INTEGER NOT NULL DEFAULT 0,
    `battle_id` TEXT NOT NULL DEFAULT \"\",
    `winning_conversation_id` TEXT NOT NULL DEFAULT \"\",
    `not_fully_idle` NUMERIC NOT NULL DEFAULT false,
    `killed` NUMERIC NOT NULL DEFAULT false,
    `last_user_input_time` DATETIME NOT NULL,
    `last_user_input_step_index` INTEGER NOT NULL DEFAULT -1,
    `app_data_dir` TEXT NOT NULL DEFAULT \"\",
    `raw_summary` BLOB,
    `group_id` TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (`conversation_id`));
CREATE INDEX IF NOT EXISTS `idx_conversation_summaries_last_user_input_time`
    ON `conversation_summaries`(`last_user_input_time`);
CREATE INDEX IF NOT EXISTS `idx_conversation_summaries_last_modified_time`
    ON `conversation_summaries`(`last_modified_time`);
";

/// `PRAGMA user_version` of the catalogue (AX: 3).
const USER_VERSION: i64 = 3;

/// What the catalogue learns of a conversation.
#[derive(Debug, Clone)]
pub struct Summary<'a> {
    /// Its id.
    pub id: &'a str,
    /// Its workspace (an absolute path).
    pub workspace: &'a str,
    /// The steps of the turn just finished (none when the conversation only began).
    pub steps: &'a [StepRow],
    /// The conversation's step count so far.
    pub step_count: u64,
}

/// `<app dir>/conversation_summaries.db`.
pub fn summaries_path(app: &AppDir) -> PathBuf {
    app.root.join(SUMMARIES_DB)
}

/// Adds or updates the conversation's row.
pub fn record_summary(app: &AppDir, s: &Summary<'_>) -> Result<(), FakeError> {
    let path = summaries_path(app);
    let conn = open(&path, SCHEMA, USER_VERSION)?;
    let now = now_rfc3339();
    let uris = serde_json::json!([format!("file://{}", s.workspace)]).to_string();
    let last_input = s
        .steps
        .iter()
        .filter(|r| r.is_user_input())
        .map(|r| r.idx as i64)
        .max();
    conn.execute(
        "INSERT INTO conversation_summaries (conversation_id, step_count, last_modified_time,
             workspace_uris, last_user_input_time, last_user_input_step_index, app_data_dir)
         VALUES (?1, ?2, ?3, ?4, ?3, ?5, ?6)
         ON CONFLICT(conversation_id) DO UPDATE SET
             step_count = excluded.step_count,
             last_modified_time = excluded.last_modified_time,
             last_user_input_time = CASE WHEN ?5 >= 0 THEN excluded.last_user_input_time
                                         ELSE last_user_input_time END,
             last_user_input_step_index = max(last_user_input_step_index, ?5)",
        params![
            s.id,
            s.step_count as i64,
            now,
            uris,
            last_input.unwrap_or(-1),
            app_dir_name(app),
        ],
    )
    .map_err(FakeError::database(
        "write `conversation_summaries` of",
        &path,
    ))?;
    Ok(())
}

/// The data directory's own name (AX: typically `antigravity-cli`).
fn app_dir_name(app: &AppDir) -> String {
    app.root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Now as RFC 3339 in UTC (AX: "ISO 8601 UTC"; the exact text agy stores is
/// **unverified**).
fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}
