//! Driver protocol v1: how agy-harness talks to the program under test.
//!
//! JSON lines over the driver's stdin (requests) and stdout (replies and events). A line
//! with an `id` is the reply to the request with that id; a line with `event` is a
//! notification. Language-neutral; documented in `docs/driver-protocol.md`.

mod message;
mod ops;
mod outcome;
mod permission;

pub use message::{
    parse_driver_line, AcpRestoreState, AskRequest, DriverEvent, DriverLine, ErrorInfo,
    HistoryEntry, OpResult, Reply, Request, RequestOp, TurnUsage, DRIVER_PROTOCOL_VERSION,
};
pub use ops::{op_doc, ops_hint, ops_of, OpDoc, COMMON_OPS, OPS};
pub use outcome::Outcome;
pub use permission::{AcpPermission, AgentPermission, AgyPermission};
