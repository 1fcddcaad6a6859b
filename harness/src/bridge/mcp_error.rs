//! Why the MCP bridge cannot serve: a server that does not start, initialise, list
//! its tools or offer the configured tool, and arguments it cannot build a call from.

use std::time::Duration;

/// Why the MCP server is not there to call, or not the one the config describes.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ServerError {
    /// The adapter config's command has no program.
    #[error("the adapter command is empty")]
    EmptyCommand,
    /// The program could not be started.
    #[error("failed to start the MCP server `{program}`: {why}")]
    NoStart {
        /// The adapter's program.
        program: String,
        /// Why it could not be started.
        why: String,
    },
    /// The server did not answer MCP's `initialize` handshake.
    #[error("the MCP server `{program}` did not initialise: {why}")]
    NoInitialise {
        /// The adapter's program.
        program: String,
        /// What the handshake ended with.
        why: String,
    },
    /// The adapter config has no `[mcp]` table to check the server against.
    #[error("the config has no `[mcp]` table: add one naming the tool that runs agy (docs/harness.md, \"[mcp]\")")]
    NoTable,
    /// `tools/list` was answered with an error.
    #[error("`tools/list` failed: {0}")]
    ListFailed(String),
    /// Start and `tools/list` together took longer than allowed.
    #[error("the MCP server `{command}` did not start and list its tools within {within:?}")]
    ListTimeout {
        /// The adapter's command line.
        command: String,
        /// The time allowed.
        within: Duration,
    },
    /// `[mcp] tool` names a tool the server does not list.
    #[error(
        "`[mcp] tool` names `{tool}`, which the server does not offer; it offers {}",
        offered_words(offered)
    )]
    NoSuchTool {
        /// The configured tool.
        tool: String,
        /// The tools the server lists.
        offered: Vec<String>,
    },
}

/// `no tools`, or the tools' names in backquotes, comma-separated.
fn offered_words(offered: &[String]) -> String {
    if offered.is_empty() {
        return "no tools".to_string();
    }
    offered
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why the bridge cannot build a tool call's arguments.
#[derive(Debug, thiserror::Error)]
pub enum ArgumentError {
    /// A `--argument` option without `=`.
    #[error("`--argument {0}` is not NAME=JSON")]
    NotNameJson(String),
    /// A `--argument` option whose value is not JSON.
    #[error("`--argument {option}`: the value is not JSON: {source}")]
    NotJson {
        /// The option as given.
        option: String,
        /// The JSON parser's complaint, with its line and column in the value.
        source: serde_json::Error,
    },
    /// The op gives a value (`model`, `conversation`, `timeout`) the tool takes no
    /// argument for.
    #[error(
        "the op gives a {0}, and the adapter config's `[mcp]` names no {0} argument (`{0}_arg`)"
    )]
    NoArgumentFor(&'static str),
}
