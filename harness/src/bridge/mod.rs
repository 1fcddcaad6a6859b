//! The bridge: the driver the harness supplies for a driverless profile. A driverless
//! adapter speaks a standard protocol (ACP or MCP) on its own stdio; `agy-harness bridge
//! <client> -- <adapter command…>` speaks driver protocol v1 (docs/driver-protocol.md)
//! toward the runner and is the client of the adapter, which it starts as its child in
//! its own process group. So the runner, its timeouts, journal probes, leftover checks
//! and reports serve driverless profiles unchanged: the bridge is their driver.

pub mod acp_agent;

use crate::profile::Client;

/// `agy-harness bridge`.
#[derive(Debug, Clone, clap::Args)]
pub struct BridgeArgs {
    /// The protocol the adapter speaks: `acp` or `mcp`.
    pub client: String,
    /// The adapter's command line.
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

/// The driver command that bridges to `adapter` over `client`.
pub fn driver_command(client: Client, adapter: &[String]) -> Vec<String> {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "agy-harness".to_string());
    let mut command = vec![
        exe,
        "bridge".to_string(),
        client.as_str().to_string(),
        "--".to_string(),
    ];
    command.extend(adapter.iter().cloned());
    command
}

/// `agy-harness bridge`: serves driver protocol v1 on stdio; returns the exit code.
pub async fn bridge_command(args: BridgeArgs) -> i32 {
    match args.client.as_str() {
        "acp" => acp_agent::serve(args.command).await,
        other => {
            eprintln!(
                "error: `agy-harness bridge` has no client `{other}`\nhelp: the clients are `acp`"
            );
            crate::exit_code::BAD_INPUT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_driver_command_names_the_client_and_ends_with_the_adapter() {
        let adapter = ["my-agent".to_string(), "--flag".to_string()];
        let command = driver_command(Client::Acp, &adapter);
        assert_eq!(command[1..4], ["bridge", "acp", "--"]);
        assert_eq!(command[4..], adapter);
    }
}
