//! The shape a capture records, and the shape of fake-agy's run of it.

use super::run::RunOutput;
use super::shape::{stderr_patterns, stdout_shape, Shape, StdoutShape, TextLines};
use agy_protocol::capture::{read_capture_file, Capture, CaptureKind};
use std::path::Path;

/// How stdout text lines of this kind of run are read.
fn text_lines(kind: CaptureKind) -> TextLines {
    match kind {
        CaptureKind::Models | CaptureKind::Version | CaptureKind::Usage | CaptureKind::Quota => {
            TextLines::Patterns
        }
        _ => TextLines::Model,
    }
}

/// The shape the capture recorded; what it did not record stays `None`.
pub fn expected_shape(dir: &Path, capture: &Capture) -> Result<Shape, String> {
    let read = |f: &Option<String>| {
        f.as_deref()
            .map(|rel| read_capture_file(dir, rel))
            .transpose()
    };
    let kind = text_lines(capture.kind);
    let elided = |mut shape: StdoutShape| {
        shape.elided = capture.elided.iter().cloned().collect();
        shape
    };
    Ok(Shape {
        exit: capture.exit.get().copied(),
        stdout: read(&capture.files.stdout)?.map(|b| elided(stdout_shape(&b, kind))),
        stderr: read(&capture.files.stderr)?.map(|b| stderr_patterns(&b)),
        stderr_cut: capture.elided.iter().any(|e| e == "stderr"),
    })
}

/// The shape of fake-agy's run.
pub fn observed_shape(capture: &Capture, out: &RunOutput) -> Shape {
    Shape {
        exit: out.exit,
        stdout: Some(stdout_shape(&out.stdout, text_lines(capture.kind))),
        stderr: Some(stderr_patterns(&out.stderr)),
        stderr_cut: false,
    }
}
