//! The `acp-agent` profile: an ACP agent that fronts agy for editors. Driverless: the
//! harness is the agent's ACP client through the bridge (`crate::bridge::acp_agent`).

mod contract;
mod oracle;
pub mod repro_plan;
mod unit;

pub use contract::CONTRACT;
pub use unit::UNIT;
