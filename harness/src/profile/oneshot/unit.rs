//! The `oneshot` unit: an image provider, one print run per request.

use super::CONTRACT;
use crate::profile::{ProbeScopes, ProfileUnit, Reach};
use agy_protocol::profile::Profile;

/// `oneshot`.
pub static UNIT: ProfileUnit = ProfileUnit {
    profile: Profile::Oneshot,
    reach: Reach::Driver,
    scenarios: "oneshot",
    docs: "docs/contract.md#oneshot-an-image-provider-adr-0013-docsadr-0013-summarymd",
    covers: "ADR 0013 error table (docs/adr-0013-summary.md)",
    contract: &CONTRACT,
    oracle: &super::oracle::ImageProvider,
    readings: &[],
    probe_scopes: ProbeScopes::PER_SCENARIO,
};
