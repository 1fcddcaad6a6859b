//! The shape a capture records, and the shape of fake-agy's run of it.

use super::run::RunOutput;
use super::shape::{stderr_patterns, stdout_shape, Shape, StdoutShape, TextLines};
use agy_protocol::capture::{read_transformed, Capture, CaptureKind};
use std::path::Path;

/// How stdout text lines of this capture are read: agy's own text (`models`,
/// `--version`, `/usage`, `/quota`, and a command line without a prompt: help, `agent`,
/// `plugin …`) line by line as patterns; a turn's text as the model's.
pub(crate) fn text_lines(capture: &Capture) -> TextLines {
    match capture.kind {
        CaptureKind::Models | CaptureKind::Version | CaptureKind::Usage | CaptureKind::Quota => {
            TextLines::Patterns
        }
        _ if capture.argv().is_some_and(|a| !runs_a_turn(a)) => TextLines::Patterns,
        _ => TextLines::Model,
    }
}

/// True when the command line gives a prompt (`-p`, `--prompt`, `--print`, their `=`
/// forms) or reads turns from stdin (`--input-format`).
fn runs_a_turn(argv: &[String]) -> bool {
    argv.iter().skip(1).any(|a| {
        let flag = a.split('=').next().unwrap_or(a);
        matches!(flag, "-p" | "--prompt" | "--print" | "--input-format")
    })
}

/// The shape of a capture's bytes as stored, with what its record says was trimmed.
pub(crate) fn recorded_shape(
    capture: &Capture,
    stdout: Option<&[u8]>,
    stderr: Option<&[u8]>,
    log: Option<&[u8]>,
) -> Shape {
    let elided = |mut shape: StdoutShape| {
        shape.elided = capture.elided.iter().cloned().collect();
        shape
    };
    Shape {
        exit: capture.exit.get().copied(),
        stdout: stdout.map(|b| elided(stdout_shape(b, text_lines(capture)))),
        stderr: stderr.map(stderr_patterns),
        stderr_cut: capture.elided.iter().any(|e| e == "stderr"),
        log: log.map(stderr_patterns),
    }
}

/// A file a capture names that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct UnreadableFile {
    /// What the file holds: `stdout`, `stderr` or `log`.
    pub role: &'static str,
    /// The file, relative to the corpus folder.
    pub path: String,
    /// Why it could not be read, as the corpus reader says it.
    pub message: String,
}

/// The shape the capture recorded (its stored bytes with its declared transforms);
/// what it did not record stays `None`.
pub fn expected_shape(dir: &Path, capture: &Capture) -> Result<Shape, UnreadableFile> {
    let read = |role: &'static str, f: &Option<String>| {
        f.as_deref()
            .map(|rel| {
                read_transformed(dir, capture, role, rel).map_err(|message| UnreadableFile {
                    role,
                    path: rel.to_string(),
                    message,
                })
            })
            .transpose()
    };
    let files = &capture.files;
    let (stdout, stderr, log) = (
        read("stdout", &files.stdout)?,
        read("stderr", &files.stderr)?,
        read("log", &files.log)?,
    );
    Ok(recorded_shape(
        capture,
        stdout.as_deref(),
        stderr.as_deref(),
        log.as_deref(),
    ))
}

/// The shape of fake-agy's run.
pub fn observed_shape(capture: &Capture, out: &RunOutput) -> Shape {
    Shape {
        exit: out.exit,
        stdout: Some(stdout_shape(&out.stdout, text_lines(capture))),
        stderr: Some(stderr_patterns(&out.stderr)),
        stderr_cut: false,
        log: Some(out.log.as_deref().map(stderr_patterns).unwrap_or_default()),
    }
}
