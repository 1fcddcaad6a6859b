//! Option groups several commands share: which scenario files ([`ScenarioArgs`]), how
//! scenarios run and with which binaries ([`RunnerArgs`]), both with a selection
//! ([`CommonArgs`]), and which adapter ([`AdapterArgs`]). Their own module, so a
//! command's arguments can use them without depending on the whole command line.

use crate::scenario::{Profile, Selection};
use agy_protocol::env::{
    AGY_HARNESS_FAKE_AGY, AGY_HARNESS_FAKE_AGY_ACP, AGY_HARNESS_REFERENCE_ADAPTER,
    AGY_HARNESS_SCENARIOS,
};
use agy_protocol::TimeScale;
use clap::Args;
use std::path::PathBuf;

/// Which adapter a command runs.
#[derive(Debug, Clone, Args)]
pub struct AdapterArgs {
    /// The adapter config file (default: `agy-adapter.toml` in the current folder, else the reference adapter).
    #[arg(long, value_name = "FILE")]
    pub adapter: Option<PathBuf>,
    /// Run the reference adapter with this fault switched on (repeatable).
    #[arg(long, value_name = "NAME", conflicts_with = "adapter")]
    pub fault: Vec<String>,
}

/// Which scenario files a command reads: the paths given, else the catalogue.
#[derive(Debug, Clone, Args)]
pub struct ScenarioArgs {
    /// Scenario files or folders (default: the catalogue).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// The catalogue folder (default: `./scenarios` when it exists, else the catalogue
    /// built into agy-harness).
    #[arg(long, value_name = "DIR", env = AGY_HARNESS_SCENARIOS)]
    pub scenarios: Option<PathBuf>,
}

/// How a command runs scenarios: how many at once, at what pace, with which binaries.
///
/// A command whose runs are not scenarios of a catalogue words `--jobs` (and
/// `--fake-agy-acp`) for itself with `#[command(mut_arg(…))]`.
#[derive(Debug, Clone, Args)]
pub struct RunnerArgs {
    /// Scenarios run at once (default: the number of CPUs).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Multiply every scripted delay and adapter timeout by this factor.
    #[arg(long, value_name = "FACTOR", default_value = "0.05", value_parser = TimeScale::parse_positive)]
    pub time_scale: TimeScale,
    /// The fake-agy binary (default: next to agy-harness).
    #[arg(long, value_name = "BIN", env = AGY_HARNESS_FAKE_AGY)]
    pub fake_agy: Option<PathBuf>,
    /// The fake Antigravity ACP agent, for `acp` scenarios (default: next to agy-harness).
    #[arg(long, value_name = "BIN", env = AGY_HARNESS_FAKE_AGY_ACP)]
    pub fake_agy_acp: Option<PathBuf>,
    /// The reference adapter binary (default: next to agy-harness).
    #[arg(long, value_name = "BIN", env = AGY_HARNESS_REFERENCE_ADAPTER)]
    pub reference_adapter: Option<PathBuf>,
}

impl RunnerArgs {
    /// The number of runs at once: `--jobs`, else the cores available.
    pub fn jobs(&self) -> usize {
        self.jobs
            .unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(2)
            })
            .max(1)
    }
}

/// Options shared by commands that run scenarios of a catalogue.
#[derive(Debug, Clone, Args)]
pub struct CommonArgs {
    /// The scenario files.
    #[command(flatten)]
    pub source: ScenarioArgs,
    /// How they run.
    #[command(flatten)]
    pub runner: RunnerArgs,
    /// Only scenarios whose name contains this (repeatable).
    #[arg(long, value_name = "TEXT")]
    pub name: Vec<String>,
    /// Only scenarios with this tag (repeatable).
    #[arg(long, value_name = "TAG")]
    pub tag: Vec<String>,
    /// Only scenarios of this profile (repeatable).
    #[arg(long, value_enum, value_name = "PROFILE")]
    pub profile: Vec<Profile>,
    /// Run the k-th of n partitions of the selection (`1/2`, `2/2`).
    #[arg(long, value_name = "K/N", value_parser = crate::scenario::parse_partition)]
    pub partition: Option<(usize, usize)>,
}

impl CommonArgs {
    /// The scenarios `--name`, `--tag`, `--profile` and `--partition` keep.
    pub fn selection(&self) -> Selection {
        Selection {
            names: self.name.clone(),
            tags: self.tag.clone(),
            profiles: self.profile.clone(),
            partition: self.partition,
        }
    }
}
