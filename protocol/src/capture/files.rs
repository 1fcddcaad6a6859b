//! One capture file (stdout, stderr, transcript or log), named relative to the corpus
//! folder and read under a size cap.

use std::io::Read;
use std::path::{Component, Path};

/// The largest capture file read (stdout, stderr, transcript or log).
pub const MAX_CAPTURE_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Reads one capture file named relative to the corpus folder, bounded.
pub fn read_capture_file(dir: &Path, rel: &str) -> Result<Vec<u8>, String> {
    check_relative(rel)?;
    read_bounded(&dir.join(rel), MAX_CAPTURE_FILE_BYTES)
        .map_err(|e| format!("failed to read `{rel}`: {e}"))
}

/// Why `rel` is not a readable capture file under `dir`.
pub(super) fn check_capture_file(dir: &Path, rel: &str) -> Result<(), String> {
    check_relative(rel)?;
    let meta = std::fs::metadata(dir.join(rel)).map_err(|e| format!("cannot be read: {e}"))?;
    if !meta.is_file() {
        return Err("is not a file".into());
    }
    if meta.len() > MAX_CAPTURE_FILE_BYTES {
        return Err(format!(
            "is {} bytes, more than the {MAX_CAPTURE_FILE_BYTES} a capture may hold",
            meta.len()
        ));
    }
    Ok(())
}

fn check_relative(rel: &str) -> Result<(), String> {
    let p = Path::new(rel);
    if rel.is_empty() || p.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err("must be a relative path inside the corpus folder, without `..`".into());
    }
    Ok(())
}

pub(super) fn read_bounded(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    std::fs::File::open(path)?
        .take(max + 1)
        .read_to_end(&mut out)?;
    if out.len() as u64 > max {
        return Err(std::io::Error::other(format!("larger than {max} bytes")));
    }
    Ok(out)
}
