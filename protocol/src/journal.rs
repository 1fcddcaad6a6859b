//! The journal: what fake-agy saw, one JSON record per invocation.
//!
//! A journal is a JSON-lines file (`FAKE_AGY_JOURNAL`). Each invocation appends its
//! record once, under an exclusive lock, when it ends. While it runs, it keeps a live
//! copy in `<journal>.live/<pid>-<started_us>.jsonl` (each event appended, [`live`]), so a process
//! killed by SIGKILL, which cannot write anything, still leaves what it saw:
//! [`read_journal`] returns such a record with `complete: false`.

use crate::command_line::{invocation_kind, InvocationKind};
use crate::env::{
    FAKE_AGY_SCRIPT, FAKE_AGY_SCRIPT_TABLE, FAKE_AGY_STATE_DIR, FAKE_AGY_TIME_SCALE,
    FAKE_AGY_VERSION,
};
pub mod live;

use crate::script::RunMode;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The record format version.
pub const JOURNAL_VERSION: u32 = 1;

/// Environment variables a record keeps (others are not recorded).
pub const JOURNALED_ENV: &[&str] = &[
    "HOME",
    "PATH",
    "CI",
    "ANTIGRAVITY_APP_DATA_DIR",
    "GEMINI_API_KEY",
    FAKE_AGY_SCRIPT,
    FAKE_AGY_SCRIPT_TABLE,
    FAKE_AGY_VERSION,
    FAKE_AGY_TIME_SCALE,
    FAKE_AGY_STATE_DIR,
];

/// What one agy invocation saw and did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalRecord {
    /// Format version ([`JOURNAL_VERSION`]).
    pub v: u32,
    /// False when the process never wrote its final record (killed, or still running).
    pub complete: bool,
    /// 1-based index of this invocation within the scenario's state dir.
    pub invocation: u32,
    /// Process id.
    pub pid: u32,
    /// Parent process id.
    pub ppid: u32,
    /// Full argv, `argv[0]` included.
    pub argv: Vec<String>,
    /// Working directory.
    pub cwd: String,
    /// The [`JOURNALED_ENV`] variables that were set.
    pub env: BTreeMap<String, String>,
    /// How agy was asked to run, once the command line parsed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<RunMode>,
    /// The script rule that was chosen (its name, or `invocation N`), or `default`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The conversation the run worked on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// The conversation this run continued (`--conversation`, `-c`): set when it was
    /// one an earlier run had stored, so "the second ask continued the first's
    /// conversation" reads as this field equal to the first record's `conversation_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continued_conversation: Option<String>,
    /// The number its first turn had within the conversation (1 for a new one, 2 for
    /// the first turn that continued a conversation of one turn, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_turn: Option<u64>,
    /// Child processes the run started (scripted tool runs), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<ChildRecord>,
    /// Start, microseconds since the Unix epoch.
    pub started_us: u64,
    /// End, microseconds since the Unix epoch (`None` while running or when killed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_us: Option<u64>,
    /// What arrived on stdin.
    pub stdin: StdinLog,
    /// Signals received, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signals: Vec<SignalRecord>,
    /// How the process ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitRecord>,
    /// Files written under HOME (brain dir, cache).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileRecord>,
    /// Bytes written to stdout.
    pub stdout_bytes: u64,
    /// Bytes written to stderr.
    pub stderr_bytes: u64,
    /// The first [`OUTPUT_HEAD_BYTES`] of stdout (lossy UTF-8): what reports quote of
    /// what agy printed (a probe's help text, the start of an envelope).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stdout_head: String,
    /// The first [`OUTPUT_HEAD_BYTES`] of stderr (lossy UTF-8): the `[agy] print timeout …`
    /// notice, a TUI's `could not open TTY`, quoted by reports.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr_head: String,
}

