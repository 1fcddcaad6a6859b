//! The `text` unit: a print-mode text client, one `agy -p …` run per question, a
//! conversation continued run by run.

use super::CONTRACT;
use crate::profile::{AgyRun, OpDoc, Oracle, ProbeScopes, ProfileUnit, Reach};
use agy_protocol::profile::Profile;

/// `text`.
pub static UNIT: ProfileUnit = ProfileUnit {
    profile: Profile::Text,
    reach: Reach::Driver(AgyRun::PrintPerRequest),
    scenarios: "text",
    docs: "docs/contract.md#text-a-print-mode-text-client",
    covers: "the print-mode text client contract (docs/contract.md)",
    ops: &[OpDoc {
        name: "ask",
        shape: "session?, prompt, conversation?, model?, effort?, permission?, timeout_s, workdir?, output? → result.text, result.conversation_id?, usage?",
    }],
    ops_hint: "text scenarios use `ask`",
    contract: &CONTRACT,
    oracle: Oracle::TextClient,
    readings: &[],
    probe_scopes: ProbeScopes::PER_SCENARIO,
};
