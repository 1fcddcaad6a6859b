//! Reports of a run: the model, the terminal view, and JSON / JUnit / Markdown / HTML
//! files.
//! Reusable by any command that produces per-item verdicts (scenario runs, spikes).

mod files;
pub mod html;
mod model;
mod redacted;
mod terminal;
mod timeline;

pub use files::{
    parse_report_target, render_report, write_report, ReportError, ReportFormat, ReportTarget,
};
pub use model::{OpRecord, RunReport, ScenarioResult, Status, PROFILE_SKIP, SETUP_FAILURE};
pub use redacted::{bound_result, escape_result, redact_result};
pub use terminal::{write_progress, write_summary};
pub use timeline::{
    build_timeline, DeliveredImage, TimelineEntry, TimelineEvent, IMAGE_INLINE_MAX,
};
