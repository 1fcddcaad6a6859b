//! Reports of a run: the model, the terminal view, and JSON / JUnit / Markdown files.
//! Reusable by any command that produces per-item verdicts (scenario runs, spikes).

mod files;
mod model;
mod terminal;

pub use files::{parse_report_target, render_report, write_report, ReportFormat, ReportTarget};
pub use model::{OpRecord, RunReport, ScenarioResult, Status, PROFILE_SKIP};
pub use terminal::{write_progress, write_summary};
