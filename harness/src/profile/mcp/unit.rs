//! The `mcp` unit: an MCP server that exposes agy as a tool. Driverless: the harness is
//! its MCP client through the bridge (`agy-harness bridge mcp`).

use super::CONTRACT;
use crate::profile::{AgyRun, Client, OpDoc, Oracle, ProbeScopes, ProfileUnit, Reach};
use agy_protocol::profile::Profile;

/// `mcp`.
pub static UNIT: ProfileUnit = ProfileUnit {
    profile: Profile::Mcp,
    reach: Reach::Driverless {
        client: Client::Mcp,
        agy: AgyRun::PrintPerRequest,
    },
    scenarios: "mcp",
    docs: "docs/contract.md#mcp-an-mcp-server-that-exposes-agy-as-a-tool",
    covers: "the mcp contract: what an MCP tool result can carry (docs/contract.md)",
    ops: &[
        OpDoc {
            name: "tool_list",
            shape: "→ result.extra.tools (the names of the tools the server lists)",
        },
        OpDoc {
            name: "tool_call",
            shape: "prompt, model?, conversation?, timeout_s? → result.text (the tool's text); when isError, error.name is the class the text names (auth, quota, timeout, rejected_model, other)",
        },
    ],
    ops_hint: "mcp scenarios use `tool_list` and `tool_call`",
    contract: &CONTRACT,
    oracle: Oracle::ToolResult,
    readings: &[],
    probe_scopes: ProbeScopes::PER_SCENARIO,
};
