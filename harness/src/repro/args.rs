//! `agy-harness repro`'s command line.

use crate::options::{AdapterArgs, RunnerArgs};
use crate::scenario::Profile;
use clap::Args;
use std::path::PathBuf;

/// `agy-harness repro`.
#[derive(Debug, Clone, Args)]
#[command(mut_arg("jobs", |a| a.help("Runs at once while minimising (default: the number of CPUs)")))]
pub struct ReproArgs {
    /// The bug report: a file with the pasted agy output or ACP JSON-RPC transcript, `-`
    /// for stdin, or a folder (traces recorded with `--record`, or a kept sandbox with its
    /// `journal.jsonl`).
    #[arg(value_name = "CAPTURE")]
    pub capture: PathBuf,
    /// The adapter's profile, when the report does not show it.
    #[arg(long, value_enum)]
    pub profile: Option<Profile>,
    /// The agy version, when the report does not say.
    #[arg(long, value_name = "V")]
    pub agy_version: Option<agy_protocol::AgyVersion>,
    /// agy's command line, when the report does not give it (`"agy -p … --output-format json"`).
    #[arg(long, value_name = "COMMAND", allow_hyphen_values = true)]
    pub argv: Option<String>,
    /// The adapter under test.
    #[command(flatten)]
    pub target: AdapterArgs,
    /// Where the scenario goes: `<DIR>/<profile>/<behaviour>.toml`.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Replace a scenario file an earlier `repro` wrote (by default that is refused).
    #[arg(long)]
    pub force: bool,
    /// Write and run the scenario, but do not minimise it.
    #[arg(long)]
    pub no_minimise: bool,
    /// Most runs the minimiser spends.
    #[arg(long, value_name = "N", default_value_t = 400)]
    pub max_runs: usize,
    /// Stop minimising after this long (a Go duration: `30s`, `5m`).
    #[arg(long, value_name = "DUR")]
    pub time_budget: Option<String>,
    /// How many runs go at once, at what pace, with which binaries.
    #[command(flatten)]
    pub runner: RunnerArgs,
}
