//! Driver protocol v1: how agy-harness talks to the program under test.
//!
//! JSON lines over the driver's stdin (requests) and stdout (replies and events). A line
//! with an `id` is the reply to the request with that id; a line with `event` is a
//! notification. Language-neutral; documented in `docs/driver-protocol.md`.

mod message;
mod outcome;

pub use message::{
    parse_driver_line, AcpRestoreState, DriverEvent, DriverLine, ErrorInfo, HistoryEntry, OpResult,
    Reply, Request, RequestOp, TurnUsage, DRIVER_PROTOCOL_VERSION,
};
pub use outcome::Outcome;

/// Environment variable: a folder the driver may keep state in; the same folder is
/// passed again when the harness restarts the driver.
pub const ENV_STATE_DIR: &str = "AGY_DRIVER_STATE_DIR";
/// Environment variable: a scratch workspace for the adapter (`--add-dir` target).
pub const ENV_WORK_DIR: &str = "AGY_DRIVER_WORK_DIR";
/// Environment variable: multiply every timeout and grace period by this factor.
pub const ENV_TIME_SCALE: &str = "AGY_HARNESS_TIME_SCALE";
/// Environment variable: the `agy` binary the adapter should run (default `agy` on PATH).
pub const ENV_AGY_BIN: &str = "AGY_BIN";
