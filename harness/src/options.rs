//! Option groups several commands share: which scenarios and binaries
//! ([`CommonArgs`]) and which adapter ([`AdapterArgs`]). Their own module, so a command's
//! arguments can use them without depending on the whole command line.

use crate::scenario::Profile;
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
    /// The adapter config file (default: the reference adapter).
    #[arg(long, value_name = "FILE")]
    pub adapter: Option<PathBuf>,
    /// Run the reference adapter with this fault switched on (repeatable).
    #[arg(long, value_name = "NAME", conflicts_with = "adapter")]
    pub fault: Vec<String>,
}

/// Options shared by commands that run scenarios.
#[derive(Debug, Clone, Args)]
pub struct CommonArgs {
    /// Scenario files or folders (default: the catalogue).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// The catalogue folder (default: `./scenarios` when it exists, else the catalogue
    /// built into agy-harness).
    #[arg(long, value_name = "DIR", env = AGY_HARNESS_SCENARIOS)]
    pub scenarios: Option<PathBuf>,
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
    /// The settings of a command that writes and runs its own scenarios (`fuzz`,
    /// `repro`): no selection, no catalogue, no ACP agent.
    pub fn for_generated(
        jobs: Option<usize>,
        time_scale: TimeScale,
        fake_agy: Option<PathBuf>,
        reference_adapter: Option<PathBuf>,
    ) -> CommonArgs {
        CommonArgs {
            paths: Vec::new(),
            scenarios: None,
            jobs,
            time_scale,
            fake_agy,
            fake_agy_acp: None,
            reference_adapter,
            name: Vec::new(),
            tag: Vec::new(),
            profile: Vec::new(),
            partition: None,
        }
    }
}
