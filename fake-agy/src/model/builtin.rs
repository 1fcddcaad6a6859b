//! The built-in calibrations (the repository's `calibrations/`, one file per range of
//! versions where what agy shows is constant), compiled in; a version takes the one
//! whose `covers` holds it. A file is named after the first version it covers
//! (`agy-1.2.17.toml`; the oldest range `agy-before-1.0.4.toml`), so a session parses
//! only the file its version names.

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

/// The version a built-in file's name says its range starts at (`None`: the oldest).
pub fn named_start(name: &str) -> Option<AgyVersion> {
    name.strip_prefix("agy-")?
        .strip_suffix(".toml")?
        .parse()
        .ok()
}

/// The file whose name says it covers `version`: the latest start not after it.
fn named_for(version: AgyVersion) -> Option<&'static include_dir::File<'static>> {
    let name = |f: &include_dir::File<'_>| f.path().display().to_string();
    let starts = FILES
        .files()
        .filter_map(|f| named_start(&name(f)).map(|v| (v, f)));
    let latest = starts
        .filter(|(v, _)| *v <= version)
        .max_by_key(|(v, _)| *v);
    latest
        .map(|(_, f)| f)
        .or_else(|| FILES.files().find(|f| name(f).starts_with("agy-before-")))
}

/// The built-in calibration that covers `version`: the file its name points to when
/// that one parses and covers it, else any that does (every file parsed).
pub fn builtin_for(version: AgyVersion) -> Option<Calibration> {
    let covers = |c: &Calibration| {
        let range = c.calibration.covers.as_ref();
        range.is_some_and(|r| r.contains(version))
    };
    if let Some(f) = named_for(version) {
        let name = format!("calibrations/{}", f.path().display());
        let parsed = parse_calibration(f.contents_utf8().unwrap_or_default(), &name);
        if let Some(c) = parsed.ok().filter(|c| covers(c)) {
            return Some(c);
        }
    }
    let all = builtins().ok()?;
    all.iter().map(|(_, c)| c).find(|c| covers(c)).cloned()
}
