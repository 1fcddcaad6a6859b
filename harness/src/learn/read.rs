//! The recordings `learn` reads: every `*.jsonl` trace of each folder, file-name order,
//! each bounded, every problem of every trace located.

use agy_protocol::diag::Diagnostics;
use agy_protocol::file::{read_file_located, FILE_CAP};
use agy_protocol::trace::Trace;
use std::path::{Path, PathBuf};

/// The most traces `learn` reads over all its folders.
pub const MAX_RECORDINGS: usize = 4096;

/// Why the recordings could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A folder could not be listed.
    #[error("failed to list the recordings in `{dir}`: {source}")]
    List {
        /// The folder.
        dir: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// More traces than `learn` reads.
    #[error("the folders hold more than {MAX_RECORDINGS} traces")]
    TooMany,
    /// The folders hold no trace.
    #[error("the folders hold no `*.jsonl` trace")]
    Empty,
    /// Malformed traces, every problem located.
    #[error("{} problem(s) in the recordings", .0.len())]
    Traces(Diagnostics),
}

/// Every trace of `dirs`, as `(file name, trace)`: folder by folder, file-name order.
pub fn read_recordings(dirs: &[PathBuf]) -> Result<Vec<(String, Trace)>, ReadError> {
    let mut paths = Vec::new();
    for dir in dirs {
        paths.extend(traces_in(dir)?);
        if paths.len() > MAX_RECORDINGS {
            return Err(ReadError::TooMany);
        }
    }
    let mut diags = Diagnostics::new();
    let mut out = Vec::new();
    for path in &paths {
        let shown = path.display().to_string();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match read_file_located(path, FILE_CAP) {
            Err(e) => diags.push(e.diagnostic(&shown, "read the recording")),
            Ok(text) => match Trace::parse(&shown, &text) {
                Ok(t) => out.push((name, t)),
                Err(d) => diags.extend(d),
            },
        }
    }
    if !diags.is_empty() {
        return Err(ReadError::Traces(diags));
    }
    if out.is_empty() {
        return Err(ReadError::Empty);
    }
    Ok(out)
}

fn traces_in(dir: &Path) -> Result<Vec<PathBuf>, ReadError> {
    let list = |source| ReadError::List {
        dir: dir.to_path_buf(),
        source,
    };
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(list)? {
        let path = entry.map_err(list)?.path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            paths.push(path);
        }
        if paths.len() > MAX_RECORDINGS {
            return Err(ReadError::TooMany);
        }
    }
    paths.sort();
    Ok(paths)
}
