//! Shared helpers: a sandbox per test (its own HOME, journal, script), the fake agent
//! as a real child process on pipes, and waits that always time out.

use agy_protocol::acp::{read_acp_journal, AcpJournalEntry};
use agy_protocol::env::{FAKE_AGY_ACP_JOURNAL, FAKE_AGY_ACP_SCRIPT};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How long any single wait may take before the test fails.
pub const WAIT: Duration = Duration::from_secs(20);

/// The binary under test.
pub fn agent_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fake-agy-acp"))
}

/// One test's temp dir: HOME, journal, optional script, a project cwd.
pub struct Sandbox {
    pub dir: agy_test_support::TestDir,
    pub script: Option<PathBuf>,
    pub env: Vec<(String, String)>,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = agy_test_support::TestDir::new("fake-agy-acp-test-");
        dir.mkdir("home");
        dir.mkdir("proj");
        Sandbox {
            dir,
            script: None,
            env: Vec::new(),
        }
    }

    pub fn with_script(mut self, text: &str) -> Sandbox {
        self.script = Some(self.dir.write("acp.toml", text));
        self
    }

    pub fn with_env(mut self, key: &str, value: &str) -> Sandbox {
        self.env.push((key.into(), value.into()));
        self
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn cwd(&self) -> String {
        self.dir.path().join("proj").display().to_string()
    }

    pub fn journal_path(&self) -> PathBuf {
        self.dir.path().join("acp-journal.jsonl")
    }

    pub fn journal(&self) -> Vec<AcpJournalEntry> {
        read_acp_journal(&self.journal_path()).expect("journal reads")
    }

    /// Waits until the journal holds an entry matching `pred` (the agent writes it
    /// from another process, so this polls the file, with a deadline).
    pub async fn wait_for_entry(&self, what: &str, pred: impl Fn(&AcpJournalEntry) -> bool) {
        let journal = self.journal_path();
        let what = format!("the journal showing {what}");
        agy_test_support::poll_until(&what, WAIT, || {
            read_acp_journal(&journal).is_ok_and(|j| j.iter().any(&pred))
        })
        .await;
    }

    pub fn command(&self) -> Command {
        let mut cmd = Command::new(agent_bin());
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env(FAKE_AGY_ACP_JOURNAL, self.journal_path())
            .current_dir(self.dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        if let Some(s) = &self.script {
            cmd.env(FAKE_AGY_ACP_SCRIPT, s);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    pub fn spawn(&self) -> Agent {
        let mut child = self.command().spawn().expect("spawn fake-agy-acp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Agent {
            child,
            stdin: Some(stdin),
            stdout,
            next_id: 0,
            transcript: Vec::new(),
        }
    }
}

/// The fake agent as a child process, and everything that crossed its stdio.
pub struct Agent {
    pub child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: i64,
    /// `(">", msg)` sent to the agent, `("<", msg)` received.
    pub transcript: Vec<(&'static str, Value)>,
}

impl Agent {
    pub async fn send(&mut self, msg: Value) {
        self.transcript.push((">", msg.clone()));
        let stdin = self.stdin.as_mut().expect("stdin open");
        let mut line = msg.to_string();
        line.push('\n');
        tokio::time::timeout(WAIT, stdin.write_all(line.as_bytes()))
            .await
            .expect("write in time")
            .expect("write");
    }

    /// Sends a raw line (a newline is added; embedded newlines split it).
    pub async fn send_line(&mut self, line: &str) {
        self.send_bytes(line.as_bytes()).await;
    }

    /// Sends raw bytes as one line (a newline is added), UTF-8 or not.
    pub async fn send_bytes(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        tokio::time::timeout(WAIT, stdin.write_all(&bytes))
            .await
            .expect("write in time")
            .expect("write");
    }

    /// Sends a request and returns its id.
    pub async fn request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}))
            .await;
        id
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc":"2.0","method":method,"params":params}))
            .await;
    }

    /// Answers a request of the agent.
    pub async fn answer(&mut self, id: &Value, result: Value) {
        self.send(json!({"jsonrpc":"2.0","id":id,"result":result}))
            .await;
    }

    /// The next message from the agent; `None` at end of file.
    pub async fn recv(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(WAIT, self.stdout.next_line())
            .await
            .expect("agent answered in time")
            .expect("read stdout")?;
        let msg: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        self.transcript.push(("<", msg.clone()));
        Some(msg)
    }

    /// Messages up to and including the response to `id`.
    pub async fn until_response(&mut self, id: i64) -> (Vec<Value>, Value) {
        let mut before = Vec::new();
        loop {
            let msg = self.recv().await.expect("agent ended before responding");
            if msg.get("id") == Some(&json!(id)) && msg.get("method").is_none() {
                return (before, msg);
            }
            before.push(msg);
        }
    }

    /// Messages up to and including the next request the agent sends.
    pub async fn until_request(&mut self, method: &str) -> (Vec<Value>, Value) {
        let mut before = Vec::new();
        loop {
            let msg = self.recv().await.expect("agent ended before the request");
            if msg.get("method") == Some(&json!(method)) && msg.get("id").is_some() {
                return (before, msg);
            }
            before.push(msg);
        }
    }

    /// Sends a request and reads up to its response.
    pub async fn call(&mut self, method: &str, params: Value) -> (Vec<Value>, Value) {
        let id = self.request(method, params).await;
        self.until_response(id).await
    }

    /// Closes stdin and waits for the process to end; returns the rest of stdout.
    pub async fn finish(mut self) -> (std::process::ExitStatus, Vec<Value>) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        while let Some(m) = self.recv().await {
            rest.push(m);
        }
        let status = tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("agent exited in time")
            .expect("wait");
        (status, rest)
    }

    /// Waits for the process to end on its own (it crashed or exited).
    pub async fn wait_exit(mut self) -> std::process::ExitStatus {
        while self.recv().await.is_some() {}
        tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("agent exited in time")
            .expect("wait")
    }
}