/// How much of each output stream a record keeps as text ([`JournalRecord::stdout_head`],
/// [`JournalRecord::stderr_head`]).
pub const OUTPUT_HEAD_BYTES: usize = 2048;

/// Appends `bytes` (written to a stream) to that stream's `head` while it holds fewer
/// than [`OUTPUT_HEAD_BYTES`]; bytes that are not UTF-8 become U+FFFD.
pub fn append_head(head: &mut String, bytes: &[u8]) {
    let room = OUTPUT_HEAD_BYTES.saturating_sub(head.len());
    if room == 0 || bytes.is_empty() {
        return;
    }
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(room)]);
    // U+FFFD takes three bytes where the bad byte took one: cut at a character.
    let mut end = text.len().min(room);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    head.push_str(&text[..end]);
}

impl JournalRecord {
    /// Whether this invocation ran a turn or only probed agy, read from its argv the way
    /// agy's parser reads it (so live-wrapper records, which carry no `mode`, classify too).
    /// An idle start (see [`JournalRecord::is_idle_start`]) ran no turn: a probe.
    pub fn kind(&self) -> InvocationKind {
        match invocation_kind(&self.argv) {
            InvocationKind::Turn if self.is_idle_start() => InvocationKind::Probe,
            kind => kind,
        }
    }

    /// A persistent stream-json process whose stdin reached its end before any line
    /// came: started to see that agy starts (or to warm up) and closed, with no turn.
    /// One that ended by itself before reading stdin (an error at start-up) is not.
    pub fn is_idle_start(&self) -> bool {
        self.stdin.lines.is_empty() && self.stdin.closed_us.is_some() && self.is_persistent()
    }

    /// Whether the invocation has begun a model turn: a turn invocation, but not a
    /// persistent stream-json process that is still waiting for its first stdin line (an
    /// adapter's warm-up or `init` read, which may later get a turn or be closed idle).
    /// What a scenario's `wait_for_agy` counts, so an op meant for a running turn is
    /// not sent while only an idle process exists.
    pub fn has_begun_turn(&self) -> bool {
        self.kind() == InvocationKind::Turn && !self.awaits_first_line()
    }

    /// A persistent stream-json process that has read no stdin line, whose stdin is
    /// still open and that has not ended.
    fn awaits_first_line(&self) -> bool {
        self.stdin.lines.is_empty()
            && self.stdin.closed_us.is_none()
            && self.exit.is_none()
            && self.is_persistent()
    }

    /// Whether the argv asks for a persistent stream-json process, read the way agy's
    /// parser reads it (live-wrapper records carry no `mode`).
    fn is_persistent(&self) -> bool {
        crate::command_line::parse_args(self.argv.get(1..).unwrap_or_default())
            .is_ok_and(|a| a.run_mode() == RunMode::Persistent)
    }

    /// Redacts everything in the record that a live run's user or account could
    /// appear in: argv, cwd, environment values, stdin lines and file paths.
    pub fn redact(&mut self, redactor: &crate::redact::Redactor) {
        let r = |s: &mut String| *s = redactor.redact(s);
        self.argv.iter_mut().for_each(r);
        r(&mut self.cwd);
        self.env = redactor.redact_env(&self.env);
        self.stdin.lines.iter_mut().for_each(|l| r(&mut l.text));
        self.files.iter_mut().for_each(|f| r(&mut f.path));
    }
}

/// A child process a run started in its own process group (a scripted tool run: a
/// shell command, an MCP server), so a judge can name what an adapter left behind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChildRecord {
    /// Its process id.
    pub pid: u32,
    /// What it stands for (the tool or label the script gave).
    pub label: String,
    /// When it started, microseconds since the Unix epoch.
    pub started_us: u64,
    /// True when the script lets it outlive the run (a backgrounded command, an MCP
    /// server); otherwise the run ends it when its turn ends.
    pub outlives: bool,
}

