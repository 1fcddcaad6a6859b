//! stdin: a thread reads newline-delimited frames, journals each on arrival, and hands
//! them to the agent loop.

use super::wire::Wire;
use agy_protocol::acp::{parse_frame, AcpDirection, AcpKind, Frame, FrameError};
use agy_protocol::lines::{BoundedLines, DEFAULT_LINE_CAP};
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
        // Bounded: a frame over the cap is an invalid line, and the next ones are read.
        for read in BoundedLines::new(stdin.lock(), DEFAULT_LINE_CAP) {
            let Ok(read) = read else { break };
            let line = read
                .lossy_text()
                .unwrap_or_else(|| read.problem("stdin").unwrap_or_default());
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
