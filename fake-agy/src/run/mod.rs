//! One invocation from start to end: the `FAKE_AGY_*` knobs, agy's command line, the
//! scripted or default run (print mode, persistent mode, subcommands, slash commands,
//! the signed-out state), and why the fake itself cannot go on.

pub(crate) mod app;
pub(crate) mod cli;
pub(crate) mod commands;
pub(crate) mod error;
pub(crate) mod knobs;
pub(crate) mod persistent;
pub(crate) mod print_run;
pub(crate) mod signed_out;
pub(crate) mod subcommands;
