//! The `session` profile: its unit (reach, scenarios folder, docs), its contract and
//! its oracle (what `fuzz` generates and `repro` expects for it).

mod contract;
mod oracle;
pub mod repro_plan;
mod unit;

pub use contract::CONTRACT;
pub use unit::UNIT;
