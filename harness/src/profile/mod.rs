//! The profiles as units. Each profile's folder ([`oneshot`], [`session`], [`acp`],
//! [`text`], [`mcp`], [`acp_agent`]) holds its unit (how the harness reaches the adapter,
//! its scenarios folder and docs section), its contract table with the evidence of each
//! line, and its oracle ([`ContractOracle`]: what `fuzz` generates for it and what
//! `repro` expects of a reproduction); [`fuzz_kit`] and [`repro_kit`] hold what the
//! oracles share. Its ops and how its adapter runs agy are driver-protocol vocabulary
//! (`agy_protocol::driver::OPS`, [`AgyRun`]). The registry ([`unit()`]) is the one place
//! outside a profile's folder that names it (`scripts/profile-names` checks it); the
//! runner and every subcommand ask a unit what they need.

pub mod acp;
pub mod acp_agent;
pub mod fuzz_kit;
pub mod mcp;
pub mod oneshot;
mod oracle;
mod registry;
pub mod repro_kit;
pub mod session;
pub mod text;
mod unit;

pub use agy_protocol::driver::OpDoc;
pub use agy_protocol::profile::AgyRun;
pub(crate) use oracle::fuzz_case;
pub use oracle::{shared, ContractOracle, FuzzCase, SharedCase};
pub use registry::{reproduced_as, unit, units, DEFAULT};
pub use unit::{Client, ContractLine, Evidence, ProbeScopes, ProfileUnit, Reach};
