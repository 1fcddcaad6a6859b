//! The agent's stdout and stderr, and the ACP journal of everything that crosses them.
//!
//! Every message goes out as one line, flushed at once; every message in or out is
//! journaled the moment it happens (`FAKE_AGY_ACP_JOURNAL`), so a killed agent keeps
//! its record.

use agent_client_protocol_schema::v1::RequestId;
use agy_protocol::acp::{
    append_acp_entry, parse_frame, render_frame, AcpDirection, AcpJournalEntry, AcpKind, Frame,
    ACP_JOURNAL_VERSION,
};
use agy_protocol::journal::now_us;
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Output and journal of one agent process. Shared with the stdin reader and the
/// signal watcher.
pub(crate) struct Wire {
    stdout: Mutex<std::io::Stdout>,
    journal: Option<PathBuf>,
    pid: u32,
    seq: AtomicU64,
    /// Methods of requests in flight, keyed by id, so responses are journaled with
    /// the method they answer: the client's requests and ours.
    from_client: Mutex<HashMap<String, String>>,
    from_agent: Mutex<HashMap<String, String>>,
    journal_failed: AtomicBool,
}

impl Wire {
    /// A wire journaling to `journal` when set.
    pub(crate) fn new(journal: Option<PathBuf>) -> Wire {
        Wire {
            stdout: Mutex::new(std::io::stdout()),
            journal,
            pid: std::process::id(),
            seq: AtomicU64::new(0),
            from_client: Mutex::new(HashMap::new()),
            from_agent: Mutex::new(HashMap::new()),
            journal_failed: AtomicBool::new(false),
        }
    }

    /// Sends a typed frame.
    pub(crate) fn send(&self, frame: &Frame) {
        self.write_line(&render_frame(frame), Some(frame));
    }

    /// Sends a JSON value as is (off-schema payloads).
    pub(crate) fn send_value(&self, value: &Value) {
        let line = value.to_string();
        let frame = parse_frame(&line).ok();
        self.write_line(&line, frame.as_ref());
    }

    /// Writes a raw line (possibly not JSON at all).
    pub(crate) fn send_raw(&self, line: &str) {
        let frame = parse_frame(line).ok();
        self.write_line(line.trim_end_matches('\n'), frame.as_ref());
    }

    fn write_line(&self, line: &str, frame: Option<&Frame>) {
        // Journal before writing: a client that reacts instantly (and a test that then
        // reads the journal) must find the entry already there.
        match frame {
            Some(f) => {
                if let Frame::Request { id, method, .. } = f {
                    lock(&self.from_agent).insert(id_key(id), method.clone());
                }
                let answered = match f {
                    Frame::Response { id, .. } => lock(&self.from_client).remove(&id_key(id)),
                    _ => None,
                };
                self.journal_frame(AcpDirection::Out, f, answered);
            }
            None => self.event(AcpDirection::Out, AcpKind::Invalid, line),
        }
        let mut out = lock(&self.stdout);
        // A client that closed our stdout is gone; there is no one left to tell.
        let _ = out.write_all(line.as_bytes());
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    }

    /// Journals a frame that arrived on stdin.
    pub(crate) fn record_in(&self, frame: &Frame) {
        if let Frame::Request { id, method, .. } = frame {
            lock(&self.from_client).insert(id_key(id), method.clone());
        }
        let answered = match frame {
            Frame::Response { id, .. } => lock(&self.from_agent).remove(&id_key(id)),
            _ => None,
        };
        self.journal_frame(AcpDirection::In, frame, answered);
    }

    /// Journals an event or a line that is not a message.
    pub(crate) fn event(&self, dir: AcpDirection, kind: AcpKind, text: &str) {
        let entry = self.entry(dir, kind);
        self.append(AcpJournalEntry {
            text: Some(text.to_string()),
            ..entry
        });
    }

    /// Writes a line to stderr and journals it.
    pub(crate) fn stderr(&self, line: &str) {
        self.event(AcpDirection::Event, AcpKind::Stderr, line);
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{line}");
    }

    fn journal_frame(&self, dir: AcpDirection, frame: &Frame, answered: Option<String>) {
        let message = frame.to_value();
        let kind = match frame {
            Frame::Request { .. } => AcpKind::Request,
            Frame::Notification { .. } => AcpKind::Notification,
            Frame::Response { outcome: Ok(_), .. } => AcpKind::Response,
            Frame::Response {
                outcome: Err(_), ..
            } => AcpKind::Error,
        };
        let params = message.get("params");
        let session_id = params
            .and_then(|p| p.get("sessionId"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let update = params
            .and_then(|p| p.get("update"))
            .and_then(|u| u.get("sessionUpdate"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let entry = self.entry(dir, kind);
        self.append(AcpJournalEntry {
            method: frame.method().map(str::to_string).or(answered),
            id: message.get("id").cloned(),
            session_id,
            update,
            message: Some(message),
            ..entry
        });
    }

    fn entry(&self, dir: AcpDirection, kind: AcpKind) -> AcpJournalEntry {
        AcpJournalEntry {
            v: ACP_JOURNAL_VERSION,
            pid: self.pid,
            seq: self.seq.fetch_add(1, Ordering::SeqCst),
            at_us: now_us(),
            dir,
            kind,
            method: None,
            id: None,
            session_id: None,
            update: None,
            message: None,
            text: None,
        }
    }

    fn append(&self, entry: AcpJournalEntry) {
        let Some(path) = &self.journal else { return };
        if let Err(e) = append_acp_entry(path, &entry) {
            if !self.journal_failed.swap(true, Ordering::SeqCst) {
                eprintln!(
                    "fake-agy-acp: failed to write journal `{}`: {e}",
                    path.display()
                );
            }
        }
    }
}

fn id_key(id: &RequestId) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
