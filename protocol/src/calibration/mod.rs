//! Calibrations: what fake-agy presents as one agy, as data (docs/calibration-format.md).
//!
//! A calibration is a TOML file: the version string, the model catalogue and its
//! listing, the `init` tool list, error and notice texts, the steps a turn adds, the
//! statuses and exit codes of denials, print timeouts and slash commands, the usage
//! keys, the files agy writes, and where a print run's prompt comes from. Each section
//! names its evidence or is marked unverified. Edges the record leaves open carry both
//! sides (`[[unrecorded]]`). fake-agy resolves one calibration per session; a new agy
//! version is one such file.

mod evidence;
mod model;
mod parse;
mod resolve;
mod root;
mod section;
mod sides;
mod unrecorded;
mod validate;

pub use evidence::{covers, is_unverified, Sources, Unverified};
pub use model::*;
pub use parse::{parse_calibration, read_calibration, CALIBRATION_CAP};
pub use resolve::ResolveError;
pub use section::{Section, SECTIONS};
pub use unrecorded::Unrecorded;
pub use validate::USAGE_KEYS;

impl Calibration {
    /// The calibration as a TOML file, readable by [`parse_calibration`].
    pub fn to_toml(&self) -> Result<String, toml::ser::Error> {
        toml::to_string(self)
    }
}

#[cfg(test)]
mod tests;
