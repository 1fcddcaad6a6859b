//! The bridge: the driver the harness supplies for a driverless profile. `agy-harness
//! bridge <client> -- <adapter command…>` speaks driver protocol v1
//! (docs/driver-protocol.md) on its own stdio toward the runner, and is the ACP or MCP
//! client of the adapter command, which it starts as its child in its own process
//! group: the runner's timeouts, journal probes, group kill and leftover checks apply
//! to it unchanged.

pub mod acp_agent;
pub mod mcp;
mod mcp_check;
mod mcp_class;
mod mcp_conversations;
mod mcp_error;
mod mcp_tool;

use crate::profile::Client;
use agy_process::lines::{AsyncBoundedLines, DEFAULT_LINE_CAP};
use agy_protocol::driver::Request;
pub use mcp_check::check_mcp_server;
pub use mcp_error::{ArgumentError, ServerError};
pub use mcp_tool::BridgeFailure;

/// The driver requests the runner sends on the bridge's stdin, one per line, each line
/// bounded; a line that is not a request is said on stderr and skipped.
struct Requests(AsyncBoundedLines<tokio::io::Stdin>);

impl Requests {
    /// The requests on this process's stdin.
    fn stdin() -> Requests {
        Requests(AsyncBoundedLines::new(tokio::io::stdin(), DEFAULT_LINE_CAP))
    }

    /// The next request; `None` at the end of stdin (or when it cannot be read).
    async fn next(&mut self) -> Option<Request> {
        while let Some(Ok(item)) = self.0.next().await {
            let Ok(line) = item.into_text("stdin") else {
                continue;
            };
            match serde_json::from_str::<Request>(&line) {
                Ok(request) => return Some(request),
                Err(_) => {
                    eprintln!("agy-harness bridge: ignoring a line that is not a request: {line:?}")
                }
            }
        }
        None
    }
}

/// `agy-harness bridge`.
#[derive(Debug, Clone, clap::Args)]
pub struct BridgeArgs {
    /// The protocol the adapter speaks: `acp` or `mcp`.
    pub client: String,
    /// mcp: the tool that runs agy.
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// mcp: the tool argument that takes the prompt.
    #[arg(long, value_name = "NAME")]
    pub prompt_arg: Option<String>,
    /// mcp: the tool argument that takes the model, if the tool has one.
    #[arg(long, value_name = "NAME")]
    pub model_arg: Option<String>,
    /// mcp: the tool argument that takes the conversation, if the tool has one.
    #[arg(long, value_name = "NAME")]
    pub conversation_arg: Option<String>,
    /// mcp: the tool argument that takes the timeout in seconds, if the tool has one.
    #[arg(long, value_name = "NAME")]
    pub timeout_arg: Option<String>,
    /// mcp: the conversation argument takes the conversation id the first result under
    /// a handle named, not the handle.
    #[arg(long, conflicts_with = "conversation_folder")]
    pub conversation_from_result: bool,
    /// mcp: the conversation argument takes a folder of its own per handle, made in
    /// the bridge's working folder (the sandbox's) when the handle is first used.
    #[arg(long)]
    pub conversation_folder: bool,
    /// mcp: the tool that continues a conversation: a handle's first call goes to
    /// `--tool`, each later one to this.
    #[arg(long, value_name = "NAME")]
    pub continue_tool: Option<String>,
    /// mcp: the field of a result that names its conversation (default
    /// `conversation_id`).
    #[arg(long, value_name = "NAME")]
    pub conversation_field: Option<String>,
    /// mcp: an argument every call carries, `NAME=JSON` (repeatable).
    #[arg(long = "argument", value_name = "NAME=JSON")]
    pub arguments: Vec<String>,
    /// The adapter's command line.
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

/// The driver command that bridges to `adapter` over `client`.
pub fn driver_command(client: Client, adapter: &[String]) -> Vec<String> {
    driver_command_with(client, &[], adapter)
}

/// The driver command that bridges to `adapter` over `client`, with the bridge's own
/// `options` (e.g. `--tool NAME`) before the `--`.
pub fn driver_command_with(client: Client, options: &[String], adapter: &[String]) -> Vec<String> {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "agy-harness".to_string());
    let mut out = vec![exe, "bridge".to_string(), client.as_str().to_string()];
    out.extend(options.iter().cloned());
    out.push("--".to_string());
    out.extend(adapter.iter().cloned());
    out
}

/// `agy-harness bridge`: serves driver protocol v1 on stdio; returns the exit code.
pub async fn bridge_command(args: BridgeArgs) -> i32 {
    match args.client.as_str() {
        "acp" => acp_agent::serve(args.command).await,
        "mcp" => mcp::serve(args).await,
        other => {
            eprintln!("agy-harness bridge: unknown client `{other}`; expected `acp` or `mcp`");
            crate::exit_code::BAD_INPUT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_driver_command_puts_the_options_before_the_adapter() {
        let adapter = vec!["server".to_string(), "--flag".to_string()];
        let cmd = driver_command_with(Client::Mcp, &["--tool".into(), "ask".into()], &adapter);
        assert_eq!(
            &cmd[1..],
            ["bridge", "mcp", "--tool", "ask", "--", "server", "--flag"]
        );
        let plain = driver_command(Client::Mcp, &adapter);
        assert_eq!(&plain[1..], ["bridge", "mcp", "--", "server", "--flag"]);
    }
}
