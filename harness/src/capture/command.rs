//! `agy-harness convert CAPTURE_ID_OR_FILE [--out FILE]`: writes the agy script that
//! replays a capture.

use super::convert::capture_to_script;
use crate::exit_code;
use crate::fidelity::traces_dir;
use agy_protocol::capture::load_corpus;
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
    let script = match capture_to_script(&dir, capture) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "error: capture `{}` cannot be written as a script: {e}",
                capture.id
            );
            return exit_code::BAD_INPUT;
        }
    };
    let argv = capture
        .argv()
        .map(|a| a.join(" "))
        .unwrap_or_else(|| "unknown".into());
    let text = match render_script(&script) {
        Ok(t) => format!(
            "# agy script replaying capture {} (traces/corpus.toml)\n# argv: {argv}\n\n{t}",
            capture.id
        ),
        Err(e) => {
            eprintln!(
                "error: failed to render the script of `{}`: {e}",
                capture.id
            );
            return exit_code::BAD_INPUT;
        }
    };
    match &args.out {
        Some(path) => match std::fs::write(path, text) {
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
