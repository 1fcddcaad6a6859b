//! What the bridge saw the agent send outside request replies: each session's message
//! chunks (inside its prompt, during a load's replay, or late), and how the session's
//! permission requests are to be answered. Shared with the connection's handlers.

use super::strays::Strays;
use agent_client_protocol::v1::schema::SessionId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// How a session's `session/request_permission` is answered: `agent_new`'s
/// `permission` (allow when absent).
pub(super) use agy_protocol::driver::AgentPermission as Policy;

/// Where a session's chunks go right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Phase {
    /// No prompt and no load in flight: a chunk now is late.
    #[default]
    Idle,
    /// A prompt is in flight: chunks are its text.
    Prompt,
    /// A `session/load` is in flight: chunks are its replay.
    Replay,
}

#[derive(Debug, Default)]
struct Session {
    phase: Phase,
    /// Prompts sent and not yet answered (a second one may be sent during a turn).
    prompts: u32,
    text: String,
    cancelled: bool,
    policy: Policy,
}

#[derive(Debug, Default)]
struct Inner {
    sessions: HashMap<SessionId, Session>,
    late: String,
    permissions: Vec<String>,
}

/// The shared record, and the responses that answered no request.
#[derive(Debug, Clone, Default)]
pub(super) struct Seen(Arc<Mutex<Inner>>, Strays);

/// A turn as the bridge saw it when its response arrived.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct TurnSeen {
    /// Every `agent_message_chunk` text of the turn.
    pub(super) text: String,
    /// Whether the client sent `session/cancel` during the turn.
    pub(super) client_cancelled: bool,
}

impl Seen {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A handler that panicked holding the lock left plain data behind: keep using it.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The responses the agent sent that answered no request.
    pub(super) fn strays(&self) -> &Strays {
        &self.1
    }

    /// Records the policy of a new (or loaded) session.
    pub(super) fn set_policy(&self, id: &SessionId, policy: Policy) {
        self.lock().sessions.entry(id.clone()).or_default().policy = policy;
    }

    /// The policy of session `id`.
    pub(super) fn policy(&self, id: &SessionId) -> Policy {
        self.lock()
            .sessions
            .get(id)
            .map(|s| s.policy)
            .unwrap_or_default()
    }

    /// A prompt of session `id` is about to be sent.
    /// A prompt sent while another is in flight keeps the chunks of the first: they are
    /// the text of whichever prompt is answered first.
    pub(super) fn begin_prompt(&self, id: &SessionId) {
        let mut inner = self.lock();
        let s = inner.sessions.entry(id.clone()).or_default();
        if s.prompts == 0 {
            s.text.clear();
            s.cancelled = false;
        }
        s.prompts += 1;
        s.phase = Phase::Prompt;
    }

    /// A `session/load` of session `id` is about to be sent.
    pub(super) fn begin_replay(&self, id: &SessionId) {
        self.lock().sessions.entry(id.clone()).or_default().phase = Phase::Replay;
    }

    /// The request in flight for session `id` was answered: later chunks are late,
    /// unless another prompt of the session is still in flight (then they are its text).
    pub(super) fn end(&self, id: &SessionId) -> TurnSeen {
        let mut inner = self.lock();
        let s = inner.sessions.entry(id.clone()).or_default();
        if s.phase == Phase::Prompt {
            s.prompts = s.prompts.saturating_sub(1);
        }
        s.phase = if s.prompts > 0 {
            Phase::Prompt
        } else {
            Phase::Idle
        };
        TurnSeen {
            text: std::mem::take(&mut s.text),
            client_cancelled: std::mem::take(&mut s.cancelled),
        }
    }

    /// The client sent `session/cancel` for session `id`.
    pub(super) fn cancelled(&self, id: &SessionId) {
        let mut inner = self.lock();
        let s = inner.sessions.entry(id.clone()).or_default();
        if s.phase == Phase::Prompt {
            s.cancelled = true;
        }
    }

    /// An `agent_message_chunk` text of session `id`.
    pub(super) fn chunk(&self, id: &SessionId, text: &str) {
        let mut inner = self.lock();
        let s = inner.sessions.entry(id.clone()).or_default();
        match s.phase {
            Phase::Prompt => s.text.push_str(text),
            Phase::Replay => {}
            Phase::Idle => inner.late.push_str(text),
        }
    }

    /// A permission request was answered so.
    pub(super) fn answered(&self, outcome: String) {
        self.lock().permissions.push(outcome);
    }

    /// Every chunk text that arrived outside a prompt or a load.
    pub(super) fn late(&self) -> String {
        self.lock().late.clone()
    }

    /// The permission answers so far, in order.
    pub(super) fn permissions(&self) -> Vec<String> {
        self.lock().permissions.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_go_to_the_prompt_in_flight_and_later_ones_are_late() {
        let seen = Seen::default();
        let id = SessionId::from("s");
        seen.chunk(&id, "before ");
        seen.begin_prompt(&id);
        seen.chunk(&id, "answer");
        seen.cancelled(&id);
        let turn = seen.end(&id);
        seen.chunk(&id, "after");
        assert_eq!(turn.text, "answer");
        assert!(turn.client_cancelled);
        assert_eq!(seen.late(), "before after");
    }

    #[test]
    fn chunks_after_a_second_prompt_is_answered_go_to_the_prompt_still_in_flight() {
        let seen = Seen::default();
        let id = SessionId::from("s");
        seen.begin_prompt(&id);
        seen.chunk(&id, "so far ");
        seen.begin_prompt(&id);
        let refused = seen.end(&id);
        seen.chunk(&id, "answer");
        let turn = seen.end(&id);
        seen.chunk(&id, "after");
        // The first answer takes what arrived so far: the bridge cannot tell whose it is.
        assert_eq!(refused.text, "so far ");
        assert_eq!(turn.text, "answer");
        assert_eq!(seen.late(), "after");
    }

    #[test]
    fn a_load_replay_is_neither_a_turn_nor_late() {
        let seen = Seen::default();
        let id = SessionId::from("s");
        seen.begin_replay(&id);
        seen.chunk(&id, "old answer");
        let turn = seen.end(&id);
        assert_eq!(turn.text, "");
        assert_eq!(seen.late(), "");
    }

    #[test]
    fn a_cancel_outside_a_prompt_marks_no_turn() {
        let seen = Seen::default();
        let id = SessionId::from("s");
        seen.cancelled(&id);
        seen.begin_prompt(&id);
        assert!(!seen.end(&id).client_cancelled);
    }
}
