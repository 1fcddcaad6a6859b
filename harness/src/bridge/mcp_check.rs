//! `agy-harness check` on an `mcp` adapter config: start the server, list its tools,
//! and say which tool is missing when `[mcp] tool` names one the server does not offer.

use super::mcp::start_server;
use super::mcp_error::ServerError;
use crate::adapter_config::AdapterConfig;
use crate::profile::Client;
use std::time::Duration;

/// What the server offers, or what is wrong with it.
pub async fn check_mcp_server(
    config: &AdapterConfig,
    within: Duration,
) -> Result<Vec<String>, ServerError> {
    let Some(table) = &config.mcp else {
        return Err(ServerError::NoTable);
    };
    let served = config.adapter.profiles.iter().copied().find(|p| {
        matches!(
            crate::profile::unit(*p).reach,
            crate::profile::Reach::Driverless {
                client: Client::Mcp,
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
            .map_err(|e| ServerError::ListFailed(e.to_string()));
        let _ = server.close_with_timeout(Duration::from_secs(2)).await;
        tools
    })
    .await
    .map_err(|_| ServerError::ListTimeout {
        command: command.join(" "),
        within,
    })??;
    let names: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
    if !names.contains(&table.tool) {
        return Err(ServerError::NoSuchTool {
            tool: table.tool.clone(),
            offered: names,
        });
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_config_without_an_mcp_table_is_refused_before_a_server_starts() {
        let mut config = AdapterConfig::reference(std::path::Path::new("/nonexistent/server"), &[]);
        config.mcp = None;
        let err = check_mcp_server(&config, Duration::from_secs(5)).await;
        assert_eq!(err, Err(ServerError::NoTable));
    }
}
