//! The gate every agent message of a session passes: which `session/update`s belong to
//! the running turn, and which permission requests may be answered by policy.
//!
//! ACP v1 updates carry no turn id, so attribution is positional: an update belongs to
//! the turn whose `session/prompt` is outstanding. Everything else is quarantined —
//! updates while a restore is open (load replay, late output of the old session, on the
//! gap path too: seed 003's P2), updates after a prompt's terminal response and before
//! the next prompt is sent (late notifications, docs/agy-acp-reference.md §1.6, §7 item 10) — and a
//! permission request that is not part of a running turn is answered `cancelled`, never
//! by policy (docs/agy-acp-reference.md §7 item 20; acpx #631).

/// Where the session's traffic stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Gate {
    /// No prompt outstanding: updates are late or unsolicited.
    #[default]
    Idle,
    /// A restore is open (from the load/resume request until the checkpoint is written
    /// and model/mode are re-applied).
    Restoring,
    /// A prompt was sent and its terminal response not yet consumed.
    Turn,
}

/// What to do with one `session/update`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateAction {
    /// Part of the running turn.
    Attribute,
    /// Replay or late output of a restored session: kept out of the canonical history,
    /// counted as evidence.
    Quarantine,
    /// Outside any turn: dropped (counted).
    Drop,
}

/// What to do with one `session/request_permission`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionAction {
    /// Answer with the session's permission policy.
    Policy,
    /// Answer `cancelled`.
    Cancel,
}

impl Gate {
    /// The action for a `session/update` arriving now.
    pub fn on_update(self) -> UpdateAction {
        match self {
            Gate::Turn => UpdateAction::Attribute,
            Gate::Restoring => UpdateAction::Quarantine,
            Gate::Idle => UpdateAction::Drop,
        }
    }

    /// The action for a permission request arriving now; `cancelling` is true once the
    /// running turn was cancelled (every pending request is then answered `cancelled`,
    /// docs/agy-acp-reference.md §1.7).
    pub fn on_permission(self, cancelling: bool) -> PermissionAction {
        match self {
            Gate::Turn if !cancelling => PermissionAction::Policy,
            _ => PermissionAction::Cancel,
        }
    }
}

/// Counts of what the gate kept away from the canonical history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct QuarantineCounts {
    /// Updates received while a restore was open (replay and late output).
    pub quarantined: u64,
    /// Of those, `user_message_chunk`s (evidence of replayed turns).
    pub replayed_user_chunks: u64,
    /// Updates received outside any turn.
    pub dropped: u64,
    /// Permission requests answered `cancelled` outside a running turn.
    pub permissions_cancelled: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_running_turn_takes_updates() {
        assert_eq!(Gate::Turn.on_update(), UpdateAction::Attribute);
        assert_eq!(Gate::Restoring.on_update(), UpdateAction::Quarantine);
        assert_eq!(Gate::Idle.on_update(), UpdateAction::Drop);
    }

    #[test]
    fn permissions_outside_a_running_uncancelled_turn_are_cancelled() {
        assert_eq!(Gate::Turn.on_permission(false), PermissionAction::Policy);
        assert_eq!(Gate::Turn.on_permission(true), PermissionAction::Cancel);
        assert_eq!(
            Gate::Restoring.on_permission(false),
            PermissionAction::Cancel
        );
        assert_eq!(Gate::Idle.on_permission(false), PermissionAction::Cancel);
    }
}
