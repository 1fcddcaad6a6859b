//! Why the ACP agent could not be started or did not answer: the causes an op's reply
//! (`agent_exited`) and `agy-harness check` put in words.

/// Why the agent is not there to answer.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The program could not be started.
    #[error("failed to start the agent `{program}`: {source}")]
    NoStart {
        /// The adapter's program.
        program: String,
        /// Why it could not be started.
        source: std::io::Error,
    },
    /// The launcher refused the command (an empty one, a bad environment, no sandbox).
    #[error(transparent)]
    Launch(#[from] crate::launch::LaunchError),
    /// The agent did not answer `initialize` within the start-up timeout.
    #[error(transparent)]
    Startup(crate::launch::StartupTimeout),
    /// The agent's stdin or stdout could not be piped.
    #[error("the agent's stdio could not be piped")]
    NoPipes,
    /// The ACP connection ended before its handle was given out.
    #[error("the ACP connection ended before it started")]
    NoConnection,
    /// The agent answered `initialize` with an error.
    #[error("`initialize` failed: {0}")]
    Initialize(agent_client_protocol::Error),
    /// The agent printed a line the bridge does not read (over the line cap, or not
    /// UTF-8): the connection ended there.
    #[error("{problem}; the ACP connection ended there")]
    Unreadable {
        /// The line's problem, located (`the agent's stdout:1:1: line longer than …`).
        problem: String,
    },
    /// The agent's process ended before it answered `initialize`.
    #[error("the agent ended ({how}) before it answered `initialize`")]
    EndedBeforeInitialize {
        /// Its exit code or signal.
        how: String,
    },
    /// The agent's process ended before it answered a request.
    #[error("the agent ended ({how}) before it answered")]
    Ended {
        /// Its exit code or signal.
        how: String,
    },
    /// The `initialize` result could not be turned into JSON.
    #[error("{0}")]
    Unserialisable(serde_json::Error),
}
