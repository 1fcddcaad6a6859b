//! A conversation's state across turns and processes: turn count, cumulative usage and
//! the next step index (docs/agy-reference.md §1.3, §3.4: `num_turns` counts every turn, usage is
//! cumulative, `step_index` continues across processes), plus the last turn's lines for
//! the replay quirk.

use crate::error::FakeError;
use crate::store::brain::{write_file, AppDir};
use agy_protocol::Usage;
use serde::{Deserialize, Serialize};

/// One conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    /// Its UUID.
    pub id: String,
    /// The workspace it was born in.
    pub workspace: String,
    /// Finished turns.
    pub num_turns: u64,
    /// Cumulative usage of all finished turns.
    pub usage: Usage,
    /// The next `step_index` to hand out.
    pub next_step: u64,
    /// Highest step index of the last finished turn (for late steps).
    #[serde(default)]
    pub last_turn_max_step: Option<u64>,
    /// The stream-json lines of the last successful turn (steps and result), for the
    /// replay quirk.
    #[serde(default)]
    pub last_turn_lines: Vec<String>,
    /// The last `result` line written.
    #[serde(default)]
    pub last_result_line: Option<String>,
    /// When the conversation began (ms since the epoch; 0 when not recorded).
    #[serde(default)]
    pub started_unix_ms: u64,
    /// How many scripted model decisions (`[[model]]`) its turns have taken, in every
    /// process that worked on it: the next decided turn takes the one after.
    #[serde(default)]
    pub decisions_taken: u64,
}

impl Conversation {
    /// A new conversation.
    pub fn new(id: String, workspace: String) -> Conversation {
        Conversation {
            id,
            workspace,
            num_turns: 0,
            usage: Usage::ZERO,
            next_step: 0,
            last_turn_max_step: None,
            last_turn_lines: Vec::new(),
            last_result_line: None,
            decisions_taken: 0,
            started_unix_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as u64)
                .unwrap_or(0),
        }
    }

    /// Loads a stored conversation, `None` when agy would not know it.
    pub fn load(app: &AppDir, id: &str) -> Option<Conversation> {
        let text = std::fs::read_to_string(app.conversation_file(id)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Stores it.
    pub fn save(&self, app: &AppDir) -> Result<(), FakeError> {
        write_file(
            &app.conversation_file(&self.id),
            &serde_json::to_vec(self).unwrap_or_default(),
        )
    }

    /// Hands out the next step index.
    pub fn take_step(&mut self) -> u64 {
        let i = self.next_step;
        self.next_step += 1;
        i
    }
}
