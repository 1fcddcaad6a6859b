//! A calibration file named on the command line (`run`, `fidelity`): read once before
//! anything runs, so a bad one is reported once, located, and made absolute so every
//! sandbox's fake-agy finds it (`FAKE_AGY_CALIBRATION`).

use crate::fatal::HarnessError;
use std::path::{Path, PathBuf};

/// The calibration file from the current folder, checked; a bad one is bad input with
/// every problem located (file:line:col).
pub(crate) fn check_calibration(path: Option<&Path>) -> Result<Option<PathBuf>, HarnessError> {
    let Some(path) = path else { return Ok(None) };
    agy_protocol::calibration::read_calibration(path)
        .map(|_| Some(absolute(path)))
        .map_err(|d| HarnessError::bad_input(format!("the calibration has problems:\n{d}")))
}

/// `path` from the current folder, so a sandbox's fake-agy finds it.
fn absolute(path: &Path) -> PathBuf {
    std::env::current_dir()
        .map(|d| d.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}
