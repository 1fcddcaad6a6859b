//! The process's own streams and records: stdout and stderr as agy writes them, stdin
//! read on its own thread, the journal record kept live, signals, scaled delays and the
//! way the process ends, and the child processes of scripted tool runs.

pub(crate) mod children;
pub(crate) mod clock;
pub(crate) mod ending;
pub(crate) mod output;
pub(crate) mod recorder;
pub(crate) mod signals;
pub(crate) mod stdin_reader;
