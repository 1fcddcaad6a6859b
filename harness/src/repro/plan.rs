//! The plan of a reproduction: its profile's oracle writes it
//! ([`crate::profile::ContractOracle::plan`]).

use crate::profile::repro_kit::case::ReproCase;
use crate::profile::repro_kit::plan::Plan;

/// The plan of `case`.
pub fn plan(case: &ReproCase) -> Plan {
    crate::profile::unit(case.profile).oracle.plan(case)
}
