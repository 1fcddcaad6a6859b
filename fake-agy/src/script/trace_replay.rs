//! Replays a recorded trace (docs/trace-format.md): stdout and stderr bytes exactly as
//! recorded, at their relative times (scaled), files written again, and the recorded
//! exit. A `stdin` event waits for the client's next stdin line, so a recorded
//! persistent session replays line by line against a live client.

use crate::error::FakeError;
use crate::io::ending::{die_by_signal, exit_with};
use crate::io::stdin_reader::StdinEvent;
use crate::session::Session;
use crate::turn::image::encode;
use agy_protocol::confine::{confined, repository_root};
use agy_protocol::diag::{Diagnostic, Diagnostics};
use agy_protocol::file::{read_file_located, FILE_CAP};
use agy_protocol::script::ImageFormat;
use agy_protocol::trace::{Trace, TraceEvent, TracedInvocation};
use agy_protocol::Seconds;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Loads `spec` (`path` or `path#N` for the N-th invocation, 1-based), relative to the
/// folder of `script`, and only from inside the script's repository (the nearest folder
/// above it holding `.git`, else its own folder; `agy_protocol::confine`), as a
/// scenario's `script` path is: a script from elsewhere cannot replay
/// `/proc/self/environ` or a private key. Every problem is a located diagnostic.
pub fn load(script: Option<&Path>, spec: &str) -> Result<TracedInvocation, FakeError> {
    let (path, nth) = match spec.rsplit_once('#') {
        Some((p, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            (p, n.parse::<usize>().unwrap_or(usize::MAX))
        }
        _ => (spec, 1),
    };
    let script_dir = script.and_then(Path::parent);
    let full: PathBuf = match script_dir {
        Some(d) if Path::new(path).is_relative() => d.join(path),
        _ => PathBuf::from(path),
    };
    let display = full.display().to_string();
    let located = |d: Diagnostic| FakeError::Trace(Diagnostics(vec![d]));
    confine_trace(script, &full, spec).map_err(located)?;
    let text = read_file_located(&full, FILE_CAP)
        .map_err(|e| located(e.diagnostic(&display, "read trace")))?;
    let trace = Trace::parse(&display, &text).map_err(FakeError::Trace)?;
    let count = trace.invocations.len();
    match nth
        .checked_sub(1)
        .and_then(|i| trace.invocations.into_iter().nth(i))
    {
        Some(inv) => Ok(inv),
        None => Err(located(
            Diagnostic::at_line(
                &display,
                invocation_line(&text, count),
                1,
                format!("`#{nth}` names no invocation: the trace has {count}"),
            )
            .with_hint(format!(
                "write `#1` to `#{count}`, counting `{{\"invocation\":…}}` lines from 1"
            )),
        )),
    }
}

/// `Ok` when `full` stays inside the repository of `script` (the current folder when
/// there is no script file); else a diagnostic at the script line naming `spec`.
fn confine_trace(script: Option<&Path>, full: &Path, spec: &str) -> Result<(), Diagnostic> {
    let root = match script {
        Some(s) => repository_root(s),
        None => PathBuf::from("."),
    };
    if confined(&root, full).is_some() {
        return Ok(());
    }
    let (name, line, column) = match script {
        Some(s) => {
            let text = read_file_located(s, FILE_CAP).unwrap_or_default();
            let (line, column) = text
                .lines()
                .enumerate()
                .find_map(|(i, l)| l.find(spec).map(|c| (i + 1, c + 1)))
                .unwrap_or((1, 1));
            (s.display().to_string(), line, column)
        }
        None => ("(script)".to_string(), 1, 1),
    };
    let message = format!(
        "trace `{spec}` is outside the script's repository `{}`",
        std::fs::canonicalize(&root).unwrap_or(root).display()
    );
    Err(Diagnostic::at_line(name, line, column, message).with_hint(
        "name a trace inside the repository (the nearest folder above the script holding \
         `.git`, else the script's folder), relative to the script",
    ))
}

/// The line of the `count`-th (last) invocation, where the reader would look for more.
fn invocation_line(text: &str, count: usize) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("{\"invocation\""))
        .nth(count.saturating_sub(1))
        .map_or(1, |(i, _)| i + 1)
}

/// Replays one recorded invocation.
pub fn replay(s: &mut Session, inv: &TracedInvocation) -> Result<(), FakeError> {
    let mut start = Instant::now();
    for ev in &inv.events {
        // A parsed trace's times are in range; a hand-built one saturates to the cap.
        let t = Seconds::new(ev.t).unwrap_or(Seconds::MAX).duration();
        let due = start + s.setup().clock().scaled(t);
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
            TraceEvent::Stdout(text) => s.out().stdout(text.as_bytes()),
            TraceEvent::StdoutHex(b) => s.out().stdout(&b.0),
            TraceEvent::Stderr(text) => s.out().stderr(text.as_bytes()),
            TraceEvent::StderrHex(b) => s.out().stderr(&b.0),
            TraceEvent::File(f) => {
                // Trace::parse refused paths leaving the app data dir and sizes over
                // the caps, with their lines.
                let path = s.app().root.join(&f.path);
                let bytes = match (f.width, f.height) {
                    (Some(w), Some(h)) => {
                        encode(w, h, ImageFormat::Jpeg, 0).map_err(FakeError::Step)?
                    }
                    _ => vec![0u8; f.bytes as usize],
                };
                crate::store::brain::write_file(&path, &bytes)?;
                s.record_file(&path, bytes.len() as u64);
            }
            TraceEvent::Exit(x) => {
                if let Some(sig) = x.signal.as_deref().and_then(signal_number) {
                    die_by_signal(s.recorder(), sig);
                }
                exit_with(s.recorder(), x.code.unwrap_or(0));
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
