//! The ACP client's error names, as `error.name` in driver replies.

/// The agent asked for authentication (`-32000`, docs/agy-acp-reference.md §2.4).
pub const ACP_AUTH: &str = "AcpAuthError";
/// The agent process could not start, or exited before answering.
pub const ACP_AGENT_EXITED: &str = "AcpAgentExitedError";
/// `session/load` or `session/resume` failed; the session stays restorable.
pub const ACP_RESTORE_FAILED: &str = "AcpRestoreFailedError";
/// The saved record cannot be continued (missing id, unknown version, corrupt, or an
/// agent with neither load nor resume): history-only.
pub const ACP_HISTORY_ONLY: &str = "AcpHistoryOnlyError";
/// The turn ended with `stopReason: cancelled`.
pub const ACP_TURN_CANCELLED: &str = "AcpTurnCancelledError";
/// The agent answered a request with an error, or with something not ACP.
pub const ACP_PROTOCOL: &str = "AcpProtocolError";
/// The checkpoint could not be written.
pub const ACP_CHECKPOINT: &str = "AcpCheckpointError";