/// stdin as fake-agy read it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StdinLog {
    /// Total bytes read.
    pub bytes: u64,
    /// Lines, with arrival times (persistent mode).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<StdinLine>,
    /// When EOF was seen, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_us: Option<u64>,
}

/// One stdin line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StdinLine {
    /// Arrival, microseconds since the Unix epoch.
    pub at_us: u64,
    /// The line without its newline (a UTF-8 line: one that is not is never journalled
    /// as converted text).
    pub text: String,
    /// The turn rule chosen for it, when it ran as a turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

/// One signal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignalRecord {
    /// `SIGTERM`, `SIGINT`, `SIGHUP`, …
    pub signal: String,
    /// Arrival, microseconds since the Unix epoch.
    pub at_us: u64,
}

/// How the process ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitRecord {
    /// Exit code, when it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    /// The signal it died by, when it crashed on purpose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
}

/// One file written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// Absolute path.
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
}

/// Microseconds since the Unix epoch, now.
pub fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0)
}

/// The folder holding live records of `journal`.
pub fn live_dir(journal: &Path) -> PathBuf {
    let mut name = journal.as_os_str().to_owned();
    name.push(".live");
    PathBuf::from(name)
}

/// Replaces the live copy of `record` whole (write to a temp file, then rename): for
/// writers with few events; a long-running writer keeps a [`live::LiveCopy`].
pub fn write_live(journal: &Path, record: &JournalRecord) -> io::Result<()> {
    live::write_whole(journal, record)
}

/// Appends the final record as one line, under an exclusive lock, then removes the
/// live copy.
pub fn append_final(journal: &Path, record: &JournalRecord) -> io::Result<()> {
    let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
    line.push(b'\n');
    append_line_locked(journal, &line)?;
    let _ = fs::remove_file(live::live_path(journal, record.pid, record.started_us));
    Ok(())
}

/// Appends one whole line to `path` (creating it and its folder), under an exclusive
/// lock and in one write call: with O_APPEND and the lock held, lines of concurrent
/// writers never interleave.
pub fn append_line_locked(path: &Path, line: &[u8]) -> io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)?;
    }
    let mut f = OpenOptions::new().create(true).append(true).open(path)?;
    f.lock()?;
    let result = f.write_all(line);
    let _ = f.unlock();
    result
}

/// Why a journal could not be read.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// I/O.
    #[error("failed to read journal `{path}`: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: io::Error,
    },
    /// A line that is not a record.
    #[error("{path}:{line}:{column}: journal record is not valid: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What serde said.
        message: String,
    },
}

/// Reads every record: the final ones in append order, then the live copies of
/// invocations that never finished (`complete: false`), ordered by start time.
///
/// The writers run while this reads, so it reads what their protocol allows to be
/// seen: a last line without its newline is a final record still being appended, not
/// yet a record; a live copy removed between listing and reading has ended. The live
/// copies are read before the final records, so an invocation that ends meanwhile
/// (final record appended, then live copy removed) is seen once, as one or the other,
/// and never missed.
pub fn read_journal(journal: &Path) -> Result<Vec<JournalRecord>, JournalError> {
    let mut live = read_live_copies(journal);
    let mut records = read_final_records(journal)?;
    // A pid whose final record exists already finished; its live copy is only a
    // leftover of the moment between append and removal.
    live.retain(|l| {
        !records
            .iter()
            .any(|r| r.pid == l.pid && r.started_us == l.started_us)
    });
    live.sort_by_key(|r| r.started_us);
    records.extend(live);
    Ok(records)
}

/// The final records, in append order; a missing journal has none.
fn read_final_records(journal: &Path) -> Result<Vec<JournalRecord>, JournalError> {
    let path = journal.display().to_string();
    let bytes = match fs::read(journal) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(JournalError::Io { path, source }),
    };
    let mut records = Vec::new();
    for (i, line) in complete_lines(&bytes).split(|b| *b == b'\n').enumerate() {
        if line.trim_ascii().is_empty() {
            continue;
        }
        let rec: JournalRecord =
            serde_json::from_slice(line).map_err(|e| JournalError::Invalid {
                path: path.clone(),
                line: i + 1,
                column: e.column(),
                message: e.to_string(),
            })?;
        records.push(rec);
    }
    Ok(records)
}

