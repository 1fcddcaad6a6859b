//! The plan of a reproduction, by its profile: oneshot by the fuzz oracle
//! ([`super::oracle`]), session by seed 000 (`session_oracle`), acp by seed 003's restore
//! contract (`acp_oracle`).

use super::case::ReproCase;
use super::oracle::Plan;
use crate::profile::{unit, Oracle};

/// The plan of `case`.
pub fn plan(case: &ReproCase) -> Plan {
    match unit(case.profile).oracle {
        Oracle::PersistentDriver => super::session_oracle::session_plan(case),
        Oracle::Restore => super::acp_oracle::acp_plan(case),
        Oracle::ImageProvider => super::oracle::oneshot_plan(case),
        Oracle::TextClient => super::text_oracle::text_plan(case),
        Oracle::ToolResult => super::tool_oracle::tool_plan(case),
    }
}
