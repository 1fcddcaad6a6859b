//! `agy-harness fuzz`'s arguments.

use crate::options::{AdapterArgs, RunnerArgs};
use crate::report::{parse_report_target, ReportTarget};
use crate::scenario::Profile;
use clap::Args;
use std::path::PathBuf;

/// `agy-harness fuzz`.
#[derive(Debug, Clone, Args)]
#[command(
    mut_arg("jobs", |a| a.help("Cases run at once (default: 8 per CPU; a case mostly waits on its processes)")),
    mut_arg("fake_agy_acp", |a| a.help("The fake ACP agent binary, for `--profile acp` (default: next to agy-harness)")),
)]
pub struct FuzzArgs {
    /// The profile whose agent behaviours and ops are generated.
    #[arg(long, value_enum)]
    pub profile: Profile,
    /// How many cases to run (at most).
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub cases: usize,
    /// The seed: the same seed generates the same cases.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
    /// Stop starting cases after this long (a Go duration: `30s`, `5m`).
    #[arg(long, value_name = "DUR")]
    pub time_budget: Option<String>,
    /// The adapter under test.
    #[command(flatten)]
    pub target: AdapterArgs,
    /// Where shrunk scenarios go (`<DIR>/<profile>/fuzz-<invariant>-<seed>-<case>.toml`).
    #[arg(long, value_name = "DIR", default_value = "fuzz-findings")]
    pub out: PathBuf,
    /// Also write the report: `json=PATH` (repeatable).
    #[arg(long, value_name = "json=PATH", value_parser = parse_report_target)]
    pub report: Vec<ReportTarget>,
    /// How many cases run at once, at what pace, with which binaries.
    #[command(flatten)]
    pub runner: RunnerArgs,
}
