//! The `session` unit: one persistent stream-json process per conversation.

use super::CONTRACT;
use crate::profile::{AgyRun, OpDoc, Oracle, ProbeScopes, ProfileUnit, Reach};
use agy_protocol::profile::Profile;

/// `session`.
pub static UNIT: ProfileUnit = ProfileUnit {
    profile: Profile::Session,
    reach: Reach::Driver(AgyRun::StreamJsonSession),
    scenarios: "session",
    docs: "docs/contract.md#session-a-persistent-stream-json-client-seed-000",
    covers: "seed 000: the persistent-driver contract (docs/contract.md)",
    ops: &[
        OpDoc {
            name: "open",
            shape: "session, model?, effort?, permission? → nothing",
        },
        OpDoc {
            name: "turn",
            shape: "session, text → result.text, result.history, usage?",
        },
        OpDoc {
            name: "select",
            shape: "session, model?, effort?, permission? → nothing",
        },
        OpDoc {
            name: "cancel",
            shape: "session → nothing (the running turn replies with its own outcome)",
        },
        OpDoc {
            name: "close",
            shape: "session → result.history?",
        },
    ],
    ops_hint: "session scenarios use `open`, `turn`, `select`, `cancel`, `close`",
    contract: &CONTRACT,
    oracle: Oracle::PersistentDriver,
    readings: &[&["--answers-from", "streamed"]],
    probe_scopes: ProbeScopes::PER_SCENARIO,
};
