//! The agy binary a spike run probes, and how its runs are sandboxed.

pub use crate::live::Credentials;
use agy_protocol::env::{FAKE_AGY_IMAGE_DURATION, FAKE_AGY_TURN_DURATION};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// The binary under probe.
#[derive(Debug, Clone)]
pub struct Target {
    /// Path to the binary.
    pub bin: PathBuf,
    /// True for a real agy: spends quota, obeys the budget.
    pub live: bool,
    /// Extra environment for every run (fake-agy knobs such as `FAKE_AGY_VERSION`).
    pub env: Vec<(String, String)>,
    /// fake-agy only: passed as `FAKE_AGY_TIME_SCALE`, and multiplies probe timeouts.
    pub time_scale: agy_protocol::TimeScale,
    /// Live only: how a run gets the user's credentials.
    pub credentials: Credentials,
    /// Live only: at most this many invocations; later runs are skipped for budget.
    pub budget: Option<Budget>,
    /// The budget's starting size, for the report.
    pub budget_start: u32,
}

/// A shared count of live invocations left.
#[derive(Debug, Clone)]
pub struct Budget(Arc<AtomicU32>);

impl Budget {
    /// A budget of `n` invocations.
    pub fn new(n: u32) -> Budget {
        Budget(Arc::new(AtomicU32::new(n)))
    }

    /// Takes one invocation; false when none is left.
    pub fn take(&self) -> bool {
        self.0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }

    /// Returns an invocation that was taken but never ran.
    pub fn give_back(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }

    /// Invocations left.
    pub fn left(&self) -> u32 {
        self.0.load(Ordering::SeqCst)
    }
}

impl Target {
    /// A fake-agy target. Its turns take agy's measured durations (scaled by
    /// `time_scale`), so a timing-dependent fact such as S6c's one-second print timeout
    /// shows as it does live: a trivial turn 2.7 s (docs/agy-reference.md §6, PONG on 1.2.17), an
    /// image turn 36 s (docs/spike-records.md S7: 32–40 s sequential).
    pub fn fake(bin: PathBuf, time_scale: agy_protocol::TimeScale) -> Target {
        Target {
            bin,
            live: false,
            env: vec![
                (FAKE_AGY_TURN_DURATION.into(), "2.7s".into()),
                (FAKE_AGY_IMAGE_DURATION.into(), "36s".into()),
            ],
            time_scale,
            credentials: Credentials::None,
            budget: None,
            budget_start: 0,
        }
    }

    /// True when a live budget has no invocation left (never on fake runs).
    pub fn budget_spent(&self) -> bool {
        self.live && self.budget.as_ref().is_some_and(|b| b.left() == 0)
    }

    /// Gives back an invocation taken for a run that could not start.
    pub fn give_back_invocation(&self) {
        if let (true, Some(b)) = (self.live, &self.budget) {
            b.give_back();
        }
    }

    /// Takes one invocation from the budget (always true on fake runs).
    pub fn take_invocation(&self) -> bool {
        match &self.budget {
            Some(b) if self.live => b.take(),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_runs_out_and_stays_out() {
        let b = Budget::new(2);
        assert!(b.take() && b.take());
        assert!(!b.take());
        assert_eq!(b.left(), 0);
    }
}
