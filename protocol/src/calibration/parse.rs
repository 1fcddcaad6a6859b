//! Reading a calibration file with every problem located: each section is read on its
//! own, a bad value is reported and left out so the next one is reported too, and the
//! sides of each unrecorded edge are checked as they would apply.

use super::model::Calibration;
use super::root::parse_root;
use super::sides::{check_sides, parse_unrecorded};
use crate::diag::{parse_toml_document, Diagnostics, SourceFile};

/// The most bytes a calibration file may hold.
pub const CALIBRATION_CAP: u64 = 1 << 20;

/// Parses the calibration `text` read from `path` (for messages), reporting every
/// problem located.
pub fn parse_calibration(text: &str, path: &str) -> Result<Calibration, Diagnostics> {
    let src = SourceFile::new(path, text);
    let mut diags = Diagnostics::new();
    let Some(doc) = parse_toml_document(&src, &mut diags) else {
        return Err(diags);
    };
    let root = doc.get_ref();
    let base = parse_root(&src, root, doc.span().start, &mut diags);
    let unrecorded = parse_unrecorded(&src, root, &mut diags);
    check_sides(&src, root, doc.span().start, &unrecorded, &mut diags);
    match base {
        Some(mut c) => {
            c.unrecorded = unrecorded.into_iter().map(|(u, _)| u).collect();
            diags.into_result(c)
        }
        None => {
            diags.sort();
            Err(diags)
        }
    }
}

/// Reads and parses the calibration at `path`, at most [`CALIBRATION_CAP`] bytes.
pub fn read_calibration(path: &std::path::Path) -> Result<Calibration, Diagnostics> {
    let display = path.display().to_string();
    let text = crate::file::read_file_located(path, CALIBRATION_CAP)
        .map_err(|e| Diagnostics(vec![e.diagnostic(&display, "read calibration")]))?;
    parse_calibration(&text, &display)
}
