//! Cancellation of a running turn, from two sources:
//!
//! - `cancel` bumps a counter; a turn remembers the counter's value when its request
//!   arrived, so a cancel sent after the turn was queued cancels it even if the turn has
//!   not started yet, and an old cancel never touches a later turn;
//! - `close` (and shutdown) bump an interrupt counter that a turn reads when it starts,
//!   so only the turn running at that moment is cut short; turns queued before the close
//!   still run, in order, and the close follows them.

use tokio::sync::watch;

/// The turn's view of the session's cancel and interrupt counters.
#[derive(Debug, Clone)]
pub(crate) struct CancelSignal {
    cancel: watch::Receiver<u64>,
    cancel_epoch: u64,
    interrupt: watch::Receiver<u64>,
    interrupt_epoch: u64,
}

impl CancelSignal {
    /// Cancelled once the cancel counter differs from `cancel_epoch` (its value when
    /// the request arrived) or the interrupt counter moves after this call.
    pub(crate) fn new(
        cancel: watch::Receiver<u64>,
        cancel_epoch: u64,
        interrupt: watch::Receiver<u64>,
    ) -> CancelSignal {
        let interrupt_epoch = *interrupt.borrow();
        CancelSignal {
            cancel,
            cancel_epoch,
            interrupt,
            interrupt_epoch,
        }
    }

    /// True when the turn is already cancelled.
    pub(crate) fn is_cancelled(&self) -> bool {
        *self.cancel.borrow() != self.cancel_epoch
            || *self.interrupt.borrow() != self.interrupt_epoch
    }

    /// Resolves when the turn is cancelled. A counter whose session handle is gone (the
    /// session was closed) just stops being watched; with both gone it never resolves.
    pub(crate) async fn cancelled(&mut self) {
        let (mut cancel_open, mut interrupt_open) = (true, true);
        loop {
            if self.is_cancelled() {
                return;
            }
            tokio::select! {
                r = self.cancel.changed(), if cancel_open => cancel_open = r.is_ok(),
                r = self.interrupt.changed(), if interrupt_open => interrupt_open = r.is_ok(),
                else => return std::future::pending().await,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    async fn poll_once<F: std::future::Future + Unpin>(fut: &mut F) -> Option<F::Output> {
        tokio::select! {
            biased;
            out = fut => Some(out),
            () = std::future::ready(()) => None,
        }
    }

    #[tokio::test]
    async fn a_cancel_after_the_request_cancels_it_even_before_it_starts() {
        let (cancel, cancel_rx) = watch::channel(0u64);
        let (_interrupt, interrupt_rx) = watch::channel(0u64);
        let epoch_at_request = *cancel.borrow();
        cancel.send_modify(|e| *e += 1);
        let mut signal = CancelSignal::new(cancel_rx, epoch_at_request, interrupt_rx);
        assert!(signal.is_cancelled());
        tokio::time::timeout(Duration::from_secs(5), signal.cancelled())
            .await
            .expect("cancelled");
    }

    #[tokio::test]
    async fn an_earlier_cancel_does_not_cancel_a_later_turn() {
        let (cancel, cancel_rx) = watch::channel(0u64);
        let (_interrupt, interrupt_rx) = watch::channel(0u64);
        cancel.send_modify(|e| *e += 1);
        let mut signal = CancelSignal::new(cancel_rx, 1, interrupt_rx);
        let mut fut = std::pin::pin!(signal.cancelled());
        assert!(poll_once(&mut fut).await.is_none());
    }

    #[tokio::test]
    async fn an_interrupt_is_seen_even_when_the_cancel_counter_is_gone() {
        // `close` bumps the interrupt and drops the session's handle (both senders) while
        // the turn waits: the closed cancel counter must not hide the interrupt. The race
        // picks a branch at random, so try it many times.
        for _ in 0..64 {
            let (cancel, cancel_rx) = watch::channel(0u64);
            let (interrupt, interrupt_rx) = watch::channel(0u64);
            let mut running = CancelSignal::new(cancel_rx, 0, interrupt_rx);
            let mut waiting = std::pin::pin!(running.cancelled());
            assert!(poll_once(&mut waiting).await.is_none(), "not cancelled yet");
            interrupt.send_modify(|e| *e += 1);
            drop(cancel);
            drop(interrupt);
            tokio::time::timeout(Duration::from_secs(5), waiting)
                .await
                .expect("interrupted");
        }
    }

    #[tokio::test]
    async fn an_interrupt_reaches_only_the_turn_running_when_it_came() {
        let (_cancel, cancel_rx) = watch::channel(0u64);
        let (interrupt, interrupt_rx) = watch::channel(0u64);
        interrupt.send_modify(|e| *e += 1);
        // A turn queued before the interrupt but started after it runs normally.
        let later = CancelSignal::new(cancel_rx.clone(), 0, interrupt_rx.clone());
        assert!(!later.is_cancelled());
        let mut running = CancelSignal::new(cancel_rx, 0, interrupt_rx);
        interrupt.send_modify(|e| *e += 1);
        tokio::time::timeout(Duration::from_secs(5), running.cancelled())
            .await
            .expect("interrupted");
    }
}
