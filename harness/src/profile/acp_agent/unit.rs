//! The `acp-agent` unit: an ACP agent (server) that runs plain agy behind it, one print
//! run per prompt, continuing a conversation with `--conversation`.

use super::CONTRACT;
use crate::profile::{AgyRun, Client, OpDoc, Oracle, ProbeScopes, ProfileUnit, Reach};
use agy_protocol::profile::Profile;

/// `acp-agent`.
pub static UNIT: ProfileUnit = ProfileUnit {
    profile: Profile::AcpAgent,
    reach: Reach::Driverless {
        client: Client::Acp,
        agy: AgyRun::PrintPerRequest,
    },
    scenarios: "acp-agent",
    docs: "docs/contract.md#acp-agent-an-acp-agent-in-front-of-agy",
    covers: "the acp-agent contract (docs/contract.md)",
    ops: &[
        OpDoc {
            name: "agent_initialize",
            shape: "→ result.extra (the agent's initialize result)",
        },
        OpDoc {
            name: "agent_new",
            shape: "session, permission? → result.extra.session_id",
        },
        OpDoc {
            name: "agent_prompt",
            shape: "session, text → result.text, result.extra.stop_reason; error.name is the stop reason or the JSON-RPC error",
        },
        OpDoc {
            name: "agent_cancel",
            shape: "session → (sends session/cancel)",
        },
        OpDoc {
            name: "agent_load",
            shape: "session → result.extra.method (session/load or session/resume)",
        },
        OpDoc {
            name: "agent_kill",
            shape: "→ (SIGKILL to the agent)",
        },
        OpDoc {
            name: "agent_close",
            shape: "→ result.text (message chunks sent outside any prompt), result.extra.exit_code",
        },
    ],
    ops_hint: "acp-agent scenarios use the `agent_*` ops",
    contract: &CONTRACT,
    oracle: Oracle::EditorAgent,
    readings: &[],
    // A killed agent is started afresh (it may list models again); each ACP session may
    // start agy once to read its `init` (agy-acp 0.2.1 does, examples/agy-acp).
    probe_scopes: ProbeScopes {
        restarts: &["agent_kill"],
        sessions: &["agent_new", "agent_load"],
    },
};
