//! The `acp` unit: an ACP client of Antigravity's ACP server that restores sessions.

use super::CONTRACT;
use crate::profile::{ProbeScopes, ProfileUnit, Reach};
use agy_protocol::profile::Profile;

/// `acp`.
pub static UNIT: ProfileUnit = ProfileUnit {
    profile: Profile::Acp,
    reach: Reach::Driver,
    scenarios: "acp",
    docs: "docs/acp-profile.md#the-restore-contract-as-the-harness-judges-it",
    covers: "seed 003: the restore contract (docs/acp-profile.md)",
    contract: &CONTRACT,
    oracle: &super::oracle::Restore,
    readings: &[],
    probe_scopes: ProbeScopes::PER_SCENARIO,
};
