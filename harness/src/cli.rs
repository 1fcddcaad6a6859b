//! The command line (clap derive). Help text is the doc comments.

use crate::report::{parse_report_target, ReportTarget};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

pub use crate::bench::BenchArgs;
pub use crate::faults::FaultsArgs;
pub use crate::fuzz::FuzzArgs;
pub use crate::options::{AdapterArgs, CommonArgs, RunnerArgs, ScenarioArgs};

/// Run conformance scenarios against an adapter that drives agy, on fake-agy.
#[derive(Debug, Parser)]
#[command(name = "agy-harness", version)]
pub struct Cli {
    /// When to use colours (also honours `NO_COLOR`).
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, global = true)]
    pub color: ColorWhen,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// Colours on a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run scenarios (default: the whole catalogue against the reference adapter).
    Run(RunArgs),
    /// Run the catalogue against every fault variant of the reference adapter and print
    /// the bug-detection score.
    Faults(FaultsArgs),
    /// Check scenario files (and an adapter config) without running anything.
    Check(CheckArgs),
    /// Write a starter adapter config and a driver skeleton into a repository.
    Init(crate::init::InitArgs),
    /// Measure catalogue wall time and the harness's overhead per scenario.
    Bench(BenchArgs),
    /// Generate agy behaviours and op sequences of a profile, judge each run by the
    /// profile's invariants, shrink a violation and write it as a scenario file.
    Fuzz(FuzzArgs),
    /// Re-run the spikes S1–S8 against fake-agy (default) or a live agy, and judge every
    /// recorded fact: holds, drifted or unverified.
    Spikes(crate::spike::SpikesArgs),
    /// Compare fake-agy's default behaviour with every capture of the corpus by shape
    /// and print the fidelity score.
    Fidelity(crate::fidelity::FidelityArgs),
    /// Write the script (agy or ACP) that replays a capture of the corpus.
    Convert(crate::capture::ConvertArgs),
    /// Run scenarios against an adapter under each agy version fake-agy models and print
    /// the adapter × version table.
    Matrix(MatrixArgs),
    /// Turn a pasted bug report (agy's output, stderr, `$ agy …` lines) or a recorded run
    /// into a scenario, run it against the adapter and minimise it while it still fails.
    Repro(crate::repro::ReproArgs),
    /// The driver of a driverless profile: driver protocol v1 on stdio, the ACP or MCP
    /// client of the adapter command (started by the runner, not by hand).
    #[command(hide = true)]
    Bridge(crate::bridge::BridgeArgs),
}

/// `agy-harness matrix`.
#[derive(Debug, Clone, Args)]
pub struct MatrixArgs {
    /// Scenario selection and run settings.
    #[command(flatten)]
    pub common: CommonArgs,
    /// The adapter under test.
    #[command(flatten)]
    pub target: AdapterArgs,
    /// The agy versions, comma-separated (default: every version fake-agy models).
    #[arg(long, value_name = "V,…", value_delimiter = ',')]
    pub versions: Vec<agy_protocol::AgyVersion>,
    /// Keep the sandbox folder of each failed cell and print where it is beside the
    /// failure (a passing cell's is removed).
    #[arg(long)]
    pub keep_sandboxes: bool,
    /// Also write the table: `json=PATH`, `markdown=PATH` or `html=PATH` (repeatable).
    #[arg(long, value_name = "FORMAT=PATH", value_parser = parse_report_target)]
    pub report: Vec<ReportTarget>,
}

/// `agy-harness run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Scenario selection and run settings.
    #[command(flatten)]
    pub common: CommonArgs,
    /// The adapter under test.
    #[command(flatten)]
    pub target: AdapterArgs,
    /// Also write a report: `json=PATH`, `junit=PATH`, `markdown=PATH` or `html=PATH`
    /// (repeatable).
    #[arg(long, value_name = "FORMAT=PATH", value_parser = parse_report_target)]
    pub report: Vec<ReportTarget>,
    /// Keep each scenario's sandbox folder and print where it is.
    #[arg(long)]
    pub keep_sandboxes: bool,
    /// Succeed even when the selection runs no scenario (by default that is exit 2).
    #[arg(long)]
    pub allow_empty: bool,
    /// List every skipped scenario with its reason (by default skips are summed up by
    /// profile in one line).
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Run the adapter's success-path scenarios (tag `live`) against this real agy
    /// instead of fake-agy (needs `--live`).
    #[arg(long, value_name = "PATH")]
    pub agy: Option<PathBuf>,
    /// Allow running a real agy: it spends your quota.
    #[arg(long, requires = "agy")]
    pub live: bool,
    /// At most this many live agy invocations; scenarios past it are skipped.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub budget: u32,
    /// How live runs get your credentials (every choice but `none` is an opt-in).
    #[arg(long, value_enum, default_value_t = crate::live::CredentialsArg::None)]
    pub credentials: crate::live::CredentialsArg,
    /// Record every live agy invocation, redacted, as one trace per scenario in this
    /// folder (needs `--live`; `agy-harness repro` reads it).
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// Act out this agy version in every scenario instead of the one each models, and
    /// run only the scenarios that apply to it: one column of `matrix`, to reproduce a
    /// cell of it.
    #[arg(long, value_name = "VERSION", conflicts_with = "agy")]
    pub agy_version: Option<agy_protocol::AgyVersion>,
}

/// `agy-harness check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// The scenario files.
    #[command(flatten)]
    pub source: ScenarioArgs,
    /// Also check this adapter config (and that its expected failures name scenarios).
    #[arg(long, value_name = "FILE")]
    pub adapter: Option<PathBuf>,
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
    fn run_without_arguments_parses() {
        let cli = Cli::try_parse_from(["agy-harness", "run"]).expect("parses");
        assert!(matches!(cli.command, Command::Run(_)));
    }
}
