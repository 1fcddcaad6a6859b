//! `--record DIR`: every probe run written as a trace (docs/trace-format.md), redacted
//! at record time, stamped with the agy version, date, platform and argv, so a live run
//! becomes new fake-agy fixtures.

use super::observation::ImageInfo;
use crate::recording::{output_events, platform, today, CapturedChunk, REDACTION_NOTE};
use agy_protocol::journal::ExitRecord;
use agy_protocol::redact::Redactor;
use agy_protocol::trace::{
    InvocationStart, TimedEvent, Trace, TraceEvent, TraceFile, TraceHeader, TracedInvocation,
    TRACE_VERSION,
};
use std::path::{Path, PathBuf};

/// Everything a run left that a trace keeps.
pub struct RunCapture<'a> {
    /// Spike id.
    pub spike: &'a str,
    /// Probe name.
    pub probe: &'a str,
    /// Run number.
    pub run: u32,
    /// argv after the binary.
    pub argv: &'a [String],
    /// Working directory.
    pub cwd: &'a Path,
    /// The HOME the run had (its app data dir paths are made relative to it).
    pub home: &'a Path,
    /// stdout chunks.
    pub stdout: &'a [CapturedChunk],
    /// stderr chunks.
    pub stderr: &'a [CapturedChunk],
    /// The lines written to stdin (at the start of the run).
    pub stdin: &'a [String],
    /// Exit code.
    pub exit: Option<i32>,
    /// Signal.
    pub signal: Option<String>,
    /// When it ended.
    pub ended: f64,
    /// Images found.
    pub images: &'a [ImageInfo],
}

/// Writes traces into a folder.
#[derive(Debug, Clone)]
pub struct Recorder {
    dir: PathBuf,
    redactor: Redactor,
    agy_version: String,
    date: String,
    platform: String,
    /// The traces that could not be written, with why; shared by every clone, so the
    /// command sees them after the run ([`Recorder::failures`]).
    failed: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Recorder {
    /// A recorder writing into `dir` (created if missing).
    pub fn new(dir: PathBuf, redactor: Redactor, agy_version: String) -> std::io::Result<Recorder> {
        std::fs::create_dir_all(&dir)?;
        Ok(Recorder {
            dir,
            redactor,
            agy_version,
            date: today(),
            platform: platform(),
            failed: Default::default(),
        })
    }

    /// The traces that could not be written (a full disk): each path with why. A run
    /// with any is a setup failure, its recording incomplete.
    pub fn failures(&self) -> Vec<String> {
        self.failed.lock().map(|f| f.clone()).unwrap_or_default()
    }

    /// The same recorder, stamping traces with `version`.
    pub fn with_version(mut self, version: String) -> Recorder {
        self.agy_version = version;
        self
    }

    /// The trace file of `spike`'s `probe`, run `run`.
    pub fn trace_path(&self, spike: &str, probe: &str, run: u32) -> PathBuf {
        self.dir.join(format!("{spike}-{probe}-{run}.jsonl"))
    }

    /// Writes one run's trace; returns its path. A trace that could not be written is
    /// also kept in [`Recorder::failures`].
    pub fn record(&self, c: &RunCapture<'_>) -> std::io::Result<PathBuf> {
        let path = self.trace_path(c.spike, c.probe, c.run);
        let written = crate::keep::write_kept(&path, self.trace(c).render());
        if let Err(e) = &written {
            if let Ok(mut f) = self.failed.lock() {
                f.push(format!("`{}`: {e}", path.display()));
            }
        }
        written.map(|()| path)
    }

    /// One run's trace, redacted and stamped.
    fn trace(&self, c: &RunCapture<'_>) -> Trace {
        let r = |s: &str| self.redactor.redact(s);
        let stdin: Vec<CapturedChunk> = c
            .stdin
            .iter()
            .map(|l| CapturedChunk {
                t: 0.0,
                bytes: format!("{l}\n").into_bytes(),
            })
            .collect();
        let mut events = output_events(&self.redactor, &stdin, c.stdout, c.stderr);
        // The pipes may be drained a moment after the exit was seen: files and the exit
        // come last, never before output they followed.
        let end = events.last().map_or(c.ended, |e| e.t.max(c.ended));
        let app_data = c.home.join(".gemini").join("antigravity-cli");
        for img in c.images {
            let bytes = std::fs::metadata(app_data.join(&img.path))
                .map(|m| m.len())
                .unwrap_or(0);
            events.push(TimedEvent {
                t: end,
                event: TraceEvent::File(TraceFile {
                    path: r(&img.path),
                    bytes,
                    width: img.size.map(|s| s.0),
                    height: img.size.map(|s| s.1),
                }),
            });
        }
        events.push(TimedEvent {
            t: end,
            event: TraceEvent::Exit(ExitRecord {
                code: c.exit,
                signal: c.signal.clone(),
            }),
        });
        let mut argv = vec!["agy".to_string()];
        argv.extend(c.argv.iter().map(|a| r(a)));
        Trace {
            header: TraceHeader {
                trace: TRACE_VERSION,
                agy_version: self.agy_version.clone(),
                recorded: self.date.clone(),
                platform: self.platform.clone(),
                source: format!(
                    "agy-harness spikes --record ({} probe `{}` run {})",
                    c.spike, c.probe, c.run
                ),
                note: Some(REDACTION_NOTE.into()),
            },
            invocations: vec![TracedInvocation {
                start: InvocationStart {
                    argv,
                    cwd: Some(r(&c.cwd.display().to_string())),
                    env: Default::default(),
                },
                events,
            }],
        }
    }
}
