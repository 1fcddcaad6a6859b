//! The `acp` unit: an ACP client of Antigravity's ACP server that restores sessions.

use super::CONTRACT;
use crate::profile::{AgyRun, OpDoc, Oracle, ProbeScopes, ProfileUnit, Reach};
use agy_protocol::profile::Profile;

const STATE: &str = "session → result.history, result.restore_state";

/// `acp`.
pub static UNIT: ProfileUnit = ProfileUnit {
    profile: Profile::Acp,
    reach: Reach::Driver(AgyRun::AcpServer),
    scenarios: "acp",
    docs: "docs/acp-profile.md#the-restore-contract-as-the-harness-judges-it",
    covers: "seed 003: the restore contract (docs/acp-profile.md)",
    ops: &[
        OpDoc {
            name: "acp_new",
            shape: "session, model?, mode?, permission? → result.history, result.restore_state",
        },
        OpDoc {
            name: "acp_prompt",
            shape: "session, text → result.text, result.history, result.restore_state",
        },
        OpDoc {
            name: "acp_cancel",
            shape: STATE,
        },
        OpDoc {
            name: "acp_restore",
            shape: STATE,
        },
        OpDoc {
            name: "acp_restart_agent",
            shape: STATE,
        },
        OpDoc {
            name: "acp_status",
            shape: STATE,
        },
        OpDoc {
            name: "acp_close",
            shape: STATE,
        },
    ],
    ops_hint: "acp scenarios use the `acp_*` ops",
    contract: &CONTRACT,
    oracle: Oracle::Restore,
    readings: &[],
    probe_scopes: ProbeScopes::PER_SCENARIO,
};
