//! Names of the files agy keeps in its data directory (`~/.gemini/antigravity-cli`,
//! docs/agy-reference.md §5), spelled once for the fake that writes them and the harness
//! that lays out or reads a sandbox's.

/// The OAuth token file agy keeps when no OS keyring is reachable (mode 600).
pub const TOKEN_FILE: &str = "antigravity-oauth-token";

/// The folder of each conversation's store: `<id>.db` from 1.0.4, `<id>.pb` before.
pub const CONVERSATIONS_DIR: &str = "conversations";

/// The global SQLite catalogue of conversations.
pub const SUMMARIES_DB: &str = "conversation_summaries.db";

/// The folder of agy's own log (`cli-<timestamp>.log` and the `cli.log` link to the
/// newest) when `--log-file` names none.
pub const LOG_DIR: &str = "log";

/// The link in [`LOG_DIR`] to the newest log.
pub const LOG_LINK: &str = "cli.log";
