//! The checkpoint store: what the client must remember to continue an external ACP
//! session after its own process restarts (seed 003).
//!
//! One versioned JSON record per session handle in `AGY_DRIVER_STATE_DIR/acp/`. A turn
//! is `committed` only after its terminal `session/prompt` response was consumed;
//! `prompt_pending` is written *before* a prompt is sent, so a crash at any point after
//! that restores through `session/load` with an explicit history gap. Writes are atomic
//! (temp file in the same directory, fsync, rename, fsync of the directory): a reader
//! sees the old record or the new one, never a torn one. A record that cannot be read —
//! corrupt, a field missing, or a version this build does not know — degrades the
//! session to history-only: it is never guessed at (seed 003, review of the storage).

use agy_protocol::driver::HistoryEntry;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The record version this build writes and reads.
pub const CHECKPOINT_VERSION: u32 = 1;

/// Where the saved session stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Every prompt sent has had its terminal response consumed.
    Committed,
    /// A prompt was (or was about to be) sent and its terminal response was not
    /// consumed: the agent's history may be ahead of ours.
    PromptPending,
}

/// The prompt whose terminal response was not consumed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PendingPrompt {
    /// Its turn number.
    pub turn: u64,
    /// Its text (kept to report it, never to send it again).
    pub text: String,
}

/// The saved record (version [`CHECKPOINT_VERSION`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointRecord {
    /// Record format version.
    pub version: u32,
    /// The agent's external session id.
    pub session_id: String,
    /// The session's working directory (sent again on load/resume).
    pub cwd: String,
    /// The model the user selected, re-applied after a restore.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The mode the user selected, re-applied after a restore.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The permission policy (`allow`, `deny`, `ask`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<agy_protocol::driver::AcpPermission>,
    /// Committed or prompt pending.
    pub phase: Phase,
    /// Set when `phase` is `prompt_pending`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<PendingPrompt>,
    /// The last turn number used.
    pub turns: u64,
    /// The canonical history so far (committed turns and gap markers).
    pub history: Vec<HistoryEntry>,
}

/// What reading a checkpoint found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loaded {
    /// No record: the handle was never saved.
    Missing,
    /// A record this build understands.
    Record(Box<CheckpointRecord>),
    /// A record that must not be continued; the reason says why.
    HistoryOnly(String),
}

/// Decodes a record's bytes: unknown versions and anything malformed degrade to
/// history-only rather than being guessed at.
pub fn decode_checkpoint(bytes: &[u8]) -> Loaded {
    let value: serde_json::Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            return Loaded::HistoryOnly(format!(
                "checkpoint is not JSON (line {}, column {}): {e}",
                e.line(),
                e.column()
            ))
        }
    };
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(CHECKPOINT_VERSION) => {}
        Some(v) => {
            return Loaded::HistoryOnly(format!(
                "checkpoint version {v} is not supported (this client reads version {CHECKPOINT_VERSION})"
            ))
        }
        None => return Loaded::HistoryOnly("checkpoint has no numeric `version`".to_string()),
    }
    let record: CheckpointRecord = match serde_json::from_value(value) {
        Ok(r) => r,
        Err(e) => return Loaded::HistoryOnly(format!("checkpoint is malformed: {e}")),
    };
    if record.session_id.is_empty() {
        return Loaded::HistoryOnly("checkpoint has no external session id".to_string());
    }
    if (record.phase == Phase::PromptPending) != record.pending.is_some() {
        return Loaded::HistoryOnly("checkpoint phase and pending prompt disagree".to_string());
    }
    Loaded::Record(Box::new(record))
}

/// The checkpoint files of one driver: `<state dir>/acp/<handle>.json`.
#[derive(Debug, Clone)]
pub struct CheckpointStore {
    dir: PathBuf,
}

impl CheckpointStore {
    /// The store under `state_dir`.
    pub fn new(state_dir: &Path) -> CheckpointStore {
        CheckpointStore {
            dir: state_dir.join("acp"),
        }
    }

    /// The file of `handle`; handles are restricted to `[A-Za-z0-9_.-]` (no path tricks).
    pub fn path(&self, handle: &str) -> Result<PathBuf, String> {
        let ok = !handle.is_empty()
            && handle.len() <= 128
            && !handle.starts_with('.')
            && handle
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
        if !ok {
            return Err(format!(
                "session handle `{handle}` must be 1-128 characters of A-Z a-z 0-9 _ . - and not start with `.`"
            ));
        }
        Ok(self.dir.join(format!("{handle}.json")))
    }

