//! The conversations the tool continues: the harness's (or host's) handle → the
//! `conversation_id` agy printed for the first call under it.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// Handle → agy conversation id.
#[derive(Debug, Default)]
pub struct Conversations(Mutex<BTreeMap<String, String>>);

impl Conversations {
    /// The agy conversation of `handle`, if a call under it printed one.
    pub fn get(&self, handle: &str) -> Option<String> {
        self.0.lock().ok()?.get(handle).cloned()
    }

    /// Remembers `id` for `handle` (an empty id, from a run that failed before a
    /// conversation existed, is not remembered).
    pub fn remember(&self, handle: &str, id: &str) {
        if id.is_empty() {
            return;
        }
        if let Ok(mut map) = self.0.lock() {
            map.entry(handle.to_string())
                .or_insert_with(|| id.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_printed_id_of_a_handle_is_kept() {
        let c = Conversations::default();
        c.remember("c1", "");
        assert_eq!(c.get("c1"), None);
        c.remember("c1", "id-1");
        c.remember("c1", "id-2");
        assert_eq!(c.get("c1").as_deref(), Some("id-1"));
        assert_eq!(c.get("c2"), None);
    }
}
