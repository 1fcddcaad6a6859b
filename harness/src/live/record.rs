//! `agy-harness run --agy PATH --live --record DIR`: every live agy invocation of a
//! scenario, as the live wrapper recorded it ([`super::capture`]), joined into one
//! trace per scenario (docs/trace-format.md) with provenance: the agy version as
//! `--version` answered it, the date, the platform, the scenario and the adapter.
//! Redacted at record time by the wrapper, and once more here with the identity of the
//! user running the harness. `agy-harness repro` reads the trace (or its folder).

use crate::recording::{platform, today, REDACTION_NOTE};
use agy_protocol::diag::Diagnostics;
use agy_protocol::redact::{Identity, Redactor};
use agy_protocol::trace::{Trace, TraceHeader, TRACE_VERSION};
use std::path::{Path, PathBuf};

/// How the header of a trace written by `agy-harness run --live --record` starts its
/// `source` (one trace per scenario); `repro` reads a record folder by it.
pub const RUN_RECORD_SOURCE: &str = "agy-harness run --live --record";

/// The folder of a scenario's sandbox state where the wrapper writes its invocations.
pub const PARTS_DIR: &str = "live-record";
/// The largest invocation recording read back (each stream is capped below it).
const PART_CAP: u64 = 64 * 1024 * 1024;

