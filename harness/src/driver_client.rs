//! The harness side of driver protocol v1: start the driver in its own process group,
//! send requests, collect replies by id (in any order), stop it.

use crate::process_group::{in_own_group, stop_group, Stopped};
use agy_protocol::driver::{
    parse_driver_line, DriverLine, Reply, Request, RequestOp, DRIVER_PROTOCOL_VERSION,
};
use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
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
    if program.contains('/') {
        return program.into();
    }
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(program))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| program.into())
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
    Line(String),
    Eof,
}

/// A running driver.
pub struct DriverClient {
    child: Child,
    pgid: Option<u32>,
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
    /// Starts `command` with exactly `env`, in `cwd`, as the leader of a new process
    /// group; stderr goes to `stderr_path`.
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
        // Resolved with the harness's own PATH: the driver's PATH may hold only the
        // sandbox's `bin/`.
        let mut cmd = Command::new(resolve_program(&program));
        cmd.args(&command[1.min(command.len())..])
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr));
        in_own_group(&mut cmd);
        let mut child = cmd.spawn().map_err(|e| spawn_err(e.to_string()))?;
        let pgid = child.id();
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| spawn_err("no stdout pipe".into()))?;
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            loop {
                match lines.next_line().await {
                    Ok(Some(l)) => {
                        if tx.send(Incoming::Line(l)).is_err() {
                            return;
                        }
                    }
                    Ok(None) | Err(_) => {
                        let _ = tx.send(Incoming::Eof);
                        return;
                    }
                }
            }
        });
        Ok(DriverClient {
            child,
            pgid,
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

    fn take_line(&mut self, line: String) {
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
                crate::process_group::signal_group(pgid, nix::sys::signal::Signal::SIGKILL);
            }
            return Stopped::OnTerm;
        }
        stop_group(&mut self.child, self.pgid, grace).await
    }

    /// Kills the group at once (interrupts, scenario timeouts).
    pub async fn kill(&mut self) {
        self.stdin = None;
        stop_group(&mut self.child, self.pgid, Duration::ZERO).await;
    }
}