/// The live copies' records (`complete: false`), in no order: a copy that vanished
/// or cannot be read has no record.
fn read_live_copies(journal: &Path) -> Vec<JournalRecord> {
    let Ok(entries) = fs::read_dir(live_dir(journal)) else {
        return Vec::new();
    };
    let mut live = Vec::new();
    for entry in entries.flatten() {
        let p = entry.path();
        if p.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        let Ok(bytes) = fs::read(&p) else {
            continue;
        };
        if let Some(mut rec) = live::fold_live(&String::from_utf8_lossy(complete_lines(&bytes))) {
            rec.complete = false;
            live.push(rec);
        }
    }
    live
}

/// The lines of `bytes` that a writer has finished: everything up to the last newline
/// (a line is written with its newline in one write call, so bytes after the last
/// newline are a line still being written).
fn complete_lines(bytes: &[u8]) -> &[u8] {
    match bytes.iter().rposition(|b| *b == b'\n') {
        Some(end) => &bytes[..end],
        None => &[],
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn record(pid: u32) -> JournalRecord {
        JournalRecord {
            v: JOURNAL_VERSION,
            complete: true,
            invocation: 1,
            pid,
            ppid: 1,
            argv: vec!["agy".into(), "-p".into(), "hi".into()],
            cwd: "/".into(),
            env: BTreeMap::new(),
            mode: Some(RunMode::Json),
            rule: None,
            conversation_id: None,
            continued_conversation: None,
            conversation_turn: None,
            children: Vec::new(),
            started_us: 10,
            ended_us: Some(20),
            stdin: StdinLog::default(),
            signals: Vec::new(),
            exit: Some(ExitRecord {
                code: Some(0),
                signal: None,
            }),
            files: Vec::new(),
            stdout_bytes: 0,
            stderr_bytes: 0,
            stdout_head: String::new(),
            stderr_head: String::new(),
        }
    }

    #[test]
    fn an_output_head_keeps_the_first_bytes_under_its_bound() {
        let mut head = String::new();
        append_head(&mut head, b"[agy] print timeout after 1s\n");
        append_head(&mut head, &vec![b'x'; 3 * OUTPUT_HEAD_BYTES]);
        append_head(&mut head, b"never kept");
        assert!(
            head.starts_with("[agy] print timeout after 1s\nxx"),
            "{head}"
        );
        assert_eq!(head.len(), OUTPUT_HEAD_BYTES);
        let mut bad = "a".repeat(OUTPUT_HEAD_BYTES - 2);
        append_head(&mut bad, b"\xff\xff\xff");
        assert!(bad.len() <= OUTPUT_HEAD_BYTES, "{}", bad.len());
    }

    #[test]
    fn a_killed_invocations_live_record_survives_a_later_one_with_its_pid() {
        // A SIGKILLed invocation leaves only its live copy; a later invocation in the
        // same sandbox that gets the same pid must neither truncate nor remove it.
        let dir = tempfile::tempdir().expect("dir");
        let journal = dir.path().join("journal.jsonl");
        let mut killed = record(42);
        (killed.complete, killed.exit, killed.ended_us) = (false, None, None);
        let mut copy = live::LiveCopy::new(&journal, killed.pid, killed.started_us);
        copy.head(&killed).expect("head");
        let mut later = record(42);
        later.started_us = 30;
        let mut again = live::LiveCopy::new(&journal, later.pid, later.started_us);
        again.head(&later).expect("head");
        append_final(&journal, &later).expect("final");
        let read = read_journal(&journal).expect("read");
        let starts: Vec<(u64, bool)> = read.iter().map(|r| (r.started_us, r.complete)).collect();
        assert!(
            starts.contains(&(10, false)),
            "the killed one is lost: {starts:?}"
        );
        assert!(starts.contains(&(30, true)), "{starts:?}");
    }

    /// A record of a persistent stream-json process (`pid`), ended as `record`'s is.
    fn persistent_record(pid: u32) -> JournalRecord {
        let mut r = record(pid);
        r.argv = [
            "agy",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
        ]
        .map(String::from)
        .to_vec();
        r
    }

    #[test]
    fn a_persistent_process_has_begun_a_turn_only_once_it_read_a_line() {
        let mut r = persistent_record(6);
        (r.complete, r.exit, r.ended_us) = (false, None, None);
        assert!(!r.has_begun_turn(), "running, no line read yet");
        r.stdin.lines.push(StdinLine {
            at_us: 12,
            text: "{}".into(),
            rule: None,
        });
        assert!(r.has_begun_turn(), "a line read");
        let mut ended = record(7);
        ended.argv = r.argv.clone();
        assert!(ended.exit.is_some());
        assert!(
            ended.has_begun_turn(),
            "ended by itself before reading: counts as before"
        );
        let print = record(8);
        assert!(
            print.has_begun_turn(),
            "a print run begins its turn at start"
        );
    }

    #[test]
    fn a_persistent_process_closed_before_any_line_is_an_idle_start_not_a_turn() {
        let mut r = persistent_record(5);
        assert_eq!(r.kind(), InvocationKind::Turn, "stdin never closed");
        r.stdin.closed_us = Some(15);
        assert!(r.is_idle_start());
        assert_eq!(r.kind(), InvocationKind::Probe);
        r.stdin.lines.push(StdinLine {
            at_us: 12,
            text: "{}".into(),
            rule: None,
        });
        assert_eq!(r.kind(), InvocationKind::Turn, "it got a line");
        let mut print = record(6);
        print.stdin.closed_us = Some(15);
        assert_eq!(
            print.kind(),
            InvocationKind::Turn,
            "a print run reads no line"
        );
    }

    #[test]
    fn a_final_record_still_being_appended_is_not_yet_a_record() {
        let dir = tempfile::tempdir().expect("dir");
        let journal = dir.path().join("journal.jsonl");
        append_final(&journal, &record(1)).expect("append");
        let mut second = record(2);
        second.argv.push("é".repeat(100));
        let line = serde_json::to_vec(&second).expect("json");
        // Cut inside the `é`: the half line is not even UTF-8 yet.
        let cut = line.iter().position(|b| *b >= 0x80).expect("é") + 1;
        let mut f = OpenOptions::new()
            .append(true)
            .open(&journal)
            .expect("open");
        f.write_all(&line[..cut]).expect("half a line");
        let read = read_journal(&journal).expect("reads");
        assert_eq!(read.iter().map(|r| r.pid).collect::<Vec<_>>(), [1]);
        f.write_all(&line[cut..]).expect("the rest");
        f.write_all(b"\n").expect("newline");
        let read = read_journal(&journal).expect("reads");
        assert_eq!(read.iter().map(|r| r.pid).collect::<Vec<_>>(), [1, 2]);
    }

    #[test]
    fn a_live_record_without_a_final_one_reads_as_incomplete() {
        let dir = std::env::temp_dir().join(format!("journal-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("dir");
        let journal = dir.join("j.jsonl");
        append_final(&journal, &record(1)).expect("append");
        let mut killed = record(2);
        killed.ended_us = None;
        killed.exit = None;
        write_live(&journal, &killed).expect("live");
        let all = read_journal(&journal).expect("reads");
        assert_eq!(all.len(), 2);
        assert!(all[0].complete);
        assert_eq!(all[1].pid, 2);
        assert!(!all[1].complete);
        let _ = fs::remove_dir_all(&dir);
    }
}
