//! Acting out a script (docs/script-format.md): which rule serves an invocation or a
//! stdin line, its steps one after another, and recorded traces replayed.

pub(crate) mod actor;
pub(crate) mod rules;
pub(crate) mod trace_replay;
