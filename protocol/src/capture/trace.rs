//! A capture as a replayable trace (`traces/<id>.jsonl`).

use super::files::read_capture_file;
use super::model::{Capture, CaptureKind};
use crate::trace::{InvocationStart, Trace, TraceHeader, TRACE_VERSION};
use std::path::Path;

impl Capture {
    /// The name of the trace generated from this capture, in the corpus folder.
    pub fn trace_file_name(&self) -> String {
        format!("{}.jsonl", self.id)
    }

    /// True when the capture is an agy command-line run a trace can replay (ACP
    /// transcripts are not).
    pub fn has_trace(&self) -> bool {
        self.kind != CaptureKind::Acp
    }

    /// The trace of this capture: its stdin lines, stdout and stderr as published, every
    /// event at `t = 0` (captures carry no timing), and the exit code when known.
    pub fn to_trace(&self, dir: &Path) -> Result<Trace, String> {
        let read = |f: &Option<String>| match f {
            Some(rel) => read_capture_file(dir, rel),
            None => Ok(Vec::new()),
        };
        let stdout = read(&self.files.stdout)?;
        let stderr = read(&self.files.stderr)?;
        let header = TraceHeader {
            trace: TRACE_VERSION,
            agy_version: self
                .version()
                .map(|v| v.to_string())
                .unwrap_or_else(|| "unknown".into()),
            recorded: self
                .captured
                .get()
                .cloned()
                .unwrap_or_else(|| "unknown".into()),
            platform: self.platform.clone(),
            source: self.source.describe(),
            note: Some(self.trace_note()),
        };
        let start = InvocationStart {
            argv: self.argv().map(|a| a.to_vec()).unwrap_or_default(),
            ..InvocationStart::default()
        };
        Ok(Trace::from_capture(
            header,
            start,
            self.stdin_lines(),
            &stdout,
            &stderr,
            self.exit.get().copied(),
        ))
    }

    fn trace_note(&self) -> String {
        let mut note = format!(
            "capture {} ({}): {}",
            self.id,
            self.confidence.as_str(),
            self.shows
        );
        if let Some(n) = &self.note {
            note.push_str("; ");
            note.push_str(n);
        }
        note
    }
}
