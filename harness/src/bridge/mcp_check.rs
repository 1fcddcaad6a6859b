//! `agy-harness check` on an `mcp` adapter config: start the server, list its tools,
//! and say which tool is missing when `[mcp] tool` names one the server does not offer.

use super::mcp::start_server;
use super::mcp_error::ServerError;
use crate::adapter_config::AdapterConfig;
use crate::profile::Client;
use std::time::Duration;

/// What the server offers, or what is wrong with it; `launch` is the server's start
/// in `check`'s sandbox with the adapter's command and environment set by the caller,
/// its command taken from `config` here.
pub async fn check_mcp_server(
    config: &AdapterConfig,
    sandbox: &crate::sandbox::Sandbox,
    env: &[(String, String)],
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
        let launch = crate::launch::Launch::in_sandbox(sandbox, &command)
            .map_err(|_| ServerError::EmptyCommand)?
            .sandbox_env(env);
        let mut server = start_server(&launch).await?;
        let tools = server
            .service
            .peer()
            .list_all_tools()
            .await
            .map_err(|e| ServerError::ListFailed(e.to_string()));
        let _ = server
            .service
            .close_with_timeout(Duration::from_secs(2))
            .await;
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
        let sandbox = crate::sandbox::Sandbox::create(None).expect("sandbox");
        let err = check_mcp_server(&config, &sandbox, &[], Duration::from_secs(5)).await;
        assert_eq!(err, Err(ServerError::NoTable));
    }
}
