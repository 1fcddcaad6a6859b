//! What every recorder shares (`spikes --record`, `run --live --record`): output
//! chunks with their times, redacted output as trace events, the date, platform and
//! redaction note of a trace header, and the files a run left.

use agy_protocol::redact::{LineRedactor, Redactor};
use agy_protocol::script::HexBytes;
use agy_protocol::trace::{TimedEvent, TraceEvent};
use std::path::{Path, PathBuf};

/// One chunk of output with the time it arrived (seconds since the run started).
#[derive(Debug, Clone)]
pub struct CapturedChunk {
    /// Arrival time.
    pub t: f64,
    /// The bytes (a line, with its newline when it had one).
    pub bytes: Vec<u8>,
}

/// The note of a trace redacted at record time.
pub const REDACTION_NOTE: &str = "redacted at record time (protocol/redact-rules.toml): home path, user and account names, e-mail addresses, tokens and keys";

/// Today's date as a trace header writes it (`YYYY-MM-DD`, UTC).
pub fn today() -> String {
    time::OffsetDateTime::now_utc().date().to_string()
}

/// This machine as a trace header names it (`linux_amd64`).
pub fn platform() -> String {
    format!(
        "{}_{}",
        std::env::consts::OS,
        match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            other => other,
        }
    )
}

/// One stream's chunks as redacted lines, each with the time of the chunk that
/// completed it: a secret split across two chunks is redacted whole, and bytes that
/// are not UTF-8 are redacted before they become hex.
fn redacted_lines(redactor: &Redactor, chunks: &[CapturedChunk]) -> Vec<(f64, Vec<u8>)> {
    let mut lines = LineRedactor::new(redactor.clone());
    let mut out = Vec::new();
    for chunk in chunks {
        out.extend(lines.push(&chunk.bytes).into_iter().map(|b| (chunk.t, b)));
    }
    let last = chunks.last().map_or(0.0, |c| c.t);
    out.extend(lines.finish().map(|b| (last, b)));
    out
}

/// What crossed an invocation's stdio as trace events, redacted and in arrival order
/// (a stable sort keeps each stream's own order): stdin lines, stdout and stderr.
pub fn output_events(
    redactor: &Redactor,
    stdin: &[CapturedChunk],
    stdout: &[CapturedChunk],
    stderr: &[CapturedChunk],
) -> Vec<TimedEvent> {
    let mut events: Vec<TimedEvent> = Vec::new();
    for (t, bytes) in redacted_lines(redactor, stdin) {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        events.push(TimedEvent {
            t,
            event: TraceEvent::Stdin(text),
        });
    }
    for (chunks, out) in [(stdout, true), (stderr, false)] {
        for (t, bytes) in redacted_lines(redactor, chunks) {
            let event = match (String::from_utf8(bytes), out) {
                (Ok(s), true) => TraceEvent::Stdout(s),
                (Ok(s), false) => TraceEvent::Stderr(s),
                (Err(e), true) => TraceEvent::StdoutHex(HexBytes(e.into_bytes())),
                (Err(e), false) => TraceEvent::StderrHex(HexBytes(e.into_bytes())),
            };
            events.push(TimedEvent { t, event });
        }
    }
    events.sort_by(|a, b| a.t.total_cmp(&b.t));
    events
}

/// Every file under `dir`, at any depth (none when it is missing).
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(t) if t.is_file() => out.push(p),
                _ => {}
            }
        }
    }
    out
}

/// `p` relative to `base`, with `/` between components.
pub fn relative(base: &Path, p: &Path) -> String {
    p.strip_prefix(base)
        .unwrap_or(p)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}
