//! fake-agy: a scriptable stand-in for the `agy` CLI. It accepts agy's command line,
//! acts out a script or the default behaviour of a plausible agy 1.2.x, and journals
//! what it saw; it never judges. See docs/fake-agy.md and docs/script-format.md.
//! The fake Antigravity ACP agent is the crate `fake-agy-acp` (docs/acp-fake-agent.md).
//! The [`mock`] module is fake-agy as a library for an adapter's own tests
//! (docs/fake-agy-mock.md).

mod actor;
mod answer_stream;
mod app;
mod artifact;
mod bookkeeping;
mod boundary;
mod brain;
mod cli;
mod clock;
mod commands;
mod conversation;
mod decided_turn;
mod ending;
mod error;
pub mod exit_code;
mod help;
mod image;
mod knobs;
pub mod mock;
mod models;
mod output;
mod permission;
mod persistent;
mod print_run;
mod recorder;
mod rules;
mod session;
mod settings;
mod signals;
mod signed_out;
mod situations;
mod state;
mod stdin_reader;
mod structured;
mod subagent;
mod subcommands;
mod tools;
mod trace_replay;
mod turn;
mod usage_figures;
mod version_model;

pub use app::{main_with, main_with_os};
pub use help::root_usage;
pub use image::encode as encode_image;
