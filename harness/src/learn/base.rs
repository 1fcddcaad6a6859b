//! The calibration a learned one inherits from: `--base FILE`, or the built-in
//! calibration nearest the learned version (`calibrations/agy-<version>.toml`: the
//! newest at or below it, else the oldest), and the check that what `learn` writes is a
//! calibration the reader accepts.

use crate::fatal::HarnessError;
use agy_protocol::calibration::{parse_calibration, CALIBRATION_CAP};
use agy_protocol::file::read_file_located;
use agy_protocol::AgyVersion;
use std::path::{Path, PathBuf};

/// The built-in calibrations' folder: `./calibrations` when it holds any, else the
/// source tree's.
pub fn builtin_dir() -> PathBuf {
    let here = PathBuf::from("calibrations");
    if here.is_dir() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../calibrations")
}

/// The built-in nearest `version` in `dir`: the newest at or below it, else the oldest.
pub fn nearest_builtin(dir: &Path, version: &str) -> Option<PathBuf> {
    let wanted: Option<AgyVersion> = version.parse().ok();
    let mut found: Vec<(AgyVersion, PathBuf)> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let stem = p.file_stem()?.to_str()?.strip_prefix("agy-")?.to_string();
            let v: AgyVersion = stem.parse().ok()?;
            (p.extension()? == "toml").then_some((v, p))
        })
        .collect();
    found.sort_by_key(|f| f.0);
    let at_or_below = wanted.and_then(|w| found.iter().rev().find(|(v, _)| *v <= w));
    at_or_below.or(found.first()).map(|(_, p)| p.clone())
}

/// The base's name (for the file's comments and the drift table) and its table.
pub fn base_calibration(
    file: Option<&Path>,
    version: &str,
) -> Result<(String, toml::Table), HarnessError> {
    let dir = builtin_dir();
    let path = match file {
        Some(f) => f.to_path_buf(),
        None => nearest_builtin(&dir, version).ok_or_else(|| {
            HarnessError::bad_input(format!(
                "no built-in calibration in `{}` to inherit from",
                dir.display()
            ))
            .with_hint("pass `--base FILE`, a calibration file (docs/calibration-format.md)")
        })?,
    };
    let shown = path.display().to_string();
    let text = read_file_located(&path, CALIBRATION_CAP).map_err(|e| {
        HarnessError::bad_input(
            e.diagnostic(&shown, "read the base calibration")
                .to_string(),
        )
    })?;
    check_calibration(&shown, &text)?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| {
        HarnessError::bad_input(format!("`{shown}` is not a calibration: {}", e.message()))
    })?;
    let name = match file {
        Some(_) => format!("`{shown}`"),
        None => format!(
            "the built-in calibration `{}`",
            path.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        ),
    };
    Ok((name, table))
}

/// Refuses a calibration the calibration reader refuses, printing every problem.
pub fn check_calibration(shown: &str, text: &str) -> Result<(), HarnessError> {
    parse_calibration(text, shown).map(|_| ()).map_err(|d| {
        eprint!("{d}");
        HarnessError::bad_input(format!(
            "`{shown}`: {} problem(s) in the calibration",
            d.len()
        ))
    })
}
