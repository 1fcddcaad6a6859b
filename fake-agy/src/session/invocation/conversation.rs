//! The invocation's conversation: created or resumed on first use, its id, its step
//! indices and the duration a resumed conversation reports.

use super::Session;
use crate::error::FakeError;
use crate::store::conversation::Conversation;
use agy_protocol::calibration::UnknownConversation;

impl Session {
    /// The conversation, created or resumed on first use (docs/agy-reference.md §1.3).
    pub fn conversation(&mut self) -> Result<&mut Conversation, FakeError> {
        if self.conversation.is_none() {
            let (conv, stored) = self.resolve_conversation()?;
            self.app.create_brain(&conv.id)?;
            let cache = self
                .app
                .set_last_conversation(self.setup.workspace(), &conv.id)?;
            let id = conv.id.clone();
            let continued = stored.then(|| id.clone());
            let turn = conv.num_turns + 1;
            self.io.recorder().update(true, |r| {
                r.conversation_id = Some(id);
                r.continued_conversation = continued;
                r.conversation_turn = Some(turn);
                if !r
                    .files
                    .iter()
                    .any(|f| f.path == cache.display().to_string())
                {
                    r.files.push(agy_protocol::journal::FileRecord {
                        path: cache.display().to_string(),
                        bytes: std::fs::metadata(&cache).map(|m| m.len()).unwrap_or(0),
                    });
                }
            });
            conv.save(&self.app)?;
            self.record_conversation_start(&conv.id, stored, conv.next_step)?;
            self.due.owe_resume_message(conv.num_turns > 0);
            self.conversation = Some(conv);
        }
        self.conversation
            .as_mut()
            .ok_or_else(|| FakeError::Step("no conversation".into()))
    }

    /// The conversation this run works on, and whether an earlier run stored it.
    fn resolve_conversation(&mut self) -> Result<(Conversation, bool), FakeError> {
        let new_id = || uuid::Uuid::new_v4().to_string();
        let workspace = self.setup.workspace().to_string();
        if let Some(id) = self.setup.args().conversation.clone() {
            if let Some(c) = Conversation::load(&self.app, &id) {
                return Ok((c, true));
            }
            if self.setup.calibration().conversation.unknown_id == UnknownConversation::Create {
                // ≤1.1.x: a client-minted id creates the conversation (UX, 1.1.4).
                return Ok((Conversation::new(id, workspace), false));
            }
            // ≥1.2: warning and an agy-minted id (uxnan PR #255, 1.2.7).
            self.io
                .out()
                .stderr_line(&format!("warning: conversation \"{id}\" not found"));
            return Ok((Conversation::new(new_id(), workspace), false));
        }
        if self.setup.args().continue_last {
            if let Some(c) = self
                .app
                .last_conversation(self.setup.workspace())
                .and_then(|id| Conversation::load(&self.app, &id))
            {
                return Ok((c, true));
            }
        }
        Ok((Conversation::new(new_id(), workspace), false))
    }

    /// A resumed conversation's `duration_seconds`: the time since the conversation began
    /// (698 s on `kp-1.2.0-live-join-resumed`, 155 s on `jd-1.1.9-resume`), else `turn`.
    pub fn result_duration(&self, turn: f64) -> f64 {
        match &self.conversation {
            Some(c) if c.num_turns > 0 && c.started_unix_ms > 0 => {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_millis() as u64)
                    .unwrap_or(0);
                (now.saturating_sub(c.started_unix_ms) as f64 / 1000.0).max(turn)
            }
            _ => turn,
        }
    }

    /// The conversation id (creating the conversation).
    pub fn conversation_id(&mut self) -> Result<String, FakeError> {
        Ok(self.conversation()?.id.clone())
    }

    /// Hands out the next step index of the conversation.
    pub fn next_step_index(&mut self) -> Result<u64, FakeError> {
        let i = self.conversation()?.take_step();
        self.last_step_index = Some(i);
        Ok(i)
    }
}
