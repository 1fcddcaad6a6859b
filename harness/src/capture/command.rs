//! `agy-harness convert CAPTURE_ID_OR_FILE [--out FILE]`: writes the script that
//! replays a capture: an agy script for fake-agy, or for an ACP transcript a
//! fake-agy-acp script.

use super::acp::acp_capture_to_script;
use super::convert::{capture_to_script, ConvertError};
use crate::exit_code;
use crate::fidelity::traces_dir;
use agy_protocol::acp::script::render_acp_script;
use agy_protocol::capture::{load_corpus, Capture, CaptureKind};
use agy_protocol::script::render_script;
use clap::Args;
use std::path::PathBuf;

/// `agy-harness convert`.
#[derive(Debug, Clone, Args)]
pub struct ConvertArgs {
    /// A capture id of the corpus.
    #[arg(value_name = "CAPTURE")]
    pub capture: String,
    /// The corpus folder holding corpus.toml (default: `traces/`).
    #[arg(long, value_name = "DIR")]
    pub traces: Option<PathBuf>,
    /// Write the script here instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Runs the command; returns the exit code.
pub fn convert_command(args: ConvertArgs) -> i32 {
    let dir = traces_dir(args.traces.as_deref());
    let corpus = match load_corpus(&dir) {
        Ok(c) => c,
        Err(d) => {
            eprint!("{d}");
            eprintln!("error: {} problem(s) in the capture corpus", d.len());
            return exit_code::BAD_INPUT;
        }
    };
    let Some(capture) = corpus.find(&args.capture) else {
        let known = corpus.captures.iter().map(|c| c.id.as_str());
        let hint = agy_protocol::diag::closest(&args.capture, known)
            .map(|b| format!("; did you mean `{b}`?"))
            .unwrap_or_default();
        eprintln!("error: the corpus has no capture `{}`{hint}", args.capture);
        return exit_code::BAD_INPUT;
    };
    let text = match script_text(&dir, capture) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return exit_code::BAD_INPUT;
        }
    };
    match &args.out {
        Some(path) => match crate::keep::write_kept(path, text) {
            Ok(()) => exit_code::ALL_CONFORM,
            Err(e) => {
                eprintln!("error: failed to write `{}`: {e}", path.display());
                exit_code::COULD_NOT_RUN
            }
        },
        None => {
            print!("{text}");
            exit_code::ALL_CONFORM
        }
    }
}

/// Why `convert` has no script for a capture.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ScriptError {
    /// The script format cannot say what the capture shows, or a file of it could not
    /// be read.
    #[error("capture `{id}` cannot be written as a script: {source}")]
    Unwritable {
        /// The capture's id.
        id: String,
        /// What the script format cannot say, or which file could not be read.
        source: ConvertError,
    },
    /// The script does not render as TOML.
    #[error("failed to render the script of `{id}`: {source}")]
    Unrendered {
        /// The capture's id.
        id: String,
        /// The renderer's reason.
        source: toml::ser::Error,
    },
}

/// The script of `capture` as the file `convert` writes, with a header naming it.
fn script_text(dir: &std::path::Path, capture: &Capture) -> Result<String, ScriptError> {
    let id = &capture.id;
    let unwritable = |source| ScriptError::Unwritable {
        id: id.clone(),
        source,
    };
    let unrendered = |source| ScriptError::Unrendered {
        id: id.clone(),
        source,
    };
    let argv = capture
        .argv()
        .map(|a| crate::data_text::comment(&a.join(" ")).into_owned())
        .unwrap_or_else(|| "unknown".into());
    let (what, body) = if capture.kind == CaptureKind::Acp {
        let script = acp_capture_to_script(dir, capture).map_err(unwritable)?;
        (
            "fake-agy-acp script",
            render_acp_script(&script).map_err(unrendered)?,
        )
    } else {
        let script = capture_to_script(dir, capture).map_err(unwritable)?;
        ("agy script", render_script(&script).map_err(unrendered)?)
    };
    Ok(format!(
        "# {what} replaying capture {id} (traces/corpus.toml)\n# argv: {argv}\n\n{body}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capture_whose_files_are_not_there_cannot_be_written() {
        let traces = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces");
        let corpus = load_corpus(&traces).unwrap_or_else(|d| panic!("the corpus loads: {d}"));
        let elsewhere = tempfile::tempdir().expect("dir");
        for kind in [CaptureKind::Acp, CaptureKind::PrintJson] {
            let capture = corpus
                .captures
                .iter()
                .find(|c| c.kind == kind)
                .expect("a capture of the kind");
            assert!(script_text(&traces, capture).is_ok(), "{}", capture.id);
            match script_text(elsewhere.path(), capture) {
                Err(ScriptError::Unwritable { id, .. }) => assert_eq!(id, capture.id),
                other => panic!("{}: {other:?}", capture.id),
            }
        }
    }
}
