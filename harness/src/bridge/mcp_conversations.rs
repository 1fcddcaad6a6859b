//! The conversations the MCP bridge has seen, by the handle a scenario gives them: which
//! handle was already used (a later call continues, through `[mcp] continue_tool` when
//! there is one), the conversation id a server's first result under a handle named
//! (`conversation_from = "result"`), and the folder of a handle
//! (`conversation_from = "folder"`).

use crate::mcp_table::ConversationFrom;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The longest part of a handle kept in its folder's name.
const FOLDER_NAME_CAP: usize = 64;

#[derive(Debug, Default)]
struct Seen {
    used: BTreeSet<String>,
    named: BTreeMap<String, String>,
}

/// Shared by the calls in flight.
#[derive(Debug, Clone, Default)]
pub struct Conversations(Arc<Mutex<Seen>>);

/// What a call under a handle is: the conversation's first, or a later one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    First,
    Later,
}

impl Conversations {
    /// Marks `handle` used; whether this call is its first.
    pub fn begin(&self, handle: &str) -> Turn {
        let Ok(mut seen) = self.0.lock() else {
            return Turn::First;
        };
        if seen.used.insert(handle.to_string()) {
            Turn::First
        } else {
            Turn::Later
        }
    }

    /// The conversation id a result under `handle` named first.
    pub fn named(&self, handle: &str) -> Option<String> {
        self.0.lock().ok()?.named.get(handle).cloned()
    }

    /// Keeps `id` as `handle`'s conversation, unless one was kept before.
    pub fn name(&self, handle: &str, id: String) {
        if let Ok(mut seen) = self.0.lock() {
            seen.named.entry(handle.to_string()).or_insert(id);
        }
    }

    /// The value of the conversation argument for `handle`: the handle, the id its
    /// first result named (none before it), or its folder under `work`, made here.
    pub fn argument(
        &self,
        from: ConversationFrom,
        handle: &str,
        work: &Path,
    ) -> std::io::Result<Option<String>> {
        match from {
            ConversationFrom::Handle => Ok(Some(handle.to_string())),
            ConversationFrom::Result => Ok(self.named(handle)),
            ConversationFrom::Folder => {
                let folder = folder_of(work, handle);
                std::fs::create_dir_all(&folder)?;
                Ok(Some(folder.display().to_string()))
            }
        }
    }
}

/// The folder of `handle` under `work`: `conversation-<handle>`, with every character
/// that is not a letter, digit, `-` or `_` as `_` and the name bounded, so no handle
/// names a path outside `work`.
pub fn folder_of(work: &Path, handle: &str) -> PathBuf {
    let name: String = handle
        .chars()
        .take(FOLDER_NAME_CAP)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    work.join(format!("conversation-{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_handle_s_first_call_is_first_and_every_later_one_later() {
        let c = Conversations::default();
        assert_eq!(c.begin("a"), Turn::First);
        assert_eq!(c.begin("b"), Turn::First);
        assert_eq!(c.begin("a"), Turn::Later);
        assert_eq!(c.begin("a"), Turn::Later);
    }

    #[test]
    fn the_first_named_id_is_kept() {
        let c = Conversations::default();
        assert_eq!(c.named("a"), None);
        c.name("a", "id-1".into());
        c.name("a", "id-2".into());
        assert_eq!(c.named("a").as_deref(), Some("id-1"));
    }

    #[test]
    fn each_handle_gets_a_folder_of_its_own_that_exists() {
        let work = tempfile::tempdir().unwrap();
        let c = Conversations::default();
        let a = c
            .argument(ConversationFrom::Folder, "a", work.path())
            .unwrap()
            .unwrap();
        let b = c
            .argument(ConversationFrom::Folder, "b", work.path())
            .unwrap()
            .unwrap();
        assert_ne!(a, b);
        assert!(Path::new(&a).is_dir() && Path::new(&b).is_dir());
        let again = c
            .argument(ConversationFrom::Folder, "a", work.path())
            .unwrap();
        assert_eq!(again.as_deref(), Some(a.as_str()));
    }

    proptest! {
        #[test]
        fn no_handle_names_a_folder_outside_the_work_folder(handle in ".{0,200}") {
            let work = Path::new("/w");
            let f = folder_of(work, &handle);
            prop_assert_eq!(f.parent(), Some(work));
            let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
            prop_assert!(name.starts_with("conversation-"));
            prop_assert!(name.len() <= "conversation-".len() + FOLDER_NAME_CAP);
        }
    }
}
