//! The restore decision table (seed 003): which ACP method continues a saved session,
//! and whether the canonical history gets an explicit gap.
//!
//! | saved phase      | agent advertises        | method           | gap |
//! |------------------|-------------------------|------------------|-----|
//! | committed        | `resume` (±`loadSession`) | `session/resume` | no  |
//! | committed        | `loadSession` only      | `session/load`, replay dropped | no |
//! | prompt pending   | `loadSession` (±`resume`) | `session/load`, replay kept out | yes |
//! | prompt pending   | `resume` only           | `session/resume` | yes |
//! | either           | neither                 | none: history-only | — |
//!
//! Resume is preferred for a committed session because it replays nothing (docs/agy-acp-reference.md
//! §1.5, §7 item 27; acpx #332). A pending prompt may have progressed beyond the saved
//! history, so the session is loaded (the agent keeps what happened) and the client
//! reports a gap instead of guessing which replayed updates are new (seed 003: "reports
//! a history gap for an uncertain prompt instead of guessing"). There is no row with
//! `session/new`: a restore never forks the conversation (docs/agy-acp-reference.md §4 item 13).

use super::checkpoint::Phase;

/// How to continue a saved session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestoreMethod {
    /// `session/resume`: no replay.
    Resume,
    /// `session/load`: the agent replays history; the client keeps it out of the
    /// canonical history.
    Load,
}

/// The decision for one restore.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestorePlan {
    /// Continue with `method`; `gap` adds an explicit history gap.
    Continue {
        /// The ACP method.
        method: RestoreMethod,
        /// Whether a prompt may have progressed beyond the saved history.
        gap: bool,
    },
    /// The agent offers no way to continue: history-only, never `session/new`.
    HistoryOnly,
}

/// What the agent advertised in `initialize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RestoreCapabilities {
    /// `agentCapabilities.loadSession`.
    pub load: bool,
    /// `agentCapabilities.sessionCapabilities.resume` is present.
    pub resume: bool,
}

/// Decides how to restore a session saved in `phase` on an agent with `caps`.
pub fn plan_restore(phase: Phase, caps: RestoreCapabilities) -> RestorePlan {
    let gap = phase == Phase::PromptPending;
    let method = match (phase, caps.resume, caps.load) {
        (Phase::Committed, true, _) => RestoreMethod::Resume,
        (Phase::Committed, false, true) => RestoreMethod::Load,
        (Phase::PromptPending, _, true) => RestoreMethod::Load,
        (Phase::PromptPending, true, false) => RestoreMethod::Resume,
        (_, false, false) => return RestorePlan::HistoryOnly,
    };
    RestorePlan::Continue { method, gap }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(load: bool, resume: bool) -> RestoreCapabilities {
        RestoreCapabilities { load, resume }
    }

    #[test]
    fn the_decision_table_row_by_row() {
        use RestoreMethod::{Load, Resume};
        let rows = [
            (
                Phase::Committed,
                caps(true, true),
                RestorePlan::Continue {
                    method: Resume,
                    gap: false,
                },
            ),
            (
                Phase::Committed,
                caps(false, true),
                RestorePlan::Continue {
                    method: Resume,
                    gap: false,
                },
            ),
            (
                Phase::Committed,
                caps(true, false),
                RestorePlan::Continue {
                    method: Load,
                    gap: false,
                },
            ),
            (
                Phase::Committed,
                caps(false, false),
                RestorePlan::HistoryOnly,
            ),
            (
                Phase::PromptPending,
                caps(true, true),
                RestorePlan::Continue {
                    method: Load,
                    gap: true,
                },
            ),
            (
                Phase::PromptPending,
                caps(true, false),
                RestorePlan::Continue {
                    method: Load,
                    gap: true,
                },
            ),
            (
                Phase::PromptPending,
                caps(false, true),
                RestorePlan::Continue {
                    method: Resume,
                    gap: true,
                },
            ),
            (
                Phase::PromptPending,
                caps(false, false),
                RestorePlan::HistoryOnly,
            ),
        ];
        for (phase, c, want) in rows {
            assert_eq!(plan_restore(phase, c), want, "{phase:?} {c:?}");
        }
    }

    #[test]
    fn a_pending_prompt_always_reports_a_gap_when_it_continues() {
        for load in [false, true] {
            for resume in [false, true] {
                if let RestorePlan::Continue { gap, .. } =
                    plan_restore(Phase::PromptPending, caps(load, resume))
                {
                    assert!(gap);
                }
            }
        }
    }
}
