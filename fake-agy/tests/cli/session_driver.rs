//! A tokio driver for one persistent fake-agy process: write stdin lines, read events
//! as they come, every wait bounded.

use crate::support::{bin, Sandbox};
use agy_protocol::env::{FAKE_AGY_JOURNAL, FAKE_AGY_SCRIPT};
use serde_json::Value;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

pub const WAIT: Duration = Duration::from_secs(20);

pub struct Driver {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub lines: Lines<BufReader<ChildStdout>>,
}

/// A user line with string content.
pub fn user(text: &str) -> String {
    agy_protocol::stream::UserLine::text(text).to_line()
}

impl Driver {
    /// Starts `fake-agy --input-format stream-json --output-format stream-json` plus
    /// `extra` args, with `script` when given.
    pub fn start(
        sb: &Sandbox,
        script: Option<&str>,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Driver {
        std::fs::create_dir_all(sb.home()).expect("home");
        let mut c = Command::new(bin());
        c.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", sb.home())
            .env(FAKE_AGY_JOURNAL, sb.journal_path())
            .current_dir(sb.path())
            .args([
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
            ])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (k, v) in env {
            c.env(k, v);
        }
        if let Some(text) = script {
            c.env(FAKE_AGY_SCRIPT, sb.script(text));
        }
        let mut child = c.spawn().expect("spawn fake-agy");
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Driver {
            child,
            stdin,
            lines,
        }
    }

    pub async fn send(&mut self, line: &str) {
        let w = self.stdin.as_mut().expect("stdin open");
        let mut l = line.to_string();
        if !l.ends_with('\n') {
            l.push('\n');
        }
        w.write_all(l.as_bytes()).await.expect("write stdin");
        w.flush().await.expect("flush");
    }

    /// Writes raw bytes as one line (a newline is added), UTF-8 or not.
    pub async fn send_bytes(&mut self, line: &[u8]) {
        let w = self.stdin.as_mut().expect("stdin open");
        let mut l = line.to_vec();
        l.push(b'\n');
        w.write_all(&l).await.expect("write stdin");
        w.flush().await.expect("flush");
    }

    /// Tries to write; returns the error (EPIPE after the fake closed stdin).
    pub async fn try_send(&mut self, line: &str) -> std::io::Result<()> {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(format!("{line}\n").as_bytes()).await?;
        w.flush().await
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next stdout line as JSON; `None` at EOF.
    pub async fn next_event(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(WAIT, self.lines.next_line())
            .await
            .expect("no stdout line in time")
            .expect("read stdout")?;
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
    }

    /// Events up to and including the next `result`.
    pub async fn turn(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        loop {
            let ev = self
                .next_event()
                .await
                .expect("stdout ended before a result");
            let is_result = ev["event"] == "result";
            out.push(ev);
            if is_result {
                return out;
            }
        }
    }

    /// Waits for the exit, returning the status and the rest of stderr.
    pub async fn finish(mut self) -> (std::process::ExitStatus, String) {
        self.stdin = None;
        let status = tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("fake-agy did not exit in time")
            .expect("wait");
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            use tokio::io::AsyncReadExt;
            let _ = e.read_to_string(&mut err).await;
        }
        (status, err)
    }

    pub fn pid(&self) -> nix::unistd::Pid {
        nix::unistd::Pid::from_raw(self.child.id().expect("running") as i32)
    }
}

/// `step_type:state` labels of a turn's step events, `init` and `result` as is.
pub fn labels(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| match e["event"].as_str().unwrap_or("") {
            "step_update" => format!(
                "{}:{}:{}",
                e["step_update"]["step_type"].as_str().unwrap_or(""),
                e["step_update"]["state"].as_str().unwrap_or(""),
                e["step_update"]["step_index"]
            ),
            other => other.to_string(),
        })
        .collect()
}