/// Why a scenario's trace was not written.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The folder of the wrapper's recordings, or one recording, could not be read.
    #[error("failed to read `{path}`: {source}")]
    Read {
        /// The folder or file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// A recording is not a trace (docs/trace-format.md): every problem, located.
    #[error("{0}")]
    NotATrace(Diagnostics),
    /// The trace could not be written.
    #[error("failed to write `{path}`: {source}")]
    Write {
        /// The trace file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
}

/// Writes one trace per scenario into the `--record` folder.
#[derive(Debug, Clone)]
pub struct LiveRecorder {
    dir: PathBuf,
    agy_version: String,
    redactor: Redactor,
}

impl LiveRecorder {
    /// A recorder writing into `dir` (created if missing), stamping `agy_version`.
    pub fn new(dir: PathBuf, agy_version: String) -> std::io::Result<LiveRecorder> {
        std::fs::create_dir_all(&dir)?;
        let identity = Identity::from_env();
        let redactor = match std::env::var_os("HOME") {
            Some(h) => Redactor::new(&identity.with_profile_of(Path::new(&h))),
            None => Redactor::new(&identity),
        };
        Ok(LiveRecorder {
            dir,
            agy_version,
            redactor,
        })
    }

    /// The trace file of `scenario` (`oneshot/x` → `oneshot-x.jsonl`).
    pub fn trace_path(&self, scenario: &str) -> PathBuf {
        let slug: String = scenario
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        self.dir.join(format!("{slug}.jsonl"))
    }

    /// Joins the invocations the wrapper recorded in `parts` into the scenario's trace;
    /// `Ok(None)` when the scenario ran no agy.
    pub fn record(
        &self,
        scenario: &str,
        adapter: &str,
        parts: &Path,
    ) -> Result<Option<PathBuf>, RecordError> {
        let mut files: Vec<PathBuf> = match std::fs::read_dir(parts) {
            Ok(rd) => rd.flatten().map(|e| e.path()).collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(RecordError::Read {
                    path: parts.to_path_buf(),
                    source,
                })
            }
        };
        files.retain(|p| p.extension().is_some_and(|x| x == "jsonl"));
        // Named `<invocation>-<pid>`: name order is invocation order.
        files.sort();
        let mut invocations = Vec::new();
        for f in &files {
            let shown = f.display().to_string();
            let text = agy_protocol::file::read_file_bounded(f, PART_CAP).map_err(|source| {
                RecordError::Read {
                    path: f.clone(),
                    source,
                }
            })?;
            let trace = Trace::parse(&shown, &text).map_err(RecordError::NotATrace)?;
            invocations.extend(trace.invocations);
        }
        if invocations.is_empty() {
            return Ok(None);
        }
        for inv in &mut invocations {
            inv.redact(&self.redactor);
        }
        let trace = Trace {
            header: TraceHeader {
                trace: TRACE_VERSION,
                agy_version: self.agy_version.clone(),
                recorded: today(),
                platform: platform(),
                source: self.redactor.redact(&format!(
                    "{RUN_RECORD_SOURCE}: scenario `{scenario}`, adapter `{adapter}`"
                )),
                note: Some(REDACTION_NOTE.into()),
            },
            invocations,
        };
        let path = self.trace_path(scenario);
        crate::keep::write_kept(&path, trace.render()).map_err(|source| RecordError::Write {
            path: path.clone(),
            source,
        })?;
        Ok(Some(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::journal::ExitRecord;
    use agy_protocol::trace::{InvocationStart, TimedEvent, TraceEvent, TracedInvocation};

    fn part(argv: &[&str], stdout: &str) -> String {
        Trace {
            header: TraceHeader {
                trace: TRACE_VERSION,
                agy_version: "unknown".into(),
                recorded: "2026-12-01".into(),
                platform: "linux_amd64".into(),
                source: "agy-harness live wrapper".into(),
                note: None,
            },
            invocations: vec![TracedInvocation {
                start: InvocationStart {
                    argv: argv.iter().map(|a| a.to_string()).collect(),
                    ..InvocationStart::default()
                },
                events: vec![
                    TimedEvent {
                        t: 0.1,
                        event: TraceEvent::Stdout(stdout.into()),
                    },
                    TimedEvent {
                        t: 0.2,
                        event: TraceEvent::Exit(ExitRecord {
                            code: Some(0),
                            signal: None,
                        }),
                    },
                ],
            }],
        }
        .render()
    }

    #[test]
    fn the_invocations_of_a_scenario_join_in_order_under_one_header() {
        let out = tempfile::tempdir().expect("out");
        let parts = tempfile::tempdir().expect("parts");
        std::fs::write(
            parts.path().join("000002-9.jsonl"),
            part(&["agy", "-p", "two"], "b\n"),
        )
        .expect("part");
        std::fs::write(
            parts.path().join("000001-9.jsonl"),
            part(
                &["agy", "-p", "one"],
                "token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
            ),
        )
        .expect("part");
        let rec = LiveRecorder::new(out.path().to_path_buf(), "1.2.6".into()).expect("rec");
        let path = rec
            .record("oneshot/a b", "reference", parts.path())
            .expect("records")
            .expect("a trace");
        assert_eq!(path, out.path().join("oneshot-a-b.jsonl"));
        let text = std::fs::read_to_string(&path).expect("trace");
        let trace = Trace::parse("t", &text).expect("parses");
        assert_eq!(trace.header.agy_version, "1.2.6");
        assert!(
            trace.header.source.contains("`oneshot/a b`"),
            "{}",
            trace.header.source
        );
        assert!(trace.header.source.contains("`reference`"));
        let prompts: Vec<&str> = trace
            .invocations
            .iter()
            .map(|i| i.start.argv[2].as_str())
            .collect();
        assert_eq!(prompts, ["one", "two"]);
        assert!(
            !text.contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
            "{text}"
        );
    }

    #[test]
    fn a_scenario_without_agy_writes_no_trace() {
        let out = tempfile::tempdir().expect("out");
        let rec = LiveRecorder::new(out.path().to_path_buf(), "1.2.6".into()).expect("rec");
        let missing = out.path().join("none");
        assert!(matches!(rec.record("oneshot/x", "r", &missing), Ok(None)));
    }

    #[test]
    fn a_recording_that_is_not_a_trace_is_named_as_such() {
        let out = tempfile::tempdir().expect("out");
        let parts = tempfile::tempdir().expect("parts");
        std::fs::write(parts.path().join("000001-9.jsonl"), "not a trace\n").expect("part");
        let rec = LiveRecorder::new(out.path().to_path_buf(), "1.2.6".into()).expect("rec");
        let err = rec
            .record("oneshot/x", "r", parts.path())
            .expect_err("refused");
        assert!(matches!(err, RecordError::NotATrace(_)), "{err:?}");
        let unreadable = parts.path().join("000001-9.jsonl");
        let err = rec
            .record("oneshot/x", "r", &unreadable)
            .expect_err("a file");
        assert!(
            matches!(&err, RecordError::Read { path, .. } if path == &unreadable),
            "{err:?}"
        );
    }
}
