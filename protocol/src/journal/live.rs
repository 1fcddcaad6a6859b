//! The live copy of a running invocation's record: `<journal>.live/<pid>-<started_us>.jsonl`
//! (the start time too, so a later invocation that gets a killed one's pid never
//! truncates or removes the killed one's copy), to
//! which each event is appended as one line (the record's head when a scalar field
//! changed, then each stdin line, rule, signal and file as it happens), so keeping it
//! costs the size of the event, never of the whole record. A process killed by SIGKILL
//! leaves it; [`fold_live`] rebuilds the record from it.

use super::{ChildRecord, FileRecord, JournalRecord, SignalRecord, StdinLine, StdinLog};
use serde::{Deserialize, Serialize};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// One line of a live copy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LiveEntry {
    /// The record without its lists (stdin lines, signals, files).
    Head(Box<JournalRecord>),
    /// A stdin line, with the stdin byte count when it arrived.
    StdinLine {
        /// The line.
        line: StdinLine,
        /// Bytes read so far.
        bytes: u64,
    },
    /// The rule that served stdin line `index` (1-based).
    LineRule {
        /// 1-based line index.
        index: usize,
        /// The rule.
        rule: String,
    },
    /// A signal.
    Signal(SignalRecord),
    /// A file written.
    File(FileRecord),
    /// A child process started.
    Child(ChildRecord),
}

/// The live copy's path for the invocation `pid` started at `started_us`.
pub fn live_path(journal: &Path, pid: u32, started_us: u64) -> PathBuf {
    super::live_dir(journal).join(format!("{pid}-{started_us}.jsonl"))
}

/// An open live copy: appends entries, writes the head only when it changed.
#[derive(Debug)]
pub struct LiveCopy {
    path: PathBuf,
    file: Option<File>,
    head_key: Vec<u8>,
}

impl LiveCopy {
    /// The live copy of the invocation `pid` started at `started_us`, under `journal`
    /// (created on the first write).
    pub fn new(journal: &Path, pid: u32, started_us: u64) -> LiveCopy {
        LiveCopy {
            path: live_path(journal, pid, started_us),
            file: None,
            head_key: Vec::new(),
        }
    }

    /// Appends the record's head if a field other than the byte counters changed.
    pub fn head(&mut self, record: &JournalRecord) -> io::Result<()> {
        let head = head_of(record);
        let mut key_rec = head.clone();
        key_rec.stdin.bytes = 0;
        key_rec.stdout_bytes = 0;
        key_rec.stderr_bytes = 0;
        let key = serde_json::to_vec(&key_rec).map_err(io::Error::other)?;
        if key == self.head_key {
            return Ok(());
        }
        self.append(&LiveEntry::Head(Box::new(head)))?;
        self.head_key = key;
        Ok(())
    }

    /// Appends one entry as one line, in one write.
    pub fn append(&mut self, entry: &LiveEntry) -> io::Result<()> {
        if self.file.is_none() {
            if let Some(dir) = self.path.parent() {
                fs::create_dir_all(dir)?;
            }
            self.file = Some(
                OpenOptions::new()
                    .create(true)
                    .write(true)
                    .truncate(true)
                    .open(&self.path)?,
            );
        }
        let mut line = serde_json::to_vec(entry).map_err(io::Error::other)?;
        line.push(b'\n');
        match &mut self.file {
            Some(f) => f.write_all(&line),
            None => Ok(()),
        }
    }
}

/// The record without its lists (copied field by field: cloning the lists would make
/// every event cost the whole record again).
fn head_of(r: &JournalRecord) -> JournalRecord {
    JournalRecord {
        v: r.v,
        complete: r.complete,
        invocation: r.invocation,
        pid: r.pid,
        ppid: r.ppid,
        argv: r.argv.clone(),
        cwd: r.cwd.clone(),
        env: r.env.clone(),
        mode: r.mode,
        rule: r.rule.clone(),
        conversation_id: r.conversation_id.clone(),
        continued_conversation: r.continued_conversation.clone(),
        conversation_turn: r.conversation_turn,
        children: Vec::new(),
        started_us: r.started_us,
        ended_us: r.ended_us,
        stdin: StdinLog {
            bytes: r.stdin.bytes,
            lines: Vec::new(),
            closed_us: r.stdin.closed_us,
        },
        signals: Vec::new(),
        exit: r.exit.clone(),
        files: Vec::new(),
        stdout_bytes: r.stdout_bytes,
        stderr_bytes: r.stderr_bytes,
        stdout_head: r.stdout_head.clone(),
        stderr_head: r.stderr_head.clone(),
    }
}

