//! The ACP journal: every JSON-RPC message the fake agent read or wrote, with times.
//!
//! A JSON-lines file named by `FAKE_AGY_ACP_JOURNAL`, one entry per message or event,
//! appended the moment it happens (one `write` of the whole line under an exclusive
//! lock). Nothing is buffered until exit, so an agent killed by SIGKILL keeps every
//! entry up to its death, and entries of several agent processes (a restart) share one
//! file in time order. The harness reads it with [`read_acp_journal`] to check which
//! methods were called and in what order.

use crate::journal::JournalError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fs;
use std::io;
use std::path::Path;

/// The entry format version.
pub const ACP_JOURNAL_VERSION: u32 = 1;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AcpDirection {
    /// Client to agent (read from stdin).
    In,
    /// Agent to client (written to stdout).
    Out,
    /// Not a message: a lifecycle event of the agent process.
    Event,
}

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AcpKind {
    /// A request (has `id` and `method`).
    Request,
    /// A notification (`method`, no `id`).
    Notification,
    /// A successful response.
    Response,
    /// An error response.
    Error,
    /// A line that is not a JSON-RPC message (kept verbatim in `text`).
    Invalid,
    /// The agent process started.
    Start,
    /// stdin reached end of file.
    StdinClosed,
    /// The agent process is about to exit, or kill itself (`text` says how).
    Exit,
    /// A line written to stderr.
    Stderr,
    /// The script rule chosen for a prompt (`text` names it).
    Rule,
}

/// One journal entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcpJournalEntry {
    /// Format version ([`ACP_JOURNAL_VERSION`]).
    pub v: u32,
    /// Agent process id.
    pub pid: u32,
    /// 0-based sequence number within the process.
    pub seq: u64,
    /// Microseconds since the Unix epoch.
    pub at_us: u64,
    /// Direction.
    pub dir: AcpDirection,
    /// Kind.
    pub kind: AcpKind,
    /// The method called; for a response, the method of the request it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The JSON-RPC id, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// `params.sessionId` of a call, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// For `session/update`: `params.update.sessionUpdate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update: Option<String>,
    /// The whole message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Value>,
    /// Free text: an invalid line, a stderr line, how the process ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl AcpJournalEntry {
    /// For a response to `session/request_permission`: the outcome chosen
    /// (`cancelled`, or the selected option id).
    pub fn permission_outcome(&self) -> Option<String> {
        if self.method.as_deref() != Some("session/request_permission")
            || self.kind != AcpKind::Response
        {
            return None;
        }
        let outcome = self.message.as_ref()?.get("result")?.get("outcome")?;
        match outcome.get("outcome")?.as_str()? {
            "selected" => outcome
                .get("optionId")
                .and_then(Value::as_str)
                .map(str::to_string),
            other => Some(other.to_string()),
        }
    }
}

/// Appends one entry as one line.
pub fn append_acp_entry(journal: &Path, entry: &AcpJournalEntry) -> io::Result<()> {
    let mut line = serde_json::to_vec(entry).map_err(io::Error::other)?;
    line.push(b'\n');
    crate::journal::append_line_locked(journal, &line)
}

/// Reads every entry in file order. A missing file reads as no entries; a torn last
/// line (a writer killed mid-write cannot happen with one `write`, but a full disk can)
/// is reported with its location.
pub fn read_acp_journal(journal: &Path) -> Result<Vec<AcpJournalEntry>, JournalError> {
    let path = journal.display().to_string();
    let text = match fs::read_to_string(journal) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(JournalError::Io { path, source }),
    };
    let mut entries = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry = serde_json::from_str(line).map_err(|e| JournalError::Invalid {
            path: path.clone(),
            line: i + 1,
            column: e.column(),
            message: e.to_string(),
        })?;
        entries.push(entry);
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(seq: u64, method: &str, message: Value) -> AcpJournalEntry {
        AcpJournalEntry {
            v: ACP_JOURNAL_VERSION,
            pid: 7,
            seq,
            at_us: 100 + seq,
            dir: AcpDirection::In,
            kind: AcpKind::Response,
            method: Some(method.into()),
            id: Some(json!(900)),
            session_id: None,
            update: None,
            message: Some(message),
            text: None,
        }
    }

    #[test]
    fn entries_read_back_in_append_order() {
        let dir = std::env::temp_dir().join(format!("acp-journal-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let path = dir.join("acp.jsonl");
        for seq in 0..3 {
            append_acp_entry(&path, &entry(seq, "x", json!({}))).expect("append");
        }
        let back = read_acp_journal(&path).expect("reads");
        assert_eq!(
            back.iter().map(|e| e.seq).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn permission_outcome_reads_cancelled_and_selected() {
        let cancelled = entry(
            0,
            "session/request_permission",
            json!({"jsonrpc":"2.0","id":900,"result":{"outcome":{"outcome":"cancelled"}}}),
        );
        assert_eq!(cancelled.permission_outcome().as_deref(), Some("cancelled"));
        let allowed = entry(
            1,
            "session/request_permission",
            json!({"jsonrpc":"2.0","id":900,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}),
        );
        assert_eq!(allowed.permission_outcome().as_deref(), Some("allow"));
        assert_eq!(
            entry(2, "session/new", json!({})).permission_outcome(),
            None
        );
    }
}
