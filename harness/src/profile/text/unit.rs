//! The `text` unit: a print-mode text client, one `agy -p …` run per question, a
//! conversation continued run by run.

use super::CONTRACT;
use crate::profile::{ProbeScopes, ProfileUnit, Reach};
use agy_protocol::profile::Profile;

/// `text`.
pub static UNIT: ProfileUnit = ProfileUnit {
    profile: Profile::Text,
    reach: Reach::Driver,
    scenarios: "text",
    docs: "docs/contract.md#text-a-print-mode-text-client",
    covers: "the print-mode text client contract (docs/contract.md)",
    contract: &CONTRACT,
    oracle: &super::oracle::TextClient,
    readings: &[],
    probe_scopes: ProbeScopes::PER_SCENARIO,
};
