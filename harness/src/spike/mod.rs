//! Spikes S1–S8 as data: probe an agy binary, measure what it did, judge each recorded
//! fact as `holds`, `drifted` or `unverified`.

mod cli;
mod error;
mod excerpt;
mod judge;
mod junit;
mod measure;
mod model;
mod notify;
mod observation;
mod parse;
mod probe;
mod record;
mod report;
mod run;
mod target;

pub use crate::live::SignIn;
pub use crate::recording::{output_events, platform, today, CapturedChunk, REDACTION_NOTE};
pub use agy_protocol::redact::Redactor;
pub use cli::{spikes_command, SpikesArgs};
pub use error::UnknownMeasure;
pub use judge::{
    compare, describe, judge_fact, judge_spike, FactReport, RecordRef, RunValue, Verdict,
};
pub use measure::{Measure, MeasureValue};
pub use model::{Comparator, Expectation, Fact, Fixture, Probe, Quirk, Recorded, Spike};
pub use notify::{post_report, NotifyError};
pub use observation::{ImageInfo, Observation};
pub use parse::{load_spikes, parse_spike};
pub use probe::run_probe;
pub use record::{Recorder, RunCapture};
pub use report::{SpikeReport, Summary};
pub use run::{
    detect_version, parse_version_output, probe_version, run_spikes, version_of, SpikeRun,
};
pub use target::{Budget, Credentials, Target};
