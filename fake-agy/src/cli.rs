//! agy's command line: the Go-`flag` parser lives in agy-protocol so that the harness's
//! live wrapper and journal checks read an argv exactly as fake-agy does.

pub use agy_protocol::command_line::*;
