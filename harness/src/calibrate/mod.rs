//! `agy-harness calibrate`: records the user's own agy (live, on a budget) with a
//! documented probe suite, learns a calibration from the recordings, and prints what
//! drifted from the nearest built-in calibration (docs/harness.md, "Calibrating against
//! your agy").

mod command;
mod drift;
mod suite;

pub use command::{calibrate_command, CalibrateArgs};
pub use drift::{drift_rows, drift_table, DriftRow};
pub use suite::{probe_suite, replay_probes, spike_probes, CalibrationProbe};
