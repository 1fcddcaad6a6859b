//! What reaches a request waiting for the agent's response (`acp_cancel`, interrupts),
//! and why such a wait ended without one.

use tokio::sync::watch;

/// Why waiting for a response ended without one.
#[derive(Debug)]
pub(crate) enum Interrupted {
    /// The agent's output ended (it exited or was killed).
    Exited,
    /// The driver asked to stop waiting (restart the agent, close).
    Interrupt,
    /// A non-prompt request took longer than the setup timeout.
    Timeout,
    /// Writing to the agent failed.
    Io(std::io::Error),
}

/// Signals that reach a running request.
pub(crate) struct Signals<'a> {
    /// `acp_cancel` bumps this: send `session/cancel`.
    pub cancel: Option<&'a mut watch::Receiver<u64>>,
    /// `acp_restart_agent` / `acp_close` bump this: stop waiting, kill the agent.
    pub interrupt: Option<&'a mut watch::Receiver<u64>>,
}

impl Signals<'_> {
    pub(crate) fn none() -> Signals<'static> {
        Signals {
            cancel: None,
            interrupt: None,
        }
    }
}
