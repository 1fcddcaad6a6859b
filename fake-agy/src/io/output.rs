//! stdout and stderr as agy writes them: unbuffered, counted into the journal (with
//! the first bytes of each kept as text for reports), and tolerant of a reader that
//! went away.

use crate::io::recorder::Recorder;
use agy_protocol::journal::append_head;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The process's two output streams.
#[derive(Debug)]
pub struct Output {
    recorder: Arc<Recorder>,
    stdout_closed: AtomicBool,
    wrote_stdout: AtomicBool,
    /// Bytes written to stdout so far.
    stdout_bytes: AtomicU64,
    // Serialises writers (main thread, signal thread) so lines never interleave.
    lock: Mutex<()>,
}

impl Output {
    /// Output that counts into `recorder`.
    pub fn new(recorder: Arc<Recorder>) -> Output {
        Output {
            recorder,
            stdout_closed: AtomicBool::new(false),
            wrote_stdout: AtomicBool::new(false),
            stdout_bytes: AtomicU64::new(0),
            lock: Mutex::new(()),
        }
    }

    /// Writes bytes to stdout and flushes. A reader that went away ends the process by
    /// SIGPIPE, as it ends agy.
    pub fn stdout(&self, bytes: &[u8]) {
        if self.stdout_closed.load(Ordering::SeqCst) {
            return;
        }
        let _g = self.lock.lock();
        let mut out = std::io::stdout().lock();
        match out.write_all(bytes).and_then(|_| out.flush()) {
            Ok(()) => {
                let n = bytes.len() as u64;
                self.wrote_stdout.fetch_or(n > 0, Ordering::SeqCst);
                self.stdout_bytes.fetch_add(n, Ordering::SeqCst);
                self.recorder.update(false, |r| {
                    r.stdout_bytes += n;
                    append_head(&mut r.stdout_head, bytes);
                });
            }
            Err(e) => self.on_write_error(&e),
        }
    }

    /// How many bytes reached stdout so far.
    pub fn stdout_bytes(&self) -> u64 {
        self.stdout_bytes.load(Ordering::SeqCst)
    }

    /// Whether any byte reached stdout so far.
    pub fn wrote_stdout(&self) -> bool {
        self.wrote_stdout.load(Ordering::SeqCst)
    }

    /// agy is a Go program: a write to fd 1 or 2 whose reader is gone kills it with
    /// SIGPIPE (Go's os/signal documentation). Other write errors are ignored.
    fn on_write_error(&self, e: &std::io::Error) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            crate::io::ending::die_by_signal(&self.recorder, nix::libc::SIGPIPE);
        }
    }

    /// Writes bytes to stderr.
    pub fn stderr(&self, bytes: &[u8]) {
        let _g = self.lock.lock();
        let mut err = std::io::stderr().lock();
        match err.write_all(bytes).and_then(|_| err.flush()) {
            Ok(()) => {
                let n = bytes.len() as u64;
                self.recorder.update(false, |r| {
                    r.stderr_bytes += n;
                    append_head(&mut r.stderr_head, bytes);
                });
            }
            Err(e) => self.on_write_error(&e),
        }
    }

    /// Writes a line to stderr, adding `\n` unless present.
    pub fn stderr_line(&self, text: &str) {
        self.stderr(with_newline(text).as_bytes());
    }

    /// Writes a line to stdout, adding `\n` unless present.
    pub fn stdout_line(&self, text: &str) {
        self.stdout(with_newline(text).as_bytes());
    }

    /// Closes stdout: the reader sees EOF while the process keeps running. The fd is
    /// pointed at `/dev/null` so later writes go nowhere instead of into a reused fd.
    pub fn close_stdout(&self) {
        let _g = self.lock.lock();
        let _ = std::io::stdout().lock().flush();
        if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
            let _ = nix::unistd::dup2_stdout(&null);
        }
        self.stdout_closed.store(true, Ordering::SeqCst);
    }
}

/// `text` with a trailing `\n`.
pub fn with_newline(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}
