//! agy's data directory (docs/agy-reference.md §5, docs/spike-records.md S2): `brain/<conversation_id>/` with
//! its four subfolders, `cache/last_conversations.json`, and the fake's own record of
//! each conversation beside agy's `conversations/<id>.db`.

use crate::error::FakeError;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The subfolders agy creates in every conversation's brain dir (S2); on a failed image
/// run only these exist (S7 correction).
pub const BRAIN_SUBDIRS: &[&str] = &[
    ".system_generated/logs",
    ".tempmediaStorage",
    ".user_uploaded",
    "scratch",
];

/// The data directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppDir {
    /// `$HOME/.gemini/antigravity-cli` or `ANTIGRAVITY_APP_DATA_DIR`.
    pub root: PathBuf,
}

impl AppDir {
    /// `brain/<id>/`.
    pub fn brain(&self, id: &str) -> PathBuf {
        self.root.join("brain").join(id)
    }

    /// Creates `brain/<id>/` and its subfolders.
    pub fn create_brain(&self, id: &str) -> Result<PathBuf, FakeError> {
        let dir = self.brain(id);
        for sub in BRAIN_SUBDIRS {
            let p = dir.join(sub);
            fs::create_dir_all(&p).map_err(|e| FakeError::io("create brain dir", &p, e))?;
        }
        Ok(dir)
    }

    /// The fake's record of conversation `id`.
    pub fn conversation_file(&self, id: &str) -> PathBuf {
        self.root
            .join("conversations")
            .join(format!("{id}.fake-agy.json"))
    }

    /// `cache/last_conversations.json`.
    pub fn last_conversations_file(&self) -> PathBuf {
        self.root.join("cache").join("last_conversations.json")
    }

    /// The most recent conversation of `workspace` (what `--continue` resumes).
    pub fn last_conversation(&self, workspace: &str) -> Option<String> {
        let text = fs::read_to_string(self.last_conversations_file()).ok()?;
        let map: BTreeMap<String, String> = serde_json::from_str(&text).ok()?;
        map.get(workspace).cloned()
    }

    /// Records `id` as the newest conversation of `workspace`; the whole file is
    /// rewritten, keeping one id per workspace (§5).
    pub fn set_last_conversation(&self, workspace: &str, id: &str) -> Result<PathBuf, FakeError> {
        let path = self.last_conversations_file();
        let mut map: BTreeMap<String, String> = fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        map.insert(workspace.to_string(), id.to_string());
        write_file(&path, &serde_json::to_vec(&map).unwrap_or_default())?;
        Ok(path)
    }
}

/// Writes a file, creating its folder.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), FakeError> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| FakeError::io("create dir", parent, e))?;
    }
    fs::write(path, bytes).map_err(|e| FakeError::io("write file", path, e))
}
