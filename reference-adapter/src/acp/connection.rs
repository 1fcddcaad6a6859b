//! One agent process and its JSON-RPC 2.0 stream: newline-delimited frames on the
//! agent's stdin/stdout (docs/agy-acp-reference.md §1.1), stderr drained and kept for messages (it is
//! noise, never protocol: docs/agy-acp-reference.md §2.2).
//!
//! Everything the agent writes — responses, notifications and its own requests — comes
//! out of [`Connection::recv`] in the order it was written, so the session can tell
//! which updates preceded which response.

use crate::failure::tail;
use crate::stderr_tail::{keep_stderr_tail, StderrTail};
use agent_client_protocol_schema::v1::{Error as RpcError, RequestId};
use agy_process::lines::{AsyncBoundedLines, DEFAULT_LINE_CAP};
use agy_process::{in_own_group, wait_for, GroupGuard, ParentDeath};
use agy_protocol::acp::{parse_frame, render_frame, Frame};
use serde_json::Value;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

/// One thing the agent wrote, or the end of its output.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    /// A JSON-RPC frame.
    Frame(Frame),
    /// A line that is not one (kept for messages, otherwise ignored).
    Garbage(String),
    /// stdout closed: the agent exited or was killed.
    Closed,
}

/// A running agent process.
#[derive(Debug)]
pub struct Connection {
    child: Child,
    guard: GroupGuard,
    stdin: Option<ChildStdin>,
    inbound: mpsc::UnboundedReceiver<Inbound>,
    stderr: StderrTail,
    next_id: i64,
    closed: bool,
}

/// Reads the agent's stdout under the line cap until it ends, then sends `Closed`. A
/// line the reader does not take as text (not UTF-8, over the cap) is named on stderr
/// and handed on as garbage with its located report, never converted; the lines after
/// it are read (the one policy of `agy_process::lines`).
async fn read_agent<R: AsyncRead + Unpin>(stdout: R, tx: mpsc::UnboundedSender<Inbound>) {
    let mut reader = AsyncBoundedLines::new(stdout, DEFAULT_LINE_CAP);
    while let Some(Ok(read)) = reader.next().await {
        let item = match read.into_text("agent stdout") {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => match parse_frame(&line) {
                Ok(frame) => Inbound::Frame(frame),
                Err(_) => Inbound::Garbage(line),
            },
            Err(problem) => {
                eprintln!("agy-reference-adapter: {problem}");
                Inbound::Garbage(problem)
            }
        };
        if tx.send(item).is_err() {
            return;
        }
    }
    let _ = tx.send(Inbound::Closed);
}

impl Connection {
    /// Starts `bin` in `cwd`, in its own process group that dies with the driver.
    pub fn spawn(bin: &Path, cwd: &Path) -> std::io::Result<Connection> {
        let mut cmd = Command::new(bin);
        cmd.current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        in_own_group(&mut cmd, ParentDeath::Kill).kill_on_drop(false);
        let mut child = cmd.spawn()?;
        let guard = GroupGuard::of(&child);
        let (tx, inbound) = mpsc::unbounded_channel();
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(read_agent(stdout, tx));
        }
        let stderr = keep_stderr_tail(child.stderr.take());
        Ok(Connection {
            stdin: child.stdin.take(),
            child,
            guard,
            inbound,
            stderr,
            next_id: 0,
            closed: false,
        })
    }

    /// The agent's pid.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    async fn write(&mut self, frame: &Frame) -> std::io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdin closed"))?;
        let mut line = render_frame(frame);
        line.push('\n');
        stdin.write_all(line.as_bytes()).await?;
        stdin.flush().await
    }

    /// Sends a request; returns its id.
    pub async fn request(&mut self, method: &str, params: Value) -> std::io::Result<RequestId> {
        let id = RequestId::Number(self.next_id);
        self.next_id += 1;
        self.write(&Frame::Request {
            id: id.clone(),
            method: method.to_string(),
            params,
        })
        .await?;
        Ok(id)
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Value) -> std::io::Result<()> {
        self.write(&Frame::Notification {
            method: method.to_string(),
            params,
        })
        .await
    }

    /// Answers a request of the agent.
    pub async fn respond(&mut self, id: RequestId, result: Value) -> std::io::Result<()> {
        self.write(&Frame::Response {
            id,
            outcome: Ok(result),
        })
        .await
    }

    /// Answers a request of the agent with an error.
    pub async fn respond_error(&mut self, id: RequestId, error: RpcError) -> std::io::Result<()> {
        self.write(&Frame::Response {
            id,
            outcome: Err(error),
        })
        .await
    }

    /// The next thing the agent wrote; [`Inbound::Closed`] once and forever after the
    /// end of its output.
    pub async fn recv(&mut self) -> Inbound {
        if self.closed {
            return Inbound::Closed;
        }
        match self.inbound.recv().await {
            Some(Inbound::Closed) | None => {
                self.closed = true;
                Inbound::Closed
            }
            Some(item) => item,
        }
    }

    /// Like [`Connection::recv`], but only what has already arrived.
    pub fn try_recv(&mut self) -> Option<Inbound> {
        if self.closed {
            return None;
        }
        match self.inbound.try_recv() {
            Ok(Inbound::Closed) | Err(mpsc::error::TryRecvError::Disconnected) => {
                self.closed = true;
                Some(Inbound::Closed)
            }
            Ok(item) => Some(item),
            Err(mpsc::error::TryRecvError::Empty) => None,
        }
    }

    /// The last part of the agent's stderr.
    pub fn stderr_tail(&self) -> String {
        self.stderr
            .lock()
            .map(|s| tail(s.trim(), 400).to_string())
            .unwrap_or_default()
    }

    /// SIGKILLs the agent's process group and reaps it (restart the agent, give up).
    pub async fn kill(mut self) -> Option<ExitStatus> {
        self.stdin = None;
        self.guard.kill_and_reap(&mut self.child).await
    }

    /// Closes the agent's stdin (it exits on end of file, docs/agy-acp-reference.md §2.2 / the fake's
    /// contract), waits up to `grace`, then kills the group.
    pub async fn stop(mut self, grace: Duration) -> Option<ExitStatus> {
        self.stdin = None;
        match wait_for(&mut self.child, grace).await {
            Some(status) => {
                // The leader exited; anything it left in its group goes too.
                self.guard.signal(nix::sys::signal::Signal::SIGKILL);
                Some(status)
            }
            None => self.guard.kill_and_reap(&mut self.child).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Regression: a line that is not UTF-8 was converted (U+FFFD) and parsed as if the
    // agent had written that text.
    #[tokio::test]
    async fn a_line_that_is_not_utf8_is_reported_and_the_frames_after_it_are_read() {
        let input: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n{\"x\":\"\xff\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n";
        let (tx, mut rx) = mpsc::unbounded_channel();
        read_agent(input, tx).await;
        let mut got = Vec::new();
        while let Ok(item) = rx.try_recv() {
            got.push(item);
        }
        assert_eq!(got.len(), 4, "{got:?}");
        assert!(
            matches!(&got[0], Inbound::Frame(Frame::Notification { method, .. }) if method == "a"),
            "{got:?}"
        );
        assert!(
            matches!(&got[1], Inbound::Garbage(p) if p.starts_with("agent stdout:2:7: line is not valid UTF-8")),
            "{got:?}"
        );
        assert!(
            matches!(&got[2], Inbound::Frame(Frame::Notification { method, .. }) if method == "b"),
            "{got:?}"
        );
        assert_eq!(got[3], Inbound::Closed);
    }
}
