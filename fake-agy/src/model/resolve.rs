//! Which calibration a session presents, resolved once at its start:
//! `FAKE_AGY_CALIBRATION` names a file; else a script's `[script] calibration`; else the
//! built-in that covers the version (`FAKE_AGY_VERSION` or `[script] agy`). On a
//! version where the record leaves an edge open, `FAKE_AGY_UNCERTAIN` takes one side.

use crate::error::FakeError;
use crate::model::builtin::{builtin_for, builtins};
use agy_protocol::calibration::{read_calibration, Calibration};
use agy_protocol::diag::{Diagnostic, Diagnostics};
use agy_protocol::version_evidence::UncertainSide;
use agy_protocol::AgyVersion;
use std::path::Path;

/// Where a session's calibration comes from.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    /// `FAKE_AGY_CALIBRATION`.
    pub file: Option<&'a Path>,
    /// `[script] calibration`, already joined to the script's folder.
    pub script_file: Option<&'a Path>,
    /// The version asked for (`[script] agy` over `FAKE_AGY_VERSION`).
    pub version: AgyVersion,
    /// `FAKE_AGY_UNCERTAIN`.
    pub side: Option<UncertainSide>,
}

/// The version the session presents and what it shows.
pub fn resolve(src: Source<'_>) -> Result<(AgyVersion, Calibration), FakeError> {
    let at = |c: &Calibration, v: AgyVersion| {
        c.at(v, src.side).map_err(|e| {
            FakeError::Calibration(Diagnostics(vec![Diagnostic::at_line(
                "calibration",
                1,
                1,
                e.to_string(),
            )]))
        })
    };
    if let Some(path) = src.file.or(src.script_file) {
        let c = read_calibration(path).map_err(FakeError::Calibration)?;
        let v = c.calibration.agy;
        return Ok((v, at(&c, v)?));
    }
    let c = builtin_for(src.version).ok_or_else(|| {
        if let Err(d) = builtins() {
            return FakeError::Calibration(d.clone());
        }
        FakeError::Calibration(Diagnostics(vec![Diagnostic::at_line(
            "calibrations",
            1,
            1,
            format!("no built-in calibration covers agy {}", src.version),
        )
        .with_hint("name a calibration file in `FAKE_AGY_CALIBRATION`")]))
    })?;
    Ok((src.version, at(&c, src.version)?))
}
