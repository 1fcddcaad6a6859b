//! The profiles as units: each profile's ops, contract table, `init` ops, docs section
//! and scenarios folder in its own folder ([`oneshot`], [`session`], [`acp`], [`text`]), and the
//! and scenarios folder in its own folder ([`oneshot`], [`session`], [`acp`], [`mcp`]), and the
//! registry ([`unit()`]) through which the runner and every subcommand reach them. The
//! registry is the only place outside a profile's folder that names a profile
//! (`scripts/profile-names` checks it); the rest of the harness asks a unit what it
//! needs: how the harness reaches the adapter ([`Reach`]), how the adapter runs agy
//! ([`AgyRun`]), which ops belong to it.

pub mod acp;
pub mod acp_agent;
pub mod mcp;
pub mod oneshot;
mod registry;
pub mod session;
pub mod text;
mod unit;

pub use agy_protocol::driver::OpDoc;
pub use agy_protocol::profile::AgyRun;
pub use registry::{by_oracle, unit, units, DEFAULT};
pub use unit::{Client, ContractLine, Evidence, Oracle, ProbeScopes, ProfileUnit, Reach};
