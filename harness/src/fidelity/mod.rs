//! Fidelity: fake-agy's default behaviour compared, by shape, with every capture of the
//! corpus (docs/fidelity.md).

mod baseline;
mod capture_shape;
mod command;
mod compare;
mod decisions;
mod first_sight;
#[cfg(test)]
mod mutation;
mod report;
mod run;
mod shape;
mod uncertain;

pub use baseline::{
    digest, load_baseline, parse_baseline, Baseline, BaselineVerdict, Counts, Divergence, Found,
    Skip,
};
pub use command::{fidelity_command, traces_dir, FidelityArgs, BASELINE_FILE};
pub use compare::{compare_shapes, Difference};
pub use decisions::model_decisions;
pub use first_sight::first_sight_score;
pub use report::{CaptureResult, FidelityReport, FirstSightScore, Outcome, Score};
pub use shape::{pattern, stderr_patterns, stdout_shape, Shape, StdoutShape, TextLines};
pub use uncertain::uncertain_report;
