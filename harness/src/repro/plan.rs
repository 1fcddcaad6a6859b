//! The plan of a reproduction, by its profile: oneshot by the fuzz oracle
//! ([`super::oracle`]), session by seed 000 (`session_oracle`), acp by seed 003's restore
//! contract (`acp_oracle`).

use super::case::ReproCase;
use super::oracle::Plan;
use crate::scenario::Profile;

/// The plan of `case`.
pub fn plan(case: &ReproCase) -> Plan {
    match case.profile {
        Profile::Session => super::session_oracle::session_plan(case),
        Profile::Acp => super::acp_oracle::acp_plan(case),
        Profile::Oneshot => super::oracle::oneshot_plan(case),
    }
}
