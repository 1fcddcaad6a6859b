//! The `mcp` profile: an MCP server (stdio) whose tool `agy` runs one
//! `agy -p … --output-format json` per call and answers with agy's text, or with
//! `isError` and a text that names the failure's class (auth, quota, timeout, rejected
//! model). Calls with the same `conversation` continue one agy conversation.

mod conversations;
mod run;
mod server;
mod verdict;

pub use conversations::Conversations;
pub use run::{run_agy, AgyRun, ToolRequest};
pub use server::{serve_mcp, AgyServer, TOOL_NAME};
pub use verdict::{verdict, ToolText};
