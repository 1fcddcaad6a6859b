//! The harness side of driver protocol v1: start the driver in its own process group
//! under the reaper (so nothing it starts outlives it, even when the harness is
//! SIGKILLed), send requests, collect replies by id (in any order), stop it.

use crate::launch::Launch;
use agy_process::lines::{AsyncBoundedLines, LineItem, DEFAULT_LINE_CAP};
use agy_process::{reaper, stop_group, Stopped};
use agy_protocol::driver::{
    parse_driver_line, DriverLine, Reply, Request, RequestOp, DRIVER_PROTOCOL_VERSION,
};
use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Why a request got no usable reply.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DriverError {
    /// The driver could not be started.
    #[error("failed to start driver `{command}`: {message}")]
    Spawn {
        /// `argv[0]`.
        command: String,
        /// The OS error.
        message: String,
    },
    /// No reply within the bound.
    #[error("no reply within {:.2} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// The driver's stdout ended (it exited or closed it).
    #[error("the driver exited or closed its stdout before replying")]
    Exited,
    /// Writing the request failed (the driver closed its stdin).
    #[error("failed to write the request: {0}")]
    Write(String),
}

/// `program` as an absolute path when it is a bare name found on the harness's PATH.
pub fn resolve_program(program: &str) -> std::path::PathBuf {
    let path = std::env::var_os("PATH")
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    crate::launch::resolve_on(std::path::Path::new(program), &path)
}

/// A line the driver wrote that is not driver protocol v1.
#[derive(Debug, Clone, PartialEq)]
pub struct ProtocolViolation {
    /// The line.
    pub line: String,
    /// What is wrong with it.
    pub problem: String,
}

enum Incoming {
    Line(LineItem),
    Eof,
}

/// A running driver.
pub struct DriverClient {
    child: Child,
    pgid: Option<u32>,
    reaped: bool,
    stdin: Option<ChildStdin>,
    rx: mpsc::UnboundedReceiver<Incoming>,
    replies: HashMap<u64, Reply>,
    next_id: u64,
    eof: bool,
    /// Lines that were not protocol.
    pub violations: Vec<ProtocolViolation>,
    /// `event` lines, in order.
    pub events: Vec<String>,
}

