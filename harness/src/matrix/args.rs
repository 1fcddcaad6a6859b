//! `agy-harness matrix`'s command line.

use crate::options::{AdapterArgs, CommonArgs};
use crate::report::{parse_report_target, ReportTarget};
use agy_protocol::version_evidence::UncertainSide;
use clap::{Args, ValueEnum};

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
    /// The side fake-agy takes on each behaviour the public record leaves uncertain at
    /// a column's version (`agy-harness fidelity --version V` lists them): `modelled`
    /// (the version model's choice), `before`, `after`, or `both` (a column with
    /// uncertain behaviours runs again under `before` and under `after`, and a cell
    /// passes only when it passes on every side).
    #[arg(long, value_enum, value_name = "SIDE", default_value_t = UncertainChoice::Modelled)]
    pub uncertain: UncertainChoice,
}

/// `matrix --uncertain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UncertainChoice {
    /// The side the version model chose for each behaviour.
    Modelled,
    /// The last version seen without the change, for every uncertain behaviour.
    Before,
    /// The first version seen with it, for every uncertain behaviour.
    After,
    /// The version model's side, then `before`, then `after`.
    Both,
}

impl UncertainChoice {
    /// The sides a column runs under besides the modelled one (`None`: the model's).
    pub fn sides(self) -> &'static [Option<UncertainSide>] {
        match self {
            UncertainChoice::Modelled => &[None],
            UncertainChoice::Before => &[Some(UncertainSide::Before)],
            UncertainChoice::After => &[Some(UncertainSide::After)],
            UncertainChoice::Both => &[
                None,
                Some(UncertainSide::Before),
                Some(UncertainSide::After),
            ],
        }
    }
}