    /// Reads the record of `handle`.
    pub fn load(&self, handle: &str) -> Loaded {
        let path = match self.path(handle) {
            Ok(p) => p,
            Err(e) => return Loaded::HistoryOnly(e),
        };
        match std::fs::read(&path) {
            Ok(bytes) => decode_checkpoint(&bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Loaded::Missing,
            Err(e) => Loaded::HistoryOnly(format!("failed to read `{}`: {e}", path.display())),
        }
    }

    /// Writes `record` atomically: temp file, fsync, rename over the old one, fsync the
    /// directory.
    pub fn save(&self, handle: &str, record: &CheckpointRecord) -> std::io::Result<()> {
        let path = self.path(handle).map_err(std::io::Error::other)?;
        std::fs::create_dir_all(&self.dir)?;
        let bytes = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
        let tmp = self
            .dir
            .join(format!(".{handle}.{}.tmp", std::process::id()));
        let written = (|| {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written?;
        if let Ok(dir) = std::fs::File::open(&self.dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn record(phase: Phase) -> CheckpointRecord {
        CheckpointRecord {
            version: CHECKPOINT_VERSION,
            session_id: "0b9e2c4a".into(),
            cwd: "/proj".into(),
            model: Some("gemini-3.8-flash-low".into()),
            mode: None,
            permission: None,
            phase,
            pending: (phase == Phase::PromptPending).then(|| PendingPrompt {
                turn: 2,
                text: "deploy".into(),
            }),
            turns: 2,
            history: vec![HistoryEntry {
                role: "user".into(),
                text: "hi".into(),
                turn: Some(1),
            }],
        }
    }

    #[test]
    fn a_saved_record_loads_back_unchanged() {
        let dir = tempfile::tempdir().expect("temp");
        let store = CheckpointStore::new(dir.path());
        let r = record(Phase::PromptPending);
        store.save("s1", &r).expect("save");
        assert_eq!(store.load("s1"), Loaded::Record(Box::new(r.clone())));
        let committed = record(Phase::Committed);
        store.save("s1", &committed).expect("overwrite");
        assert_eq!(store.load("s1"), Loaded::Record(Box::new(committed)));
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("acp"))
            .expect("dir")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        assert_eq!(leftovers, ["s1.json"], "no temp file is left behind");
    }

    #[test]
    fn a_missing_record_is_missing() {
        let dir = tempfile::tempdir().expect("temp");
        assert_eq!(
            CheckpointStore::new(dir.path()).load("nope"),
            Loaded::Missing
        );
    }

    #[test]
    fn an_unknown_version_degrades_to_history_only() {
        let mut v = serde_json::to_value(record(Phase::Committed)).expect("json");
        v["version"] = serde_json::json!(2);
        match decode_checkpoint(v.to_string().as_bytes()) {
            Loaded::HistoryOnly(why) => assert!(why.contains("version 2"), "{why}"),
            other => panic!("expected history-only, got {other:?}"),
        }
        v["version"] = serde_json::json!("1");
        assert!(matches!(
            decode_checkpoint(v.to_string().as_bytes()),
            Loaded::HistoryOnly(_)
        ));
    }

    #[test]
    fn corrupt_or_incomplete_records_degrade_to_history_only() {
        for bytes in [
            &b"{\"version\":1,\"session_id\":\"x\""[..],
            b"",
            b"[]",
            b"{\"version\":1}",
            b"{\"version\":1,\"session_id\":\"\",\"cwd\":\"/\",\"phase\":\"committed\",\"turns\":0,\"history\":[]}",
            b"{\"version\":1,\"session_id\":\"x\",\"cwd\":\"/\",\"phase\":\"prompt_pending\",\"turns\":1,\"history\":[]}",
            b"{\"version\":1,\"session_id\":\"x\",\"cwd\":\"/\",\"phase\":\"restoring\",\"turns\":1,\"history\":[]}",
        ] {
            assert!(
                matches!(decode_checkpoint(bytes), Loaded::HistoryOnly(_)),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn handles_cannot_escape_the_store() {
        let store = CheckpointStore::new(Path::new("/state"));
        for bad in ["", "../x", "a/b", ".hidden", "a b"] {
            assert!(store.path(bad).is_err(), "{bad}");
        }
        assert_eq!(
            store.path("s-1_a.b").expect("ok"),
            PathBuf::from("/state/acp/s-1_a.b.json")
        );
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode_checkpoint(&bytes);
        }

        #[test]
        fn records_round_trip(sid in "[a-f0-9-]{1,36}", turns in 0u64..50, pending in any::<bool>(), text in "\\PC{0,30}") {
            let mut r = record(if pending { Phase::PromptPending } else { Phase::Committed });
            r.session_id = sid;
            r.turns = turns;
            if let Some(p) = r.pending.as_mut() { p.text = text; }
            let bytes = serde_json::to_vec(&r).expect("json");
            prop_assert_eq!(decode_checkpoint(&bytes), Loaded::Record(Box::new(r)));
        }
    }
}
