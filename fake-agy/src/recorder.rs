//! The journal record of this invocation, kept live on disk as it changes (so a
//! SIGKILLed process still leaves what it saw) and appended once at the end.

use agy_protocol::journal::{
    append_final, now_us, write_live, ExitRecord, FileRecord, JournalRecord, SignalRecord,
    StdinLine, StdinLog, JOURNALED_ENV, JOURNAL_VERSION,
};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// This invocation's journal record.
#[derive(Debug)]
pub struct Recorder {
    path: Option<PathBuf>,
    record: Mutex<JournalRecord>,
    finished: AtomicBool,
    unjournalled_lines: AtomicUsize,
}

impl Recorder {
    /// Starts a record (in memory only when `path` is `None`).
    pub fn start(
        path: Option<PathBuf>,
        argv: Vec<String>,
        get_env: impl Fn(&str) -> Option<String>,
    ) -> Recorder {
        let env: BTreeMap<String, String> = JOURNALED_ENV
            .iter()
            .filter_map(|k| get_env(k).map(|v| (k.to_string(), v)))
            .collect();
        let record = JournalRecord {
            v: JOURNAL_VERSION,
            complete: false,
            invocation: 0,
            pid: std::process::id(),
            ppid: nix::unistd::getppid().as_raw() as u32,
            argv,
            cwd: std::env::current_dir()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            env,
            mode: None,
            rule: None,
            conversation_id: None,
            started_us: now_us(),
            ended_us: None,
            stdin: StdinLog::default(),
            signals: Vec::new(),
            exit: None,
            files: Vec::new(),
            stdout_bytes: 0,
            stderr_bytes: 0,
        };
        Recorder {
            path,
            record: Mutex::new(record),
            finished: AtomicBool::new(false),
            unjournalled_lines: AtomicUsize::new(0),
        }
    }

    /// Changes the record; with `live`, the live copy on disk is replaced at once.
    pub fn update(&self, live: bool, f: impl FnOnce(&mut JournalRecord)) {
        let mut rec = match self.record.lock() {
            Ok(r) => r,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(&mut rec);
        if live && !self.finished.load(Ordering::SeqCst) {
            if let Some(p) = &self.path {
                // A journal that cannot be written must not change agy's behaviour;
                // the final append reports the problem on stderr.
                let _ = write_live(p, &rec);
            }
        }
    }

    /// A copy of the record as it stands.
    pub fn snapshot(&self) -> JournalRecord {
        match self.record.lock() {
            Ok(r) => r.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Records stdin bytes (no live write: lines and EOF are the events that matter).
    pub fn stdin_bytes(&self, n: u64) {
        self.update(false, |r| r.stdin.bytes += n);
    }

    /// Records a stdin line with its arrival time; returns its 1-based index.
    pub fn stdin_line(&self, text: String, at_us: u64) -> usize {
        if self.path.is_none() {
            // Without a journal nobody reads the lines: count them, keep nothing, so a
            // long session's memory stays flat.
            return self.unjournalled_lines.fetch_add(1, Ordering::SeqCst) + 1;
        }
        let mut index = 0;
        self.update(true, |r| {
            r.stdin.lines.push(StdinLine {
                at_us,
                text,
                rule: None,
            });
            index = r.stdin.lines.len();
        });
        index
    }

    /// Records which turn rule served line `index` (1-based).
    pub fn stdin_line_rule(&self, index: usize, rule: String) {
        self.update(true, |r| {
            if let Some(l) = index.checked_sub(1).and_then(|i| r.stdin.lines.get_mut(i)) {
                l.rule = Some(rule);
            }
        });
    }

    /// Records stdin EOF.
    pub fn stdin_closed(&self) {
        self.update(true, |r| r.stdin.closed_us = Some(now_us()));
    }

    /// Records a signal with its arrival time.
    pub fn signal(&self, name: &str) {
        self.update(true, |r| {
            r.signals.push(SignalRecord {
                signal: name.to_string(),
                at_us: now_us(),
            })
        });
    }

    /// Records a file written.
    pub fn file(&self, path: String, bytes: u64) {
        self.update(true, |r| r.files.push(FileRecord { path, bytes }));
    }

    /// Writes the final record once and returns true; later calls do nothing and
    /// return false (another thread is already ending the process).
    pub fn finish(&self, exit: ExitRecord) -> bool {
        if self.finished.swap(true, Ordering::SeqCst) {
            return false;
        }
        let mut rec = self.snapshot();
        rec.complete = true;
        rec.ended_us = Some(now_us());
        rec.exit = Some(exit);
        if let Some(p) = &self.path {
            if let Err(e) = append_final(p, &rec) {
                eprintln!(
                    "fake-agy: failed to append to journal `{}`: {e}",
                    p.display()
                );
            }
        }
        true
    }

    /// True once the final record was written: the process is ending.
    pub fn is_finished(&self) -> bool {
        self.finished.load(Ordering::SeqCst)
    }
}
