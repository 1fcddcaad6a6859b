//! stdin: a thread reads newline-delimited frames, journals each on arrival, and hands
//! them to the agent loop.

use super::wire::Wire;
use agy_process::lines::{BoundedLines, DEFAULT_LINE_CAP};
use agy_protocol::acp::{parse_frame, AcpDirection, AcpKind, Frame, FrameError};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;

/// What arrived on stdin.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// A JSON-RPC message.
    Frame(Frame),
    /// A line that is not one.
    Invalid(FrameError),
    /// End of file: the client closed our stdin.
    Eof,
}

/// Starts the reader thread.
pub(crate) fn spawn_reader(wire: Arc<Wire>) -> Receiver<Inbound> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        for read in BoundedLines::new(stdin.lock(), DEFAULT_LINE_CAP) {
            let Ok(read) = read else { break };
            let line = match read.into_text("stdin") {
                Ok(line) => line,
                Err(problem) => {
                    // Not UTF-8, or over the cap: journalled and answered like any line
                    // that cannot be parsed, never converted; the frames after it are
                    // read (the one policy of `agy_process::lines`).
                    wire.event(AcpDirection::In, AcpKind::Invalid, &problem);
                    if tx
                        .send(Inbound::Invalid(FrameError::Unreadable(problem)))
                        .is_err()
                    {
                        return;
                    }
                    continue;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            let inbound = match parse_frame(&line) {
                Ok(frame) => {
                    wire.record_in(&frame);
                    Inbound::Frame(frame)
                }
                Err(e) => {
                    wire.event(AcpDirection::In, AcpKind::Invalid, line.trim_end());
                    Inbound::Invalid(e)
                }
            };
            if tx.send(inbound).is_err() {
                return;
            }
        }
        wire.event(AcpDirection::Event, AcpKind::StdinClosed, "stdin closed");
        let _ = tx.send(Inbound::Eof);
    });
    rx
}
