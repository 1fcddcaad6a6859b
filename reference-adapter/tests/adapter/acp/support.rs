//! A sandbox for the `acp` profile: temporary HOME (the fake keeps its sessions under
//! it), work and state dirs, the fake's ACP journal and script, and helpers that read
//! the journal.

use crate::support::{start_driver, Driver, WAIT};
use agy_protocol::acp::{read_acp_journal, AcpDirection, AcpJournalEntry, AcpKind};
use agy_protocol::driver::{HistoryEntry, Reply};
use agy_protocol::env::{
    AGY_ACP_BIN, AGY_DRIVER_STATE_DIR, AGY_DRIVER_WORK_DIR, AGY_HARNESS_TIME_SCALE,
    FAKE_AGY_ACP_BIN, FAKE_AGY_ACP_JOURNAL, FAKE_AGY_ACP_SCRIPT,
};
use serde_json::{json, Value};
use std::path::PathBuf;

/// The fake ACP agent: `$FAKE_AGY_ACP_BIN`, else `fake-agy-acp` as the build left it
/// beside this test's target folder.
pub fn fake_acp_bin() -> PathBuf {
    agy_test_support::workspace_bin("fake-agy-acp", FAKE_AGY_ACP_BIN)
}

/// One test's world.
pub struct AcpSandbox {
    pub dir: agy_test_support::TestDir,
    pub env: Vec<(String, String)>,
}

impl AcpSandbox {
    /// A sandbox whose fake agent acts out `script` (TOML, `docs/acp-fake-agent.md` §4).
    pub fn new(script: &str) -> AcpSandbox {
        let dir = agy_test_support::TestDir::new("agy-reference-adapter-acp-test-");
        for sub in ["home", "work", "state"] {
            dir.mkdir(sub);
        }
        dir.write("acp.toml", script);
        let p = |s: &str| dir.path().join(s).display().to_string();
        let env = vec![
            ("HOME".to_string(), p("home")),
            (
                AGY_ACP_BIN.to_string(),
                fake_acp_bin().display().to_string(),
            ),
            (AGY_DRIVER_WORK_DIR.to_string(), p("work")),
            (AGY_DRIVER_STATE_DIR.to_string(), p("state")),
            (AGY_HARNESS_TIME_SCALE.to_string(), "0.1".to_string()),
            (FAKE_AGY_ACP_JOURNAL.to_string(), p("acp-journal.jsonl")),
            (FAKE_AGY_ACP_SCRIPT.to_string(), p("acp.toml")),
        ];
        AcpSandbox { dir, env }
    }

    /// Starts a driver (a client process) on this sandbox's state dir.
    pub fn driver(&self, faults: &[&str]) -> Driver {
        start_driver(&self.env, faults)
    }

    pub fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// The fake's ACP journal.
    pub fn journal(&self) -> Vec<AcpJournalEntry> {
        read_acp_journal(&self.path("acp-journal.jsonl")).expect("journal reads")
    }

    /// The client's checkpoint of `handle`.
    pub fn checkpoint(&self, handle: &str) -> Value {
        let text = std::fs::read_to_string(self.path(&format!("state/acp/{handle}.json")))
            .expect("checkpoint exists");
        serde_json::from_str(&text).expect("checkpoint is JSON")
    }

    /// Waits (bounded, polling the file the agent appends to) for a journal entry.
    pub async fn wait_for_entry(&self, what: &str, pred: impl Fn(&AcpJournalEntry) -> bool) {
        let what = format!("the ACP journal showing {what}");
        agy_test_support::poll_until(&what, WAIT, || self.journal().iter().any(&pred)).await;
    }
}

/// Agent pids in the order they started.
pub fn agent_pids(journal: &[AcpJournalEntry]) -> Vec<u32> {
    journal
        .iter()
        .filter(|e| e.kind == AcpKind::Start)
        .map(|e| e.pid)
        .collect()
}

/// Methods the client called on agent `pid`, in order (requests and notifications).
pub fn methods_of(journal: &[AcpJournalEntry], pid: u32) -> Vec<String> {
    journal
        .iter()
        .filter(|e| {
            e.pid == pid
                && e.dir == AcpDirection::In
                && matches!(e.kind, AcpKind::Request | AcpKind::Notification)
        })
        .filter_map(|e| e.method.clone())
        .collect()
}

/// The text of every `session/prompt` the client sent, across agent processes.
pub fn prompts_sent(journal: &[AcpJournalEntry]) -> Vec<String> {
    journal
        .iter()
        .filter(|e| {
            e.dir == AcpDirection::In
                && e.kind == AcpKind::Request
                && e.method.as_deref() == Some("session/prompt")
        })
        .map(|e| {
            e.message
                .as_ref()
                .and_then(|m| m.pointer("/params/prompt/0/text"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// How the client answered each permission request.
pub fn permission_outcomes(journal: &[AcpJournalEntry]) -> Vec<String> {
    journal
        .iter()
        .filter(|e| e.dir == AcpDirection::In)
        .filter_map(AcpJournalEntry::permission_outcome)
        .collect()
}

/// The history of a reply as `(role, text, turn)`.
pub fn history(reply: &Reply) -> Vec<(String, String, Option<u64>)> {
    reply
        .result
        .history
        .clone()
        .unwrap_or_default()
        .into_iter()
        .map(|HistoryEntry { role, text, turn }| (role, text, turn))
        .collect()
}

/// `(role, text, turn)` for a user/assistant pair.
pub fn turn(n: u64, user: &str, assistant: &str) -> [(String, String, Option<u64>); 2] {
    [
        ("user".into(), user.into(), Some(n)),
        ("assistant".into(), assistant.into(), Some(n)),
    ]
}

/// Fails with the whole reply when it is not ok.
pub fn assert_ok(reply: &Reply, what: &str) {
    assert!(reply.ok, "{what} failed: {}", json!(reply));
}

/// The error name of a failed reply.
pub fn error_name(reply: &Reply) -> String {
    assert!(!reply.ok, "expected a failure, got {}", json!(reply));
    reply
        .error
        .as_ref()
        .map(|e| e.name.clone())
        .unwrap_or_default()
}

/// Insta settings of the `acp` suite: snapshots under `snapshots/agy-reference-adapter/acp/`.
pub fn snapshot_settings() -> insta::Settings {
    agy_test_support::snapshot_settings("agy-reference-adapter/acp")
}

/// A reply plus what the agents saw: methods per agent process (in start order),
/// prompts sent, permission answers.
pub fn transcript(reply: &Reply, journal: &[AcpJournalEntry]) -> Value {
    let methods: Vec<Value> = agent_pids(journal)
        .into_iter()
        .map(|pid| json!(methods_of(journal, pid)))
        .collect();
    json!({
        "reply": reply,
        "agents": methods,
        "prompts_sent": prompts_sent(journal),
        "permission_answers": permission_outcomes(journal),
    })
}
