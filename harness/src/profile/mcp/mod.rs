//! The `mcp` profile: its unit (ops, reach, scenarios folder, docs) and its contract.

mod contract;
mod unit;

pub use contract::CONTRACT;
pub use unit::UNIT;
