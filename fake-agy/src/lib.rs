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
pub use run::app::{main_with, main_with_os};
pub use turn::image::encode as encode_image;
