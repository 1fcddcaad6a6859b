//! The `acp-agent` unit: an ACP agent (server) that runs plain agy behind it, one print
//! run per prompt, continuing a conversation with `--conversation`.

use super::CONTRACT;
use crate::profile::{Client, ProbeScopes, ProfileUnit, Reach};
use agy_protocol::profile::Profile;

/// `acp-agent`.
pub static UNIT: ProfileUnit = ProfileUnit {
    profile: Profile::AcpAgent,
    reach: Reach::Driverless {
        client: Client::Acp,
    },
    scenarios: "acp-agent",
    docs: "docs/contract.md#acp-agent-an-acp-agent-in-front-of-agy",
    covers: "the acp-agent contract (docs/contract.md)",
    contract: &CONTRACT,
    oracle: &super::oracle::EditorAgent,
    readings: &[],
    // A killed agent is started afresh (it may list models again); each ACP session may
    // start agy once to read its `init` (agy-acp 0.2.1 does, examples/agy-acp).
    probe_scopes: ProbeScopes {
        restarts: &["agent_kill"],
        sessions: &["agent_new", "agent_load"],
    },
};
