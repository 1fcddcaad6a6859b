//! Evidence from a folder of recorded runs: the traces of a `--record` folder
//! (`*.jsonl`) or the journal of a kept sandbox (read as a paste).

use crate::live::RUN_RECORD_SOURCE;
use crate::profile::repro_kit::evidence::Evidence;
use crate::repro::paste::MAX_PASTE_BYTES;
use crate::repro::recorded::trace_evidence;
use agy_protocol::diag::{Diagnostic, Diagnostics};
use agy_protocol::trace::Trace;
use std::path::Path;

/// A folder: a `--record` folder of traces (`*.jsonl` with a trace header, in name
/// order) or a kept sandbox (`journal.jsonl`).
pub fn read_folder(dir: &Path) -> Result<Evidence, Diagnostics> {
    let shown = dir.display().to_string();
    let journal = dir.join("journal.jsonl");
    if journal.is_file() {
        let text = read(&journal)?;
        return crate::repro::paste::read_paste(&agy_protocol::diag::SourceFile::new(
            journal.display().to_string(),
            text,
        ));
    }
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| one(&shown, format!("failed to read the folder: {e}")))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut diags = Diagnostics::new();
    let mut traces = Vec::new();
    for f in &files {
        let text = read(f)?;
        match Trace::parse(&f.display().to_string(), &text) {
            Ok(t) => traces.push(t),
            Err(d) => diags.extend(d),
        }
    }
    let scenarios = files
        .iter()
        .zip(&traces)
        .filter(|(_, t)| t.header.source.starts_with(RUN_RECORD_SOURCE))
        .count();
    if scenarios > 1 {
        let names: Vec<String> = files
            .iter()
            .map(|f| {
                f.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        diags.push(
            Diagnostic::at_line(
                &shown,
                1,
                1,
                format!("the folder holds the recorded runs of {scenarios} scenarios"),
            )
            .with_hint(format!(
                "give the trace of the one that misbehaved: {}",
                names.join(", ")
            )),
        );
    }
    if files.is_empty() {
        diags.push(
            Diagnostic::at_line(
                &shown,
                1,
                1,
                "the folder holds no trace (`*.jsonl`) and no `journal.jsonl`",
            )
            .with_hint(
                "give a `--record` folder, a kept sandbox, or a file with the pasted report",
            ),
        );
    }
    diags
        .into_result(())
        .map(|()| trace_evidence(&shown, &traces))
}

fn read(path: &Path) -> Result<String, Diagnostics> {
    agy_protocol::file::read_file_bounded(path, MAX_PASTE_BYTES)
        .map_err(|e| one(&path.display().to_string(), format!("failed to read: {e}")))
}

fn one(path: &str, message: String) -> Diagnostics {
    Diagnostics(vec![Diagnostic::at_line(path, 1, 1, message)])
}
