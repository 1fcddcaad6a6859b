//! fake-agy: a scriptable stand-in for the `agy` CLI. It accepts agy's command line,
//! acts out a script or the default behaviour of a plausible agy 1.2.x, and journals
//! what it saw; it never judges. See docs/fake-agy.md and docs/script-format.md.
//! The fake Antigravity ACP agent is the crate `fake-agy-acp` (docs/acp-fake-agent.md).
//! The [`mock`] module is fake-agy as a library for an adapter's own tests
//! (docs/fake-agy-mock.md).

mod cli;
mod error;
pub mod exit_code;
mod io;
pub mod mock;
mod model;
mod run;
mod script;
mod session;
mod store;
mod turn;

pub use model::help::root_usage;

/// True when this process is a child started for a scripted tool run
/// (`FAKE_AGY_TOOL_CHILD`): it has then lived its life (waited until killed or its
/// time ran out) and must exit without acting as agy.
pub fn act_as_tool_child() -> bool {
    io::children::act_as_tool_child(std::env::var(agy_protocol::env::FAKE_AGY_TOOL_CHILD).ok())
}
pub use run::app::{main_with, main_with_os};
pub use turn::image::encode as encode_image;