impl DriverClient {
    /// Starts `command` through the [launcher](crate::launch) with exactly `env` (a
    /// sandbox's, holding its marker), in `cwd`, as the leader of a new process group,
    /// under the reaper when its host is found; stderr goes to `stderr_path`.
    pub fn start(
        command: &[String],
        env: &[(String, String)],
        cwd: &Path,
        stderr_path: &Path,
    ) -> Result<DriverClient, DriverError> {
        let program = command.first().cloned().unwrap_or_default();
        let spawn_err = |message: String| DriverError::Spawn {
            command: program.clone(),
            message,
        };
        let stderr = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(stderr_path)
            .map_err(|e| spawn_err(format!("cannot open `{}`: {e}", stderr_path.display())))?;
        let (mut cmd, reaped) = Launch::with_sandbox_env(command, env)
            .and_then(|l| l.cwd(cwd).command())
            .map_err(|e| spawn_err(e.to_string()))?;
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr));
        let mut child = cmd.spawn().map_err(|e| spawn_err(e.to_string()))?;
        let pgid = child.id();
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| spawn_err("no stdout pipe".into()))?;
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            // Bounded: a driver that floods without a newline costs the cap, not the
            // harness's memory; a bad line is a violation, the next ones still count.
            let mut lines = AsyncBoundedLines::new(stdout, DEFAULT_LINE_CAP);
            loop {
                match lines.next().await {
                    Some(Ok(l)) => {
                        if tx.send(Incoming::Line(l)).is_err() {
                            return;
                        }
                    }
                    None | Some(Err(_)) => {
                        let _ = tx.send(Incoming::Eof);
                        return;
                    }
                }
            }
        });
        Ok(DriverClient {
            child,
            pgid,
            reaped,
            stdin,
            rx,
            replies: HashMap::new(),
            next_id: 1,
            eof: false,
            violations: Vec::new(),
            events: Vec::new(),
        })
    }

    /// The driver's pid (= its process group id).
    pub fn pid(&self) -> Option<u32> {
        self.pgid
    }

    /// Sends a request; returns its id.
    pub async fn send(&mut self, op: RequestOp) -> Result<u64, DriverError> {
        let id = self.next_id;
        self.next_id += 1;
        let req = Request {
            v: DRIVER_PROTOCOL_VERSION,
            id,
            op,
        };
        let mut line =
            serde_json::to_string(&req).map_err(|e| DriverError::Write(e.to_string()))?;
        line.push('\n');
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| DriverError::Write("stdin already closed".into()))?;
        stdin
            .write_all(line.as_bytes())
            .await
            .map_err(|e| DriverError::Write(e.to_string()))?;
        stdin
            .flush()
            .await
            .map_err(|e| DriverError::Write(e.to_string()))?;
        Ok(id)
    }

    /// Waits for the reply to `id` until `deadline`.
    pub async fn reply(&mut self, id: u64, deadline: Instant) -> Result<Reply, DriverError> {
        loop {
            if let Some(r) = self.replies.remove(&id) {
                return Ok(r);
            }
            if self.eof {
                return Err(DriverError::Exited);
            }
            let started = Instant::now();
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Err(_) => {
                    return Err(DriverError::Timeout(
                        deadline.saturating_duration_since(started),
                    ))
                }
                Ok(None) | Ok(Some(Incoming::Eof)) => self.eof = true,
                Ok(Some(Incoming::Line(l))) => self.take_line(l),
            }
        }
    }

    fn take_line(&mut self, item: LineItem) {
        // The bytes of a line that is not UTF-8, escaped, so the report loses none.
        let shown = match &item {
            LineItem::NotUtf8 { bytes, .. } => bytes.escape_ascii().to_string(),
            _ => String::new(),
        };
        let line = match item.into_text("driver stdout") {
            Ok(line) => line,
            Err(problem) => {
                self.violations.push(ProtocolViolation {
                    line: shown,
                    problem,
                });
                return;
            }
        };
        if line.trim().is_empty() {
            return;
        }
        match parse_driver_line(&line) {
            Ok(DriverLine::Reply(r)) => {
                self.replies.insert(r.id, *r);
            }
            Ok(DriverLine::Event(e)) => self.events.push(format!("{}: {}", e.event, e.message)),
            Err(problem) => self.violations.push(ProtocolViolation { line, problem }),
        }
    }

    /// Sends one request and waits for its reply.
    pub async fn call(&mut self, op: RequestOp, within: Duration) -> Result<Reply, DriverError> {
        let deadline = Instant::now() + within;
        let id = self.send(op).await?;
        self.reply(id, deadline).await
    }

    /// Stops the driver: `shutdown` (answered within `grace`), stdin closed, then the
    /// process group is stopped (SIGTERM, `grace`, SIGKILL).
    pub async fn stop(&mut self, grace: Duration) -> Stopped {
        if self.stdin.is_some() && !self.eof {
            let _ = self.call(RequestOp::Shutdown {}, grace).await;
        }
        self.stdin = None;
        if tokio::time::timeout(grace, self.child.wait()).await.is_ok() {
            // The leader is gone; its group may still have members.
            if let Some(pgid) = self.pgid {
                agy_process::signal_group(pgid, nix::sys::signal::Signal::SIGKILL);
            }
            return Stopped::OnTerm;
        }
        stop_group(&mut self.child, self.pgid, grace, self.reaped).await
    }

    /// Kills the group at once (interrupts, scenario timeouts).
    pub async fn kill(&mut self) {
        self.stdin = None;
        stop_group(&mut self.child, self.pgid, Duration::ZERO, self.reaped).await;
    }
}

impl Drop for DriverClient {
    /// A driver dropped while running (a cancelled run) ends with its whole tree: the
    /// reaper is asked to kill it, a driver without one gets SIGKILL by group.
    fn drop(&mut self) {
        if !matches!(self.child.try_wait(), Ok(None)) {
            return;
        }
        let Some(pid) = self.pgid.and_then(|p| i32::try_from(p).ok()) else {
            return;
        };
        let pid = nix::unistd::Pid::from_raw(pid);
        if self.reaped {
            let _ = nix::sys::signal::kill(pid, reaper::KILL_TREE);
        } else {
            let _ = nix::sys::signal::killpg(pid, nix::sys::signal::Signal::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_flood_and_a_bad_byte_are_violations_and_the_reply_after_them_arrives() {
        let dir = tempfile::tempdir().expect("dir");
        // 20 MiB without a newline (over the 16 MiB cap), a line that is not UTF-8,
        // then a valid reply to request 1.
        let script = r#"read -r _; head -c 20971520 /dev/zero | tr '\0' x; printf '\n\377\n{"id":1,"ok":true}\n'; read -r _"#;
        let command = vec!["/bin/sh".to_string(), "-c".to_string(), script.to_string()];
        let env = vec![
            ("PATH".to_string(), "/usr/bin:/bin".to_string()),
            (
                agy_process::MARKER_ENV.to_string(),
                dir.path().display().to_string(),
            ),
        ];
        let mut client =
            DriverClient::start(&command, &env, dir.path(), &dir.path().join("stderr"))
                .expect("started");
        let reply = client
            .call(RequestOp::Hello {}, Duration::from_secs(30))
            .await
            .expect("the reply after the bad lines arrives");
        assert!(reply.ok);
        let problems: Vec<&str> = client
            .violations
            .iter()
            .map(|v| v.problem.as_str())
            .collect();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[0].contains("cap of 16777216 bytes"),
            "{problems:?}"
        );
        assert!(problems[1].contains("not valid UTF-8"), "{problems:?}");
        client.kill().await;
    }
}
