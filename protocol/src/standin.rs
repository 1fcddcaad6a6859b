//! The contract of `agy-standin`, the replay program that answers as one recorded agy
//! version (`standin/README.md`): where it finds its captures and the exit code that says
//! it held none for an invocation. Spelled once here for the stand-in and every caller
//! that runs it.

/// The folder of traces (`*.jsonl`, docs/trace-format.md) the stand-in answers from.
pub const AGY_STANDIN_TRACES: &str = "AGY_STANDIN_TRACES";

/// The stand-in's own exit code: it holds no capture for the invocation (or its folder
/// is unreadable). Reserved: no agy run recorded in the corpus exits with it, so it is
/// never mistaken for a replayed exit.
pub const STANDIN_UNSERVED_EXIT: i32 = 70;

/// The stand-in binary a test or script runs (default: the one the build left beside
/// the other workspace binaries).
pub const AGY_STANDIN_BIN: &str = "AGY_STANDIN_BIN";
