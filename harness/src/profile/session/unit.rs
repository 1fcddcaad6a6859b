//! The `session` unit: one persistent stream-json process per conversation.

use super::CONTRACT;
use crate::profile::{ProbeScopes, ProfileUnit, Reach};
use agy_protocol::profile::Profile;

/// `session`.
pub static UNIT: ProfileUnit = ProfileUnit {
    profile: Profile::Session,
    reach: Reach::Driver,
    scenarios: "session",
    docs: "docs/contract.md#session-a-persistent-stream-json-client-seed-000",
    covers: "seed 000: the persistent-driver contract (docs/contract.md)",
    contract: &CONTRACT,
    oracle: &super::oracle::PersistentDriver,
    readings: &[&["--answers-from", "streamed"]],
    probe_scopes: ProbeScopes::PER_SCENARIO,
};
