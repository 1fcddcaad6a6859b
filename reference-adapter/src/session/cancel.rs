//! Cancellation of a running turn. Each `cancel` op bumps a counter; a turn remembers the
//! counter's value when its request arrived, so a cancel sent after the turn was queued
//! cancels it even if the turn has not started yet, and an old cancel never touches a
//! later turn.

use tokio::sync::watch;

/// The turn's view of the session's cancel counter.
#[derive(Debug, Clone)]
pub(crate) struct CancelSignal {
    rx: watch::Receiver<u64>,
    epoch: u64,
}

impl CancelSignal {
    /// Cancelled once the counter differs from `epoch`.
    pub(crate) fn new(rx: watch::Receiver<u64>, epoch: u64) -> CancelSignal {
        CancelSignal { rx, epoch }
    }

    /// True when the turn is already cancelled.
    pub(crate) fn is_cancelled(&self) -> bool {
        *self.rx.borrow() != self.epoch
    }

    /// Resolves when the turn is cancelled; never when the counter is gone.
    pub(crate) async fn cancelled(&mut self) {
        loop {
            if *self.rx.borrow_and_update() != self.epoch {
                return;
            }
            if self.rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_bump_after_the_request_cancels_it() {
        let (tx, rx) = watch::channel(0u64);
        let mut signal = CancelSignal::new(rx, 0);
        tx.send_modify(|e| *e += 1);
        tokio::time::timeout(Duration::from_secs(5), signal.cancelled())
            .await
            .expect("cancelled");
    }

    #[tokio::test]
    async fn an_earlier_bump_does_not_cancel_a_later_turn() {
        let (tx, rx) = watch::channel(0u64);
        tx.send_modify(|e| *e += 1);
        let mut signal = CancelSignal::new(rx, 1);
        let mut fut = std::pin::pin!(signal.cancelled());
        assert!(futures_poll_once(&mut fut).await.is_none());
    }

    async fn futures_poll_once<F: std::future::Future + Unpin>(fut: &mut F) -> Option<F::Output> {
        tokio::select! {
            biased;
            out = fut => Some(out),
            () = std::future::ready(()) => None,
        }
    }
}
