//! Replays a recorded trace (docs/trace-format.md): stdout and stderr bytes exactly as
//! recorded, at their relative times (scaled), files written again, and the recorded
//! exit. A `stdin` event waits for the client's next stdin line, so a recorded
//! persistent session replays line by line against a live client.

use crate::ending::{die_by_signal, exit_with};
use crate::error::FakeError;
use crate::image::encode;
use crate::session::Session;
use crate::stdin_reader::StdinEvent;
use agy_protocol::script::ImageFormat;
use agy_protocol::trace::{Trace, TraceEvent, TracedInvocation};
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

/// Loads `spec` (`path` or `path#N` for the N-th invocation, 1-based), relative to the
/// script's folder.
pub fn load(script_dir: Option<&Path>, spec: &str) -> Result<TracedInvocation, FakeError> {
    let (path, nth) = match spec.rsplit_once('#') {
        Some((p, n)) if n.parse::<usize>().is_ok() => (p, n.parse::<usize>().unwrap_or(1)),
        _ => (spec, 1),
    };
    let full: PathBuf = match script_dir {
        Some(d) if Path::new(path).is_relative() => d.join(path),
        _ => PathBuf::from(path),
    };
    let display = full.display().to_string();
    let text = agy_protocol::lines::read_file_bounded(&full, agy_protocol::lines::FILE_CAP)
        .map_err(|e| FakeError::io("read trace", &full, e))?;
    let trace = Trace::parse(&display, &text).map_err(FakeError::Trace)?;
    let count = trace.invocations.len();
    trace
        .invocations
        .into_iter()
        .nth(nth.saturating_sub(1))
        .ok_or_else(|| {
            FakeError::Step(format!(
                "trace `{display}` has {count} invocation(s); `#{nth}` names none of them"
            ))
        })
}

/// Replays one recorded invocation.
pub fn replay(s: &mut Session, inv: &TracedInvocation) -> Result<(), FakeError> {
    let mut start = Instant::now();
    for ev in &inv.events {
        let due = start + s.clock.scaled(Duration::from_secs_f64(ev.t.max(0.0)));
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        match &ev.event {
            TraceEvent::Stdin(_) => {
                let before = Instant::now();
                if let StdinEvent::Line { .. } = s.stdin().next() {}
                // Later events keep their spacing relative to the client's line.
                start += before.elapsed();
            }
            TraceEvent::Stdout(text) => s.out.stdout(text.as_bytes()),
            TraceEvent::StdoutHex(b) => s.out.stdout(&b.0),
            TraceEvent::Stderr(text) => s.out.stderr(text.as_bytes()),
            TraceEvent::StderrHex(b) => s.out.stderr(&b.0),
            TraceEvent::File(f) => {
                let rel = Path::new(&f.path);
                if rel.is_absolute() || rel.components().any(|c| !matches!(c, Component::Normal(_)))
                {
                    return Err(FakeError::Step(format!(
                        "trace file path `{}` must be relative to the app data dir",
                        f.path
                    )));
                }
                let path = s.app.root.join(rel);
                let bytes = match (f.width, f.height) {
                    (Some(w), Some(h)) => {
                        encode(w, h, ImageFormat::Jpeg, 0).map_err(FakeError::Step)?
                    }
                    _ => vec![0u8; f.bytes as usize],
                };
                crate::brain::write_file(&path, &bytes)?;
                s.record_file(&path, bytes.len() as u64);
            }
            TraceEvent::Exit(x) => {
                if let Some(sig) = x.signal.as_deref().and_then(signal_number) {
                    die_by_signal(&s.recorder, sig);
                }
                exit_with(&s.recorder, x.code.unwrap_or(0));
            }
        }
    }
    Ok(())
}

fn signal_number(name: &str) -> Option<i32> {
    name.parse::<nix::sys::signal::Signal>()
        .ok()
        .map(|s| s as i32)
}
