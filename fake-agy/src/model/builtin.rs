//! The built-in calibrations (the repository's `calibrations/`, one file per range of
//! versions where what agy shows is constant), compiled in; a version takes the one
//! whose `covers` holds it.

use agy_protocol::calibration::{parse_calibration, Calibration};
use agy_protocol::diag::Diagnostics;
use agy_protocol::AgyVersion;
use include_dir::{include_dir, Dir};
use std::sync::OnceLock;

static FILES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/calibrations");

/// Every built-in calibration, parsed once, with its file name.
pub fn builtins() -> Result<&'static [(String, Calibration)], &'static Diagnostics> {
    static PARSED: OnceLock<Result<Vec<(String, Calibration)>, Diagnostics>> = OnceLock::new();
    PARSED
        .get_or_init(|| {
            let mut out = Vec::new();
            let mut diags = Diagnostics::new();
            for f in FILES
                .files()
                .filter(|f| f.path().extension().is_some_and(|e| e == "toml"))
            {
                let name = format!("calibrations/{}", f.path().display());
                match parse_calibration(f.contents_utf8().unwrap_or_default(), &name) {
                    Ok(c) => out.push((name, c)),
                    Err(e) => diags.extend(e),
                }
            }
            out.sort_by_key(|(_, c)| c.calibration.agy);
            diags.into_result(out)
        })
        .as_ref()
        .map(Vec::as_slice)
}

/// The built-in calibration that covers `version`, as it stands at `version`.
pub fn builtin_for(version: AgyVersion) -> Option<&'static Calibration> {
    let all = builtins().ok()?;
    all.iter()
        .find(|(_, c)| {
            c.calibration
                .covers
                .as_ref()
                .is_some_and(|r| r.contains(version))
        })
        .map(|(_, c)| c)
}
