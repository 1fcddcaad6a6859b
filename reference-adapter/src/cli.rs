//! Command line: fault switches and the fault list.

use crate::answer_source::AnswerSource;
use crate::driver::serve;
use crate::environment::Environment;
use crate::faults::{render_fault_list, Fault, FaultSet};
use clap::Parser;
use std::io::Write;

/// Reference agy adapter speaking driver protocol v1 on stdin/stdout.
#[derive(Debug, Parser)]
#[command(name = "agy-reference-adapter", version)]
pub struct Cli {
    /// Switch on a fault that reproduces a real adapter bug (repeatable).
    #[arg(long = "fault", value_enum, value_name = "NAME", global = true)]
    pub faults: Vec<Fault>,
    /// Where a session turn's answer is read from: both are correct readings of agy's
    /// output.
    #[arg(
        long,
        value_enum,
        value_name = "SOURCE",
        default_value_t = AnswerSource::StreamedOrResult,
        global = true
    )]
    pub answers_from: AnswerSource,
    /// Print every fault switch as one JSON object per line and exit.
    #[arg(long)]
    pub list_faults: bool,
    /// A driverless profile's server instead of the driver.
    #[command(subcommand)]
    pub server: Option<Server>,
}

/// The servers of the driverless profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::Subcommand)]
pub enum Server {
    /// An MCP server (stdio) whose tool `agy` runs one agy print run per call.
    Mcp,
    /// An ACP agent in front of agy on stdin/stdout (the `acp-agent` profile).
    AcpAgent,
}

/// Runs the driver (or prints the fault list) until stdin closes or `shutdown` arrives.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    if cli.list_faults {
        std::io::stdout().write_all(render_fault_list().as_bytes())?;
        return Ok(());
    }
    let mut env = Environment::from_process();
    env.answers = cli.answers_from;
    match cli.server {
        Some(Server::Mcp) => return crate::mcp::serve_mcp(env, FaultSet::of(cli.faults)).await,
        Some(Server::AcpAgent) => {
            return crate::acp_agent::serve(env, FaultSet::of(cli.faults)).await
        }
        None => {}
    }
    serve(
        env,
        FaultSet::of(cli.faults),
        tokio::io::stdin(),
        tokio::io::stdout(),
        termination(),
    )
    .await
}

/// Resolves on SIGTERM, SIGINT or SIGHUP, so the driver releases every agy before exiting.
async fn termination() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut streams = Vec::new();
    for kind in [
        SignalKind::terminate(),
        SignalKind::interrupt(),
        SignalKind::hangup(),
    ] {
        if let Ok(s) = signal(kind) {
            streams.push(s);
        }
    }
    if streams.is_empty() {
        return std::future::pending().await;
    }
    let waits = streams.iter_mut().map(|s| Box::pin(s.recv()));
    let _ = futures_select_all(waits).await;
}

async fn futures_select_all<F: std::future::Future + Unpin>(futs: impl Iterator<Item = F>) {
    let mut futs: Vec<F> = futs.collect();
    std::future::poll_fn(|cx| {
        for f in futs.iter_mut() {
            if std::pin::Pin::new(f).poll(cx).is_ready() {
                return std::task::Poll::Ready(());
            }
        }
        std::task::Poll::Pending
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn faults_are_repeatable() {
        let cli = Cli::try_parse_from([
            "agy-reference-adapter",
            "--fault",
            "trusts-success",
            "--fault",
            "process-per-turn",
        ])
        .expect("parses");
        assert_eq!(cli.faults, [Fault::TrustsSuccess, Fault::ProcessPerTurn]);
    }

    #[test]
    fn the_acp_agent_subcommand_takes_faults_after_it() {
        let cli = Cli::try_parse_from([
            "agy-reference-adapter",
            "acp-agent",
            "--fault",
            "agent-generic-errors",
        ])
        .expect("parses");
        assert_eq!(cli.server, Some(Server::AcpAgent));
        assert_eq!(cli.faults, [Fault::AgentGenericErrors]);
    }

    #[test]
    fn the_driverless_subcommand_is_named_for_its_profile() {
        // agy-harness inserts the profile's wire name after the program.
        let cli = Cli::command();
        assert!(cli
            .find_subcommand(agy_protocol::Profile::AcpAgent.as_str())
            .is_some());
    }

    #[test]
    fn unknown_fault_is_rejected() {
        assert!(Cli::try_parse_from(["agy-reference-adapter", "--fault", "nope"]).is_err());
    }
}
