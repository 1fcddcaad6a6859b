//! stdin: a thread reads newline-delimited frames, journals each on arrival, and hands
//! them to the agent loop.

use super::wire::Wire;
use agy_protocol::acp::{parse_frame, AcpDirection, AcpKind, Frame, FrameError};
use std::io::BufRead;
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
        let mut input = stdin.lock();
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let line = String::from_utf8_lossy(&buf);
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