/// `initialize` then `session/new`; returns the session id.
pub async fn open_session(agent: &mut Agent, cwd: &str) -> String {
    let (_, init) = agent
        .call(
            "initialize",
            json!({"protocolVersion":1,"clientCapabilities":{}}),
        )
        .await;
    assert!(init.get("result").is_some(), "initialize failed: {init}");
    let (_, new) = agent
        .call("session/new", json!({"cwd": cwd, "mcpServers": []}))
        .await;
    new.pointer("/result/sessionId")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("session/new failed: {new}"))
        .to_string()
}

/// The `sessionUpdate` kinds of a list of messages, in order.
pub fn update_kinds(msgs: &[Value]) -> Vec<String> {
    msgs.iter()
        .filter_map(|m| m.pointer("/params/update/sessionUpdate"))
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// The text of every `agent_message_chunk`, joined.
pub fn agent_text(msgs: &[Value]) -> String {
    msgs.iter()
        .filter(|m| {
            m.pointer("/params/update/sessionUpdate") == Some(&json!("agent_message_chunk"))
        })
        .filter_map(|m| {
            m.pointer("/params/update/content/text")
                .and_then(Value::as_str)
        })
        .collect()
}

/// Replaces ids, times and temp paths with named placeholders, for snapshots.
pub fn redact(value: &Value, temp: &Path) -> Value {
    let temp = temp.display().to_string();
    match value {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = match k.as_str() {
                        "sessionId" | "toolCallId" if v.is_string() => json!("[ID]"),
                        "updatedAt" if v.is_string() => json!("[TIMESTAMP]"),
                        _ => redact(v, Path::new(&temp)),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| redact(v, Path::new(&temp))).collect()),
        Value::String(s) if s.contains(&temp) => Value::String(s.replace(&temp, "[TEMP]")),
        other => other.clone(),
    }
}

/// The transcript as `> {…}` / `< {…}` lines, redacted.
pub fn transcript_text(agent: &Agent, temp: &Path) -> String {
    agent
        .transcript
        .iter()
        .map(|(dir, msg)| format!("{dir} {}", redact(msg, temp)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Binds the snapshot folder once: `snapshots/fake-agy-acp/`.
#[macro_export]
macro_rules! assert_transcript_snapshot {
    ($name:expr, $text:expr) => {{
        agy_test_support::snapshot_settings("fake-agy-acp")
            .bind(|| insta::assert_snapshot!($name, $text));
    }};
}
