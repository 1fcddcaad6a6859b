//! The `oneshot` unit: an image provider, one print run per request.

use super::CONTRACT;
use crate::profile::{AgyRun, OpDoc, Oracle, ProbeScopes, ProfileUnit, Reach};
use agy_protocol::profile::Profile;

/// `oneshot`.
pub static UNIT: ProfileUnit = ProfileUnit {
    profile: Profile::Oneshot,
    reach: Reach::Driver(AgyRun::PrintPerRequest),
    scenarios: "oneshot",
    docs: "docs/contract.md#oneshot-an-image-provider-adr-0013-docsadr-0013-summarymd",
    covers: "ADR 0013 error table (docs/adr-0013-summary.md)",
    ops: &[OpDoc {
        name: "generate",
        shape: "prompt, aspect?, timeout_s?, references?, settings? → result.image (the image's path), usage?",
    }],
    ops_hint: "oneshot scenarios use `generate`",
    contract: &CONTRACT,
    oracle: Oracle::ImageProvider,
    readings: &[],
    probe_scopes: ProbeScopes::PER_SCENARIO,
};
