//! Sessions on disk under the sandbox's Gemini home, so a new agent process can load or
//! resume a session an earlier one created (docs/agy-acp-reference.md §2.2, §2.9).
//!
//! The real server keeps `antigravity-acp/conversations/<sessionId>.db` (SQLite) plus
//! `<sessionId>.meta` (`{"cwd": …}`); the fake keeps the same directory and `.meta`
//! file but stores the conversation as `<sessionId>.json`, which is all it needs to
//! replay. Writes go to a temp file, then rename, so a killed agent leaves the last
//! whole state.

use super::error::AcpFakeError;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};

/// One conversation as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct StoredSession {
    pub(crate) session_id: String,
    pub(crate) cwd: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    /// ISO 8601, seconds, UTC (`2026-11-30T09:12:44Z`, docs/agy-acp-reference.md §6.6).
    pub(crate) updated_at: String,
    pub(crate) turns: Vec<StoredTurn>,
}

/// One prompt and what the agent answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct StoredTurn {
    /// The prompt's text blocks, joined.
    pub(crate) user: String,
    /// The agent's message text, all chunks joined (replayed as one chunk, §2.9).
    pub(crate) agent: String,
    /// False while the turn runs, and forever when the agent died mid-turn.
    pub(crate) complete: bool,
}

/// The conversations directory.
#[derive(Debug, Clone)]
pub(crate) struct SessionStore {
    dir: PathBuf,
    state_root: PathBuf,
}

impl SessionStore {
    /// The store under `state_root` (the Gemini home).
    pub(crate) fn new(state_root: &Path) -> SessionStore {
        SessionStore {
            dir: state_root.join("antigravity-acp").join("conversations"),
            state_root: state_root.to_path_buf(),
        }
    }

    /// `antigravity-acp/acp_token.json`: present once signed in (docs/agy-acp-reference.md §2.2, §2.4).
    pub(crate) fn token_path(&self) -> PathBuf {
        self.state_root
            .join("antigravity-acp")
            .join("acp_token.json")
    }

    /// True when a token or a `settings.json` auth type is present (docs/agy-acp-reference.md §2.4).
    pub(crate) fn has_credentials(&self) -> bool {
        if self.token_path().is_file() {
            return true;
        }
        let settings = self
            .state_root
            .join("antigravity-acp")
            .join("settings.json");
        fs::read_to_string(settings)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|v| v.pointer("/auth/type").is_some_and(|t| t.is_string()))
    }

    /// Writes the token after `authenticate`.
    pub(crate) fn save_token(&self, method: &str) -> Result<(), AcpFakeError> {
        let body = serde_json::json!({ "method": method, "token": "fake-token" });
        write_atomic(&self.token_path(), body.to_string().as_bytes())
    }

    /// Removes the token (`logout`).
    pub(crate) fn remove_token(&self) {
        let _ = fs::remove_file(self.token_path());
    }

    fn path_of(&self, session_id: &str) -> Option<PathBuf> {
        // Ids are server-chosen UUIDs; anything else cannot name a stored session.
        let safe = !session_id.is_empty()
            && session_id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        safe.then(|| self.dir.join(format!("{session_id}.json")))
    }

    /// The stored session, if there is one.
    pub(crate) fn load(&self, session_id: &str) -> Result<Option<StoredSession>, AcpFakeError> {
        let Some(path) = self.path_of(session_id) else {
            return Ok(None);
        };
        match fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| AcpFakeError::Store {
                    action: "parse stored session",
                    path: path.display().to_string(),
                    source: std::io::Error::other(e),
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(AcpFakeError::Store {
                action: "read stored session",
                path: path.display().to_string(),
                source,
            }),
        }
    }

    /// Saves a session (and its `.meta`).
    pub(crate) fn save(&self, session: &StoredSession) -> Result<(), AcpFakeError> {
        let Some(path) = self.path_of(&session.session_id) else {
            return Ok(());
        };
        let body = serde_json::to_vec_pretty(session).map_err(|e| AcpFakeError::Store {
            action: "encode session",
            path: path.display().to_string(),
            source: std::io::Error::other(e),
        })?;
        write_atomic(&path, &body)?;
        let meta = serde_json::json!({ "cwd": session.cwd }).to_string();
        write_atomic(&path.with_extension("meta"), meta.as_bytes())
    }

    /// Every stored session, most recently updated first.
    pub(crate) fn list(&self) -> Vec<StoredSession> {
        let mut sessions: Vec<StoredSession> = fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().extension().and_then(|x| x.to_str()) == Some("json"))
            .filter_map(|e| fs::read_to_string(e.path()).ok())
            .filter_map(|t| serde_json::from_str(&t).ok())
            .collect();
        sessions.sort_by(|a: &StoredSession, b| {
            b.updated_at
                .cmp(&a.updated_at)
                .then(a.session_id.cmp(&b.session_id))
        });
        sessions
    }
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AcpFakeError> {
    let err = |action: &'static str| {
        let p = path.display().to_string();
        move |source| AcpFakeError::Store {
            action,
            path: p,
            source,
        }
    };
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(err("create directory for"))?;
    }
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    fs::write(&tmp, bytes).map_err(err("write"))?;
    fs::rename(&tmp, path).map_err(err("rename into place"))
}

/// Now, as `2026-11-30T09:12:44Z`.
pub(crate) fn now_iso() -> String {
    let now = time::OffsetDateTime::now_utc();
    let now = now.replace_nanosecond(0).unwrap_or(now);
    now.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_session_loads_back_and_lists() {
        let dir = std::env::temp_dir().join(format!("acp-store-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let store = SessionStore::new(&dir);
        let s = StoredSession {
            session_id: "0b9e2c4a-5d1f-4e3a-9c77-2f6a1d0e8b13".into(),
            cwd: "/w".into(),
            title: Some("t".into()),
            updated_at: now_iso(),
            turns: vec![StoredTurn {
                user: "hi".into(),
                agent: "hello".into(),
                complete: true,
            }],
        };
        store.save(&s).expect("save");
        assert_eq!(store.load(&s.session_id).expect("load"), Some(s.clone()));
        assert_eq!(store.list(), vec![s]);
        assert_eq!(store.load("../etc/passwd").expect("load"), None);
        let _ = fs::remove_dir_all(&dir);
    }
}