/// Writes `record` whole as a fresh live copy (for writers that keep no [`LiveCopy`]).
pub fn write_whole(journal: &Path, record: &JournalRecord) -> io::Result<()> {
    let dir = super::live_dir(journal);
    fs::create_dir_all(&dir)?;
    let tmp = dir.join(format!(".{}-{}.tmp", record.pid, record.started_us));
    let mut text = Vec::new();
    let mut entries = vec![LiveEntry::Head(Box::new(head_of(record)))];
    entries.extend(record.stdin.lines.iter().map(|l| LiveEntry::StdinLine {
        line: l.clone(),
        bytes: record.stdin.bytes,
    }));
    entries.extend(record.signals.iter().cloned().map(LiveEntry::Signal));
    entries.extend(record.files.iter().cloned().map(LiveEntry::File));
    entries.extend(record.children.iter().cloned().map(LiveEntry::Child));
    for e in &entries {
        text.extend(serde_json::to_vec(e).map_err(io::Error::other)?);
        text.push(b'\n');
    }
    fs::write(&tmp, text)?;
    fs::rename(&tmp, live_path(journal, record.pid, record.started_us))
}

/// Rebuilds a record from a live copy's text; a torn last line (the process died
/// while writing it) is ignored. `None` when no head was written.
pub fn fold_live(text: &str) -> Option<JournalRecord> {
    let mut record: Option<JournalRecord> = None;
    let mut lines: Vec<StdinLine> = Vec::new();
    let mut signals = Vec::new();
    let mut files = Vec::new();
    let mut children = Vec::new();
    let mut bytes = None;
    for entry in text
        .lines()
        .filter_map(|l| serde_json::from_str::<LiveEntry>(l).ok())
    {
        match entry {
            LiveEntry::Head(h) => record = Some(*h),
            LiveEntry::StdinLine { line, bytes: b } => {
                lines.push(line);
                bytes = Some(b);
            }
            LiveEntry::LineRule { index, rule } => {
                if let Some(l) = index.checked_sub(1).and_then(|i| lines.get_mut(i)) {
                    l.rule = Some(rule);
                }
            }
            LiveEntry::Signal(s) => signals.push(s),
            LiveEntry::File(f) => files.push(f),
            LiveEntry::Child(c) => children.push(c),
        }
    }
    let mut record = record?;
    record.stdin.lines = lines;
    record.stdin.bytes = record.stdin.bytes.max(bytes.unwrap_or(0));
    record.signals = signals;
    record.files = files;
    record.children = children;
    Some(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::tests::record;

    #[test]
    fn appended_events_fold_back_into_the_record_and_a_torn_line_is_ignored() {
        let dir = std::env::temp_dir().join(format!("live-copy-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let journal = dir.join("j.jsonl");
        let mut rec = record(7);
        rec.exit = None;
        rec.ended_us = None;
        rec.complete = false;
        let mut live = LiveCopy::new(&journal, 7, 9);
        live.head(&rec).expect("head");
        for i in 0..3 {
            let line = StdinLine {
                at_us: i,
                text: format!("line {i}"),
                rule: None,
            };
            rec.stdin.lines.push(line.clone());
            rec.stdin.bytes += 7;
            live.append(&LiveEntry::StdinLine {
                line,
                bytes: rec.stdin.bytes,
            })
            .expect("line");
            // The head did not change: nothing more is written.
            live.head(&rec).expect("head");
        }
        live.append(&LiveEntry::LineRule {
            index: 2,
            rule: "turn 2".into(),
        })
        .expect("rule");
        rec.stdin.lines[1].rule = Some("turn 2".into());
        let child = ChildRecord {
            pid: 4242,
            label: "run_command".into(),
            started_us: 9,
            outlives: true,
        };
        live.append(&LiveEntry::Child(child.clone()))
            .expect("child");
        rec.children.push(child);
        let mut text = fs::read_to_string(live_path(&journal, 7, 9)).expect("live copy");
        assert_eq!(text.lines().count(), 6, "{text}");
        text.push_str("{\"signal\":{\"sig");
        assert_eq!(fold_live(&text), Some(rec));
        let _ = fs::remove_dir_all(&dir);
    }
}
