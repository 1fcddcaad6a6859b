//! The journal record of this invocation, kept live on disk as it changes (so a
//! SIGKILLed process still leaves what it saw) and appended once at the end.

use agy_protocol::journal::live::{LiveCopy, LiveEntry};
use agy_protocol::journal::{
    append_final, now_us, ChildRecord, ExitRecord, FileRecord, JournalRecord, SignalRecord,
    StdinLine, StdinLog, JOURNALED_ENV, JOURNAL_VERSION,
};
use agy_protocol::redact::redact_env_by_name;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// This invocation's journal record.
#[derive(Debug)]
pub struct Recorder {
    path: Option<PathBuf>,
    record: Mutex<JournalRecord>,
    /// The live copy: each event appended, so a long session costs each event once.
    live: Mutex<Option<LiveCopy>>,
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
        // A key (`GEMINI_API_KEY`) is journalled as set, never as its value: a kept
        // sandbox's journal is read by people the key does not belong to.
        let env = redact_env_by_name(
            &JOURNALED_ENV
                .iter()
                .filter_map(|k| get_env(k).map(|v| (k.to_string(), v)))
                .collect(),
        );
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
            continued_conversation: None,
            conversation_turn: None,
            children: Vec::new(),
            started_us: now_us(),
            ended_us: None,
            stdin: StdinLog::default(),
            signals: Vec::new(),
            exit: None,
            files: Vec::new(),
            stdout_bytes: 0,
            stderr_bytes: 0,
            stdout_head: String::new(),
            stderr_head: String::new(),
        };
        let live = path
            .as_deref()
            .map(|p| LiveCopy::new(p, record.pid, record.started_us));
        Recorder {
            path,
            record: Mutex::new(record),
            live: Mutex::new(live),
            finished: AtomicBool::new(false),
            unjournalled_lines: AtomicUsize::new(0),
        }
    }

    /// Changes the record; with `live`, the live copy on disk gets the new head at once.
    pub fn update(&self, live: bool, f: impl FnOnce(&mut JournalRecord)) {
        self.update_with(live, |r| {
            f(r);
            None
        });
    }

    /// Changes the record; with `live`, appends the entry `f` returns (and the head, if
    /// it changed) to the live copy.
    fn update_with(&self, live: bool, f: impl FnOnce(&mut JournalRecord) -> Option<LiveEntry>) {
        let mut rec = match self.record.lock() {
            Ok(r) => r,
            Err(poisoned) => poisoned.into_inner(),
        };
        let entry = f(&mut rec);
        if live && !self.finished.load(Ordering::SeqCst) {
            let mut copy = match self.live.lock() {
                Ok(c) => c,
                Err(poisoned) => poisoned.into_inner(),
            };
            if let Some(copy) = copy.as_mut() {
                // A journal that cannot be written must not change agy's behaviour;
                // the final append reports the problem on stderr.
                let _ = copy.head(&rec);
                if let Some(e) = entry {
                    let _ = copy.append(&e);
                }
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
        self.update_with(true, |r| {
            let line = StdinLine {
                at_us,
                text,
                rule: None,
            };
            r.stdin.lines.push(line.clone());
            index = r.stdin.lines.len();
            Some(LiveEntry::StdinLine {
                line,
                bytes: r.stdin.bytes,
            })
        });
        index
    }

    /// Records which turn rule served line `index` (1-based).
    pub fn stdin_line_rule(&self, index: usize, rule: String) {
        self.update_with(true, |r| {
            let line = index
                .checked_sub(1)
                .and_then(|i| r.stdin.lines.get_mut(i))?;
            line.rule = Some(rule.clone());
            Some(LiveEntry::LineRule { index, rule })
        });
    }

    /// Records stdin EOF.
    pub fn stdin_closed(&self) {
        self.update(true, |r| r.stdin.closed_us = Some(now_us()));
    }

    /// Records a signal with its arrival time.
    pub fn signal(&self, name: &str) {
        self.update_with(true, |r| {
            let signal = SignalRecord {
                signal: name.to_string(),
                at_us: now_us(),
            };
            r.signals.push(signal.clone());
            Some(LiveEntry::Signal(signal))
        });
    }

    /// Records a file written.
    pub fn file(&self, path: String, bytes: u64) {
        self.update_with(true, |r| {
            let file = FileRecord { path, bytes };
            r.files.push(file.clone());
            Some(LiveEntry::File(file))
        });
    }

    /// Records a child process started (in the live copy at once, so an agy killed by
    /// SIGKILL still names the children it left).
    pub fn child(&self, child: ChildRecord) {
        self.update_with(true, |r| {
            r.children.push(child.clone());
            Some(LiveEntry::Child(child))
        });
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_api_key_is_journalled_as_set_never_as_its_value() {
        // A kept sandbox's journal stored the adapter config's `GEMINI_API_KEY` verbatim.
        let env = |k: &str| match k {
            "GEMINI_API_KEY" => Some("AQ.Ab8RN6Kx2vQ9mT4pL7wZ3yB5cD".to_string()),
            "HOME" => Some("/tmp/sandbox/home".to_string()),
            _ => None,
        };
        let record = Recorder::start(None, vec!["agy".into()], env).snapshot();
        assert_eq!(record.env["GEMINI_API_KEY"], "[TOKEN]");
        assert_eq!(record.env["HOME"], "/tmp/sandbox/home");
    }
}
