//! The agent's sessions: each ACP session's agy conversation id, kept in the state
//! directory so a restarted agent continues it on `session/load`, the folder the client
//! gave it (`cwd` of `session/new` or `session/load`), where its agy runs, and the
//! cancel switch of the prompt running in it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use tokio::sync::oneshot;

#[derive(Debug, Default)]
struct Session {
    conversation: Option<String>,
    cwd: PathBuf,
    cancel: Option<oneshot::Sender<()>>,
}

/// A prompt taken up in a session: its conversation so far, the session's folder, and
/// the switch that cancels it.
#[derive(Debug)]
pub struct Begun {
    /// The agy conversation to continue, none before the session's first answer.
    pub conversation: Option<String>,
    /// The session's working directory, where agy runs.
    pub cwd: PathBuf,
    /// Resolves when the client cancels the prompt.
    pub cancel: oneshot::Receiver<()>,
}

/// Why a session cannot take a prompt or be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionError {
    /// No such session (ACP `resource_not_found`).
    Unknown(String),
    /// A prompt is already running in it.
    Busy(String),
}

/// Every session of this agent process.
#[derive(Debug)]
pub struct Sessions {
    dir: PathBuf,
    next: AtomicU64,
    map: Mutex<HashMap<String, Session>>,
}

impl Sessions {
    /// Sessions kept under `dir`.
    pub fn new(dir: PathBuf) -> Sessions {
        Sessions {
            dir,
            next: AtomicU64::new(1),
            map: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn file(&self, id: &str) -> PathBuf {
        self.dir.join(id)
    }

    /// A new session working in `cwd`; its id is unique across agent processes (pid and
    /// counter).
    pub fn create(&self, cwd: &Path) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = format!("ref-{}-{n}", std::process::id());
        let _ = std::fs::create_dir_all(&self.dir);
        let _ = std::fs::write(self.file(&id), "");
        let session = Session {
            cwd: cwd.to_path_buf(),
            ..Session::default()
        };
        self.lock().insert(id.clone(), session);
        id
    }

    /// Takes up a session an earlier agent process created, working in `cwd`.
    pub fn load(&self, id: &str, cwd: &Path) -> Result<(), SessionError> {
        let saved = std::fs::read_to_string(self.file(id))
            .map_err(|_| SessionError::Unknown(id.to_string()))?;
        let conversation = Some(saved.trim().to_string()).filter(|c| !c.is_empty());
        self.lock().insert(
            id.to_string(),
            Session {
                conversation,
                cwd: cwd.to_path_buf(),
                cancel: None,
            },
        );
        Ok(())
    }

    /// Starts a prompt in session `id`.
    pub fn begin(&self, id: &str) -> Result<Begun, SessionError> {
        let mut map = self.lock();
        let s = map
            .get_mut(id)
            .ok_or_else(|| SessionError::Unknown(id.to_string()))?;
        if s.cancel.as_ref().is_some_and(|c| !c.is_closed()) {
            return Err(SessionError::Busy(id.to_string()));
        }
        let (tx, rx) = oneshot::channel();
        s.cancel = Some(tx);
        Ok(Begun {
            conversation: s.conversation.clone(),
            cwd: s.cwd.clone(),
            cancel: rx,
        })
    }

    /// The prompt in session `id` ended; agy named its conversation `conversation`.
    pub fn end(&self, id: &str, conversation: Option<&str>) {
        let mut map = self.lock();
        if let Some(s) = map.get_mut(id) {
            s.cancel = None;
            if let Some(c) = conversation.filter(|c| !c.is_empty()) {
                s.conversation = Some(c.to_string());
                let _ = std::fs::write(self.file(id), c);
            }
        }
    }

    /// Cancels the prompt running in session `id`, if any.
    pub fn cancel(&self, id: &str) {
        if let Some(tx) = self.lock().get_mut(id).and_then(|s| s.cancel.take()) {
            let _ = tx.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conversation_survives_into_another_process_by_its_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = Sessions::new(dir.path().to_path_buf());
        let id = first.create(Path::new("/p/a"));
        let begun = first.begin(&id).expect("begins");
        assert_eq!(begun.conversation, None);
        assert_eq!(begun.cwd, Path::new("/p/a"));
        first.end(&id, Some("c1"));
        let second = Sessions::new(dir.path().to_path_buf());
        assert_eq!(
            second.begin(&id).err(),
            Some(SessionError::Unknown(id.clone()))
        );
        second.load(&id, Path::new("/p/b")).expect("loads");
        let begun = second.begin(&id).expect("begins");
        assert_eq!(begun.conversation.as_deref(), Some("c1"));
        assert_eq!(begun.cwd, Path::new("/p/b"));
        assert!(second.load("ref-0-0", Path::new("/p")).is_err());
    }

    #[test]
    fn a_second_prompt_while_one_runs_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = Sessions::new(dir.path().to_path_buf());
        let id = s.create(Path::new("/p"));
        let _begun = s.begin(&id).expect("begins");
        assert_eq!(s.begin(&id).err(), Some(SessionError::Busy(id.clone())));
    }
}
