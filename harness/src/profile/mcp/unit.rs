//! The `mcp` unit: an MCP server that exposes agy as a tool. Driverless: the harness is
//! its MCP client through the bridge (`agy-harness bridge mcp`).

use super::CONTRACT;
use crate::profile::{Client, ProbeScopes, ProfileUnit, Reach};
use agy_protocol::profile::Profile;

/// `mcp`.
pub static UNIT: ProfileUnit = ProfileUnit {
    profile: Profile::Mcp,
    reach: Reach::Driverless {
        client: Client::Mcp,
    },
    scenarios: "mcp",
    docs: "docs/contract.md#mcp-an-mcp-server-that-exposes-agy-as-a-tool",
    covers: "the mcp contract: what an MCP tool result can carry (docs/contract.md)",
    contract: &CONTRACT,
    oracle: &super::oracle::ToolResult,
    readings: &[],
    probe_scopes: ProbeScopes::PER_SCENARIO,
};
