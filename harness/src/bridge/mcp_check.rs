//! `agy-harness check` on an `mcp` adapter config: start the server, list its tools,
//! and say which tool is missing when `[mcp] tool` names one the server does not offer.

use super::mcp::start_server;
use crate::adapter_config::AdapterConfig;
use crate::profile::Client;
use std::time::Duration;

/// What the server offers, or what is wrong (in words for `check`'s output).
pub async fn check_mcp_server(
    config: &AdapterConfig,
    within: Duration,
) -> Result<Vec<String>, String> {
    let Some(table) = &config.mcp else {
        return Err("the config has no `[mcp]` table: add one naming the tool that runs agy (docs/harness.md, \"[mcp]\")".to_string());
    };
    let served = config.adapter.profiles.iter().copied().find(|p| {
        matches!(
            crate::profile::unit(*p).reach,
            crate::profile::Reach::Driverless {
                client: Client::Mcp,
                ..
            }
        )
    });
    let command = match served {
        Some(profile) => config.driverless_command(Client::Mcp, profile),
        None => config.adapter.command.clone(),
    };
    let listed = tokio::time::timeout(within, async {
        let mut server = start_server(&command, &config.adapter.env).await?;
        let tools = server
            .peer()
            .list_all_tools()
            .await
            .map_err(|e| format!("`tools/list` failed: {e}"));
        let _ = server.close_with_timeout(Duration::from_secs(2)).await;
        tools
    })
    .await
    .map_err(|_| {
        format!(
            "the MCP server `{}` did not start and list its tools within {within:?}",
            command.join(" ")
        )
    })??;
    let names: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
    if !names.contains(&table.tool) {
        let offered = if names.is_empty() {
            "no tools".to_string()
        } else {
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(format!(
            "`[mcp] tool` names `{}`, which the server does not offer; it offers {offered}",
            table.tool
        ));
    }
    Ok(names)
}
