//! Reading a script's rules (docs/script-format.md): which rule serves an invocation or a
//! stdin line, and recorded traces replayed. The steps are acted out by `run::actor`.

pub(crate) mod rules;
pub(crate) mod trace_replay;
