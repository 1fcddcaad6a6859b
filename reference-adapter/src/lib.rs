//! The reference adapter: a correct adapter for agy's `oneshot` (image provider, ADR 0013),
//! `session` (persistent stream-json driver), `acp` and `text` (print-mode text client) profiles, speaking driver protocol v1
//! natively, with fault switches that each reproduce one real adapter bug.
//!
//! - [`driver`]: the request loop (concurrent requests, replies by id).
//! - [`oneshot`]: argv, prompt wrapper, brain directory, classification, the run.
//! - [`session`]: the kept process, replay filter, turn verdict, history, release.
//! - [`acp`]: the ACP client: checkpoint, restore, quarantine.
//! - [`text`]: the print-mode text client: one run per question, conversations continued.
//! - [`mcp`]: `agy-reference-adapter mcp`, an MCP server whose tool runs agy.
//! - [`acp_agent`]: the ACP agent in front of agy (`agy-reference-adapter acp-agent`).
//! - [`faults`]: the fault switches.

pub mod acp;
pub mod acp_agent;
pub mod agy_text;
pub mod answer_source;
pub mod cli;
pub mod driver;
pub mod environment;
pub mod failure;
pub mod faults;
pub mod mcp;
pub mod oneshot;
mod outbox;
mod pipes;
pub mod session;
mod stderr_tail;
pub mod text;

pub use answer_source::AnswerSource;
pub use cli::{run, Cli};
pub use environment::Environment;
pub use faults::{Fault, FaultSet};
