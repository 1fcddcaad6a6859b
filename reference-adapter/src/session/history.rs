//! The adapter's own record of the conversation: every successful turn exactly once,
//! a user entry and an assistant entry, numbered. It survives process releases, so a
//! conversation continued on a new process still shows every turn.

use agy_protocol::driver::HistoryEntry;

/// The conversation so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    entries: Vec<HistoryEntry>,
    turns: u64,
}

impl History {
    /// Records a successful turn; returns its number (1-based).
    pub fn record(&mut self, user: &str, assistant: &str) -> u64 {
        self.turns += 1;
        for (role, text) in [("user", user), ("assistant", assistant)] {
            self.entries.push(HistoryEntry {
                role: role.to_string(),
                text: text.to_string(),
                turn: Some(self.turns),
            });
        }
        self.turns
    }

    /// Successful turns so far.
    pub fn turns(&self) -> u64 {
        self.turns
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> Vec<HistoryEntry> {
        self.entries.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_turn_appears_once_with_its_number() {
        let mut h = History::default();
        assert_eq!(h.record("one", "1"), 1);
        assert_eq!(h.record("two", "2"), 2);
        let e = h.entries();
        assert_eq!(e.len(), 4);
        assert_eq!(
            (e[2].role.as_str(), e[2].text.as_str(), e[2].turn),
            ("user", "two", Some(2))
        );
        assert_eq!(
            (e[3].role.as_str(), e[3].text.as_str(), e[3].turn),
            ("assistant", "2", Some(2))
        );
    }
}
