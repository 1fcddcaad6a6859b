//! One invocation from start to end: the `FAKE_AGY_*` knobs, the scripted run (its steps
//! acted out one after another, `actor`) or the default run (print mode, persistent
//! mode, subcommands, slash commands, the signed-out state).

pub(crate) mod actor;
pub(crate) mod app;
pub(crate) mod commands;
pub(crate) mod knobs;
pub(crate) mod persistent;
pub(crate) mod print_run;
pub(crate) mod signed_out;
pub(crate) mod stdin_prompt;
pub(crate) mod subcommands;
