//! Reads stdin on its own thread: each line is journalled with its arrival time the
//! moment it arrives (even while a turn is running) and queued for the turn loop.

use crate::io::recorder::Recorder;
use agy_process::lines::{LineItem, LineSplitter};
use agy_protocol::journal::now_us;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// The longest stdin line fake-agy reads: 256 MiB (a line that long is still read in
/// linear time; a longer one is skipped with a notice).
pub const STDIN_LINE_CAP: usize = 256 * 1024 * 1024;

/// What the reader saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StdinEvent {
    /// A line (without its `\n`), with its 1-based index in the journal.
    Line {
        /// The text (a line that is not UTF-8 is reported and skipped, never queued).
        text: String,
        /// 1-based index among the lines of this process.
        index: usize,
    },
    /// End of input.
    Eof,
}

/// The stdin thread and its queue.
#[derive(Debug)]
pub struct StdinReader {
    events: Receiver<StdinEvent>,
    /// An event taken by [`StdinReader::wait_for_input`], given out next.
    pending: Option<StdinEvent>,
    /// Lines given out so far.
    lines_taken: usize,
    wake: Option<OwnedFd>,
    handle: Option<JoinHandle<()>>,
}

impl StdinReader {
    /// Starts reading.
    pub fn start(recorder: Arc<Recorder>) -> StdinReader {
        let (tx, rx) = channel();
        let Ok((wake_r, wake_w)) = nix::unistd::pipe() else {
            let _ = tx.send(StdinEvent::Eof);
            return StdinReader {
                events: rx,
                pending: None,
                lines_taken: 0,
                wake: None,
                handle: None,
            };
        };
        let handle = std::thread::spawn(move || read_loop(recorder, tx, wake_r));
        StdinReader {
            events: rx,
            pending: None,
            lines_taken: 0,
            wake: Some(wake_w),
            handle: Some(handle),
        }
    }

    /// The next event, waiting for it.
    pub fn next(&mut self) -> StdinEvent {
        let event = self
            .pending
            .take()
            .unwrap_or_else(|| self.events.recv().unwrap_or(StdinEvent::Eof));
        if matches!(event, StdinEvent::Line { .. }) {
            self.lines_taken += 1;
        }
        event
    }

    /// Waits until a line has come or stdin has ended, without taking the line (the
    /// next [`StdinReader::next`] gives it out): true when a line is waiting.
    pub fn wait_for_input(&mut self) -> bool {
        let event = self
            .pending
            .take()
            .unwrap_or_else(|| self.events.recv().unwrap_or(StdinEvent::Eof));
        let line = matches!(event, StdinEvent::Line { .. });
        self.pending = Some(event);
        line
    }

    /// Takes the line [`StdinReader::wait_for_input`] saw, if nothing took it since: the
    /// scripted steps it started answered it.
    pub fn take_waiting_line(&mut self) {
        if matches!(self.pending, Some(StdinEvent::Line { .. })) {
            self.pending = None;
            self.lines_taken += 1;
        }
    }

    /// How many lines were given out.
    pub fn lines_taken(&self) -> usize {
        self.lines_taken
    }

    /// Stops reading and closes stdin, so a writer gets EPIPE. Waits until it is done.
    pub fn close(&mut self) {
        if let Some(w) = self.wake.take() {
            let _ = nix::unistd::write(&w, b"x");
        }
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn read_loop(recorder: Arc<Recorder>, tx: Sender<StdinEvent>, wake: OwnedFd) {
    let stdin = std::io::stdin();
    let mut lines = LineSplitter::new(STDIN_LINE_CAP);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let (stdin_ready, wake_ready) = {
            let mut fds = [
                PollFd::new(stdin.as_fd(), PollFlags::POLLIN),
                PollFd::new(wake.as_fd(), PollFlags::POLLIN),
            ];
            match poll(&mut fds, PollTimeout::NONE) {
                Ok(_) => (
                    fds[0].revents().is_some_and(|r| !r.is_empty()),
                    fds[1].revents().is_some_and(|r| !r.is_empty()),
                ),
                Err(nix::errno::Errno::EINTR) => continue,
                Err(_) => (true, false),
            }
        };
        if wake_ready {
            // Replacing fd 0 drops this process's read end of the pipe; no read is in
            // flight (this thread is the only reader), so the writer sees EPIPE.
            if let Ok(null) = std::fs::File::open("/dev/null") {
                let _ = nix::unistd::dup2_stdin(&null);
            }
            recorder.stdin_closed();
            return;
        }
        if !stdin_ready {
            continue;
        }
        let n = match nix::unistd::read(stdin.as_fd(), &mut buf) {
            Ok(n) => n,
            Err(nix::errno::Errno::EINTR) | Err(nix::errno::Errno::EAGAIN) => continue,
            Err(_) => 0,
        };
        if n == 0 {
            if let Some(item) = lines.finish() {
                send_item(&recorder, &tx, item);
            }
            recorder.stdin_closed();
            let _ = tx.send(StdinEvent::Eof);
            return;
        }
        recorder.stdin_bytes(n as u64);
        // Each byte is scanned once, however long the line.
        for item in lines.push(&buf[..n]) {
            send_item(&recorder, &tx, item);
        }
    }
}

/// A line is journalled and queued; a line that is not UTF-8 or is over the cap is
/// named on stderr (`fake-agy: stdin:N:C: …`) and skipped, and the lines after it are
/// read (the one policy of `agy_process::lines`).
fn send_item(recorder: &Recorder, tx: &Sender<StdinEvent>, item: LineItem) {
    match item.into_text("stdin") {
        Ok(text) => send_line(recorder, tx, text),
        Err(problem) => eprintln!("fake-agy: {problem}"),
    }
}

fn send_line(recorder: &Recorder, tx: &Sender<StdinEvent>, text: String) {
    let index = recorder.stdin_line(text.clone(), now_us());
    let _ = tx.send(StdinEvent::Line { text, index });
}
