//! Releasing a process: end stdin, then SIGTERM, then SIGKILL, each after a bounded,
//! scaled grace (seed 000: "Release stops the bridge, ends stdin, and escalates
//! SIGTERM → SIGKILL within the existing grace and cleanup-wait bounds").

use super::process::AgyProcess;
use crate::environment::Environment;
use crate::faults::{Fault, FaultSet};
use agy_process::wait_for;
use nix::sys::signal::Signal;

/// Seconds agy gets to exit on its own once stdin is closed.
pub const STDIN_GRACE_S: f64 = 2.0;
/// Seconds agy gets after SIGTERM before SIGKILL.
pub const TERM_GRACE_S: f64 = 3.0;

/// Why a process is released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleaseReason {
    /// The turn failed.
    Failure,
    /// The turn or session was cancelled.
    Cancel,
    /// The session was closed (or the driver is shutting down).
    Close,
    /// A different model, effort or permission was selected.
    SelectionChanged,
    /// The process exited on its own.
    ProcessExited,
    /// Its stdin is no longer writable.
    StdinLost,
    /// The `process-per-turn` fault: released after every successful turn.
    PerTurn,
}

impl ReleaseReason {
    /// A short name for reports (`failure`, `cancel`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ReleaseReason::Failure => "failure",
            ReleaseReason::Cancel => "cancel",
            ReleaseReason::Close => "close",
            ReleaseReason::SelectionChanged => "selection_changed",
            ReleaseReason::ProcessExited => "process_exited",
            ReleaseReason::StdinLost => "stdin_lost",
            ReleaseReason::PerTurn => "per_turn",
        }
    }
}

/// Whether a turn that ended this way releases the process; `None` keeps it.
pub fn release_after_turn(succeeded: bool, faults: &FaultSet) -> Option<ReleaseReason> {
    match (succeeded, faults) {
        (true, f) if f.has(Fault::ProcessPerTurn) => Some(ReleaseReason::PerTurn),
        (true, _) => None,
        (false, f) if f.has(Fault::KeepsProcessAfterFailure) => None,
        (false, _) => Some(ReleaseReason::Failure),
    }
}

/// Whether a `select` releases the process.
pub fn release_after_select(changed: bool, faults: &FaultSet) -> Option<ReleaseReason> {
    (changed && !faults.has(Fault::KeepsProcessAfterModelChange))
        .then_some(ReleaseReason::SelectionChanged)
}

/// Ends the process: stdin closed, SIGTERM after [`STDIN_GRACE_S`], SIGKILL after
/// [`TERM_GRACE_S`] more (both scaled). Under `sigterm-without-sigkill` it stops after
/// SIGTERM and abandons a process that ignores it.
pub(crate) async fn release(mut process: AgyProcess, env: &Environment, faults: &FaultSet) {
    drop(process.stdin.take());
    if wait_for(&mut process.child, env.scaled(STDIN_GRACE_S))
        .await
        .is_some()
    {
        return;
    }
    process.guard.signal(Signal::SIGTERM);
    if wait_for(&mut process.child, env.scaled(TERM_GRACE_S))
        .await
        .is_some()
    {
        return;
    }
    if faults.has(Fault::SigtermWithoutSigkill) {
        process.guard.disarm();
        return;
    }
    process.guard.kill_and_reap(&mut process.child).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_keeps_and_failure_releases() {
        let none = FaultSet::none();
        assert_eq!(release_after_turn(true, &none), None);
        assert_eq!(
            release_after_turn(false, &none),
            Some(ReleaseReason::Failure)
        );
    }

    #[test]
    fn a_changed_selection_releases_and_an_unchanged_one_keeps() {
        let none = FaultSet::none();
        assert_eq!(
            release_after_select(true, &none),
            Some(ReleaseReason::SelectionChanged)
        );
        assert_eq!(release_after_select(false, &none), None);
    }

    #[test]
    fn faults_flip_exactly_their_trigger() {
        let per_turn = FaultSet::of([Fault::ProcessPerTurn]);
        assert_eq!(
            release_after_turn(true, &per_turn),
            Some(ReleaseReason::PerTurn)
        );
        assert_eq!(
            release_after_turn(false, &per_turn),
            Some(ReleaseReason::Failure)
        );
        let keep = FaultSet::of([Fault::KeepsProcessAfterFailure]);
        assert_eq!(release_after_turn(false, &keep), None);
        assert_eq!(
            release_after_select(true, &keep),
            Some(ReleaseReason::SelectionChanged)
        );
        let model = FaultSet::of([Fault::KeepsProcessAfterModelChange]);
        assert_eq!(release_after_select(true, &model), None);
        assert_eq!(
            release_after_turn(false, &model),
            Some(ReleaseReason::Failure)
        );
    }
}
