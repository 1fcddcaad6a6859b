//! The command line (clap derive). Help text is the doc comments.

use clap::{Parser, Subcommand, ValueEnum};

pub use crate::bench::BenchArgs;
pub use crate::check_command::CheckArgs;
pub use crate::faults::FaultsArgs;
pub use crate::fuzz::FuzzArgs;
pub use crate::matrix::MatrixArgs;
pub use crate::options::{AdapterArgs, CommonArgs, RunnerArgs, ScenarioArgs};
pub use crate::run_command::RunArgs;

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
    /// Record your own agy (live, on a budget) with the calibration probes, learn a
    /// calibration from the recordings and print what drifted from the built-in one.
    Calibrate(crate::calibrate::CalibrateArgs),
    /// Derive a calibration (what fake-agy presents as one agy) from recordings of agy;
    /// what they do not show is inherited from the nearest built-in calibration.
    Learn(crate::learn::LearnArgs),
    /// Write the script (agy or ACP) that replays a capture of the corpus.
    Convert(crate::capture::ConvertArgs),
    /// Run scenarios against an adapter under each agy version fake-agy models and print
    /// the adapter × version table.
    Matrix(MatrixArgs),
    /// Write the scenario catalogue built into this binary into a folder, to open, copy
    /// or run its files (reports name them `built-in:scenarios/…`).
    Scenarios(crate::scenarios_command::ScenariosArgs),
    /// Turn a pasted bug report (agy's output, stderr, `$ agy …` lines) or a recorded run
    /// into a scenario, run it against the adapter and minimise it while it still fails.
    Repro(crate::repro::ReproArgs),
    /// The driver of a driverless profile: driver protocol v1 on stdio, the ACP or MCP
    /// client of the adapter command (started by the runner, not by hand).
    #[command(hide = true)]
    Bridge(crate::bridge::BridgeArgs),
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
