//! Traces: recordings of agy invocations, as JSON lines.
//!
//! ```text
//! {"trace":1,"agy_version":"1.2.17","recorded":"2026-10-05","platform":"linux_amd64","source":"…"}
//! {"invocation":{"argv":["agy","-p","hi","--output-format","json"],"cwd":"/mnt"}}
//! {"t":0,"stdin":"{\"event\":\"user\",…}\n"}
//! {"t":0.012,"stdout":"{\"event\":\"init\",…}\n"}
//! {"t":0.013,"stderr":"[agy] print timeout after 8s …\n"}
//! {"t":0.5,"file":{"path":"brain/<id>/x_1.jpg","bytes":1234,"width":1376,"height":768}}
//! {"t":0.6,"exit":{"code":0}}
//! ```
//!
//! `t` is seconds since the invocation started. `stdout`/`stderr` hold exact text;
//! bytes that are not UTF-8 go, as hex, in `stdout_hex`/`stderr_hex`.
//! The format is documented in `docs/trace-format.md`.

use crate::diag::{Diagnostic, Diagnostics};
use crate::journal::ExitRecord;
use crate::timing::Seconds;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The trace format version.
pub const TRACE_VERSION: u32 = 1;

/// Where a trace came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceHeader {
    /// Format version ([`TRACE_VERSION`]).
    pub trace: u32,
    /// The agy version recorded.
    pub agy_version: String,
    /// Date recorded (`YYYY-MM-DD`).
    pub recorded: String,
    /// `linux_amd64`, `windows_amd64`, …
    pub platform: String,
    /// Who recorded it and where it was published.
    pub source: String,
    /// Free text: how it was captured, what was redacted or reconstructed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// How one recorded invocation was started.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InvocationStart {
    /// argv, `agy` first.
    pub argv: Vec<String>,
    /// Working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Environment that mattered.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

/// A file the invocation wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceFile {
    /// Path relative to the app data dir (`brain/<id>/x_1.jpg`).
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Image width, for images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// Image height, for images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
}

/// One event of an invocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceEvent {
    /// A line the client wrote to stdin.
    Stdin(String),
    /// Text agy wrote to stdout.
    Stdout(String),
    /// Bytes agy wrote to stdout that are not UTF-8, in hex.
    StdoutHex(crate::script::HexBytes),
    /// Text agy wrote to stderr.
    Stderr(String),
    /// Bytes agy wrote to stderr that are not UTF-8, in hex.
    StderrHex(crate::script::HexBytes),
    /// A file agy wrote.
    File(TraceFile),
    /// How the invocation ended.
    Exit(ExitRecord),
}

/// One timed event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimedEvent {
    /// Seconds since the invocation started.
    pub t: f64,
    /// The event.
    #[serde(flatten)]
    pub event: TraceEvent,
}

/// One recorded invocation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TracedInvocation {
    /// How it was started.
    pub start: InvocationStart,
    /// What happened, in order.
    pub events: Vec<TimedEvent>,
}

/// A whole trace file.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// Provenance.
    pub header: TraceHeader,
    /// The invocations, in order.
    pub invocations: Vec<TracedInvocation>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct InvocationLine {
    invocation: InvocationStart,
}

/// serde_json's message without its " at line L column C": the diagnostic says where.
fn without_location(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_string()
}

impl TracedInvocation {
    /// Every stdout byte, in order.
    pub fn stdout(&self) -> Vec<u8> {
        self.bytes(true)
    }

    /// Every stderr byte, in order.
    pub fn stderr(&self) -> Vec<u8> {
        self.bytes(false)
    }

    /// The lines written to stdin, in order, each without its newline.
    pub fn stdin_lines(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| match &e.event {
                TraceEvent::Stdin(s) => Some(s.trim_end_matches('\n').to_string()),
                _ => None,
            })
            .collect()
    }

    fn bytes(&self, stdout: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for e in &self.events {
            match (&e.event, stdout) {
                (TraceEvent::Stdout(s), true) | (TraceEvent::Stderr(s), false) => {
                    out.extend_from_slice(s.as_bytes())
                }
                (TraceEvent::StdoutHex(b), true) | (TraceEvent::StderrHex(b), false) => {
                    out.extend_from_slice(&b.0)
                }
                _ => {}
            }
        }
        out
    }

    /// Redacts everything a live run's user, account or secrets could appear in: argv,
    /// cwd, environment values, every stdin, stdout and stderr event (hex ones as
    /// bytes) and file paths.
    pub fn redact(&mut self, redactor: &crate::redact::Redactor) {
        let r = |s: &mut String| *s = redactor.redact(s);
        self.start.argv.iter_mut().for_each(r);
        self.start.cwd.iter_mut().for_each(r);
        self.start.env = redactor.redact_env(&self.start.env);
        for e in &mut self.events {
            match &mut e.event {
                TraceEvent::Stdin(s) | TraceEvent::Stdout(s) | TraceEvent::Stderr(s) => r(s),
                TraceEvent::StdoutHex(b) | TraceEvent::StderrHex(b) => {
                    b.0 = redactor.redact_bytes(&b.0)
                }
                TraceEvent::File(f) => r(&mut f.path),
                TraceEvent::Exit(_) => {}
            }
        }
    }

    /// The exit record, when the trace has one.
    pub fn exit(&self) -> Option<&ExitRecord> {
        self.events.iter().rev().find_map(|e| match &e.event {
            TraceEvent::Exit(x) => Some(x),
            _ => None,
        })
    }
}

impl Trace {
    /// Renders the trace as JSON lines.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let mut push = |v: String| {
            out.push_str(&v);
            out.push('\n');
        };
        push(serde_json::to_string(&self.header).unwrap_or_default());
        for inv in &self.invocations {
            push(
                serde_json::to_string(&InvocationLine {
                    invocation: inv.start.clone(),
                })
                .unwrap_or_default(),
            );
            for e in &inv.events {
                push(serde_json::to_string(e).unwrap_or_default());
            }
        }
        out
    }

    /// Parses a trace, reporting every bad line with its line and column.
    pub fn parse(path: &str, text: &str) -> Result<Trace, Diagnostics> {
        let mut diags = Diagnostics::new();
        let mut header: Option<TraceHeader> = None;
        let mut invocations: Vec<TracedInvocation> = Vec::new();
        // The last event's time, and whether the invocation has exited.
        let mut clock = (0.0f64, false);
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            if line.trim().is_empty() {
                continue;
            }
            let err = |diags: &mut Diagnostics, e: serde_json::Error, hint: &str| {
                diags.push(
                    Diagnostic::at_line(
                        path,
                        n,
                        e.column().max(1),
                        format!("invalid trace line: {}", without_location(&e)),
                    )
                    .with_hint(hint.to_string()),
                )
            };
            if header.is_none() && invocations.is_empty() && n == first_line(text) {
                header = parse_header(path, n, line, &mut diags);
                continue;
            }
            if line.trim_start().starts_with("{\"invocation\"") {
                match serde_json::from_str::<InvocationLine>(line) {
                    Ok(l) => {
                        invocations.push(TracedInvocation {
                            start: l.invocation,
                            events: Vec::new(),
                        });
                        clock = (0.0, false);
                    }
                    Err(e) => err(
                        &mut diags,
                        e,
                        "write {\"invocation\":{\"argv\":[\"agy\",…]}}",
                    ),
                }
                continue;
            }
            match serde_json::from_str::<TimedEvent>(line) {
                Ok(ev) => push_event(path, n, ev, &mut invocations, &mut clock, &mut diags),
                Err(e) => err(
                    &mut diags,
                    e,
                    "an event is {\"t\":<seconds>, one of \"stdin\", \"stdout\", \"stdout_hex\", \"stderr\", \"stderr_hex\", \"file\", \"exit\"}",
                ),
            }
        }
        whole_trace(path, header, invocations, diags)
    }

    /// Builds a one-invocation trace from a raw capture: stdout and stderr bytes as
    /// published (no timing: every event at `t = 0`), the stdin lines that drove it,
    /// and the exit code when it is known. Each stdout/stderr line becomes one event, so a replay writes
    /// the same bytes line by line.
    pub fn from_capture(
        header: TraceHeader,
        start: InvocationStart,
        stdin_lines: &[String],
        stdout: &[u8],
        stderr: &[u8],
        exit_code: Option<i32>,
    ) -> Trace {
        let mut events = Vec::new();
        for line in stdin_lines {
            let mut l = line.clone();
            if !l.ends_with('\n') {
                l.push('\n');
            }
            events.push(TimedEvent {
                t: 0.0,
                event: TraceEvent::Stdin(l),
            });
        }
        push_lines(&mut events, stdout, true);
        push_lines(&mut events, stderr, false);
        if let Some(code) = exit_code {
            events.push(TimedEvent {
                t: 0.0,
                event: TraceEvent::Exit(ExitRecord {
                    code: Some(code),
                    signal: None,
                }),
            });
        }
        Trace {
            header,
            invocations: vec![TracedInvocation { start, events }],
        }
    }
}

/// What a replay would do with an event that it must refuse: write outside the app
/// data dir, allocate more than the caps, exit with a code no process has.
fn check_event(event: &TraceEvent) -> Result<(), (String, String)> {
    use crate::script::limits::{check_file_bytes, check_image_size};
    let limit = |e: crate::script::limits::LimitError| (e.message, e.hint);
    match event {
        TraceEvent::File(f) => {
            let rel = std::path::Path::new(&f.path);
            let inside = rel
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            if rel.as_os_str().is_empty() || !inside {
                return Err((
                    format!("file path `{}` leaves the app data dir", f.path),
                    "write a path relative to the app data dir without `..`, such as `brain/<id>/x_1.jpg`".into(),
                ));
            }
            check_file_bytes(f.bytes).map_err(limit)?;
            match (f.width, f.height) {
                (Some(w), Some(h)) => check_image_size(w, h).map_err(limit),
                _ => Ok(()),
            }
        }
        TraceEvent::Exit(ExitRecord {
            code: Some(code), ..
        }) if !(0..=255).contains(code) => Err((
            format!("exit code {code} is outside 0–255"),
            "a process exits with 0 to 255; record the code agy exited with".into(),
        )),
        _ => Ok(()),
    }
}

/// The header line: its format version must be this build's.
fn parse_header(path: &str, n: usize, line: &str, diags: &mut Diagnostics) -> Option<TraceHeader> {
    match serde_json::from_str::<TraceHeader>(line) {
        Ok(h) => {
            if h.trace != TRACE_VERSION {
                diags.push(
                    Diagnostic::at_line(
                        path,
                        n,
                        1,
                        format!("trace format version {} is not supported", h.trace),
                    )
                    .with_hint(format!("this build reads version {TRACE_VERSION}")),
                );
            }
            Some(h)
        }
        Err(e) => {
            diags.push(
                Diagnostic::at_line(
                    path,
                    n,
                    e.column().max(1),
                    format!("invalid trace line: {}", without_location(&e)),
                )
                .with_hint("the first line must be the header: {\"trace\":1,\"agy_version\":…,\"recorded\":…,\"platform\":…,\"source\":…}"),
            );
            None
        }
    }
}

/// An event line: appended to the last invocation, its time and order checked against
/// `clock` (the last event's time, and whether the invocation has exited).
fn push_event(
    path: &str,
    n: usize,
    ev: TimedEvent,
    invocations: &mut [TracedInvocation],
    clock: &mut (f64, bool),
    diags: &mut Diagnostics,
) {
    let Some(inv) = invocations.last_mut() else {
        diags.push(
            Diagnostic::at_line(path, n, 1, "event before any invocation line")
                .with_hint("start each invocation with {\"invocation\":{\"argv\":[…]}}"),
        );
        return;
    };
    check_timed_event(path, n, &ev, *clock, diags);
    if matches!(ev.event, TraceEvent::Exit(_)) {
        clock.1 = true;
    }
    clock.0 = ev.t.max(clock.0);
    inv.events.push(ev);
}

/// The checks on one event line: `t` in range and not going backwards (`last_t`), no
/// event after the invocation's exit (`ended`), and the event's own limits.
fn check_timed_event(
    path: &str,
    n: usize,
    ev: &TimedEvent,
    (last_t, ended): (f64, bool),
    diags: &mut Diagnostics,
) {
    if let Err(e) = Seconds::new(ev.t) {
        diags.push(
            Diagnostic::at_line(path, n, 1, e.to_string()).with_hint(format!(
                "`t` is seconds since the invocation started: {}",
                e.hint()
            )),
        );
    } else if ev.t < last_t {
        diags.push(
            Diagnostic::at_line(
                path,
                n,
                1,
                format!("time {} goes backwards (previous {last_t})", ev.t),
            )
            .with_hint("`t` is seconds since the invocation started and never decreases"),
        );
    }
    if ended {
        diags.push(
            Diagnostic::at_line(path, n, 1, "event after the invocation's exit")
                .with_hint("`exit` must be the last event of an invocation"),
        );
    }
    if let Err((message, hint)) = check_event(&ev.event) {
        diags.push(Diagnostic::at_line(path, n, 1, message).with_hint(hint));
    }
}

/// The trace its lines make, or every error: a trace needs its header and at least one
/// invocation.
fn whole_trace(
    path: &str,
    header: Option<TraceHeader>,
    invocations: Vec<TracedInvocation>,
    mut diags: Diagnostics,
) -> Result<Trace, Diagnostics> {
    let Some(header) = header else {
        if diags.is_empty() {
            diags.push(
                Diagnostic::at_line(path, 1, 1, "empty trace")
                    .with_hint("a trace starts with its header line"),
            );
        }
        return Err(diags);
    };
    if invocations.is_empty() {
        diags.push(
            Diagnostic::at_line(path, 1, 1, "trace has no invocation")
                .with_hint("add an {\"invocation\":…} line and its events"),
        );
    }
    diags.into_result(Trace {
        header,
        invocations,
    })
}

fn first_line(text: &str) -> usize {
    text.lines()
        .position(|l| !l.trim().is_empty())
        .map(|p| p + 1)
        .unwrap_or(1)
}

fn push_lines(events: &mut Vec<TimedEvent>, bytes: &[u8], stdout: bool) {
    for chunk in bytes.split_inclusive(|b| *b == b'\n') {
        let event = match (std::str::from_utf8(chunk), stdout) {
            (Ok(s), true) => TraceEvent::Stdout(s.to_string()),
            (Ok(s), false) => TraceEvent::Stderr(s.to_string()),
            (Err(_), true) => TraceEvent::StdoutHex(crate::script::HexBytes(chunk.to_vec())),
            (Err(_), false) => TraceEvent::StderrHex(crate::script::HexBytes(chunk.to_vec())),
        };
        events.push(TimedEvent { t: 0.0, event });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn header() -> TraceHeader {
        TraceHeader {
            trace: TRACE_VERSION,
            agy_version: "1.2.17".into(),
            recorded: "2026-10-05".into(),
            platform: "linux_amd64".into(),
            source: "test".into(),
            note: None,
        }
    }

    #[test]
    fn capture_round_trips_through_render_and_parse_with_identical_bytes() {
        let stdout = b"{\"a\":1}\n{\"b\":2}\npartial".to_vec();
        let stderr = b"warn\n\xff\n".to_vec();
        let trace = Trace::from_capture(
            header(),
            InvocationStart::default(),
            &["x".into()],
            &stdout,
            &stderr,
            Some(3),
        );
        let back = Trace::parse("t.jsonl", &trace.render()).expect("parses");
        assert_eq!(back, trace);
        assert_eq!(back.invocations[0].stdout(), stdout);
        assert_eq!(back.invocations[0].stderr(), stderr);
        assert_eq!(back.invocations[0].exit().and_then(|e| e.code), Some(3));
    }

    #[test]
    fn bad_lines_are_all_reported() {
        let text = format!(
            "{}\n{{\"invocation\":{{\"argv\":[\"agy\"]}}}}\n{{\"t\":1,\"stdot\":\"x\"}}\n{{\"t\":-1,\"stdout\":\"y\"}}\n",
            serde_json::to_string(&header()).expect("header")
        );
        let err = Trace::parse("t.jsonl", &text).expect_err("rejects");
        let lines: Vec<usize> = err.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![3, 4], "{err}");
    }

    #[test]
    fn out_of_range_times_are_located() {
        // Regression: `1e300` and `1e19` were accepted and made the replay panic.
        let text = format!(
            "{}\n{{\"invocation\":{{\"argv\":[\"agy\"]}}}}\n{{\"t\":1e300,\"stdout\":\"x\"}}\n{{\"t\":1e19,\"stdout\":\"y\"}}\n",
            serde_json::to_string(&header()).expect("header")
        );
        let err = Trace::parse("t.jsonl", &text).expect_err("rejects");
        let lines: Vec<usize> = err.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![3, 4], "{err}");
        assert!(err.0[0].message.contains("out of range"), "{err}");
    }

    #[test]
    fn file_events_that_leave_the_data_dir_or_exceed_the_caps_are_located() {
        // Regression: a `file.bytes` of 1e12 aborted the replay; `../x` was caught only
        // while replaying, without a location.
        let text = format!(
            "{}\n{{\"invocation\":{{\"argv\":[\"agy\"]}}}}\n{}\n{}\n{}\n{}\n{{\"t\":0,\"exit\":{{\"code\":256}}}}\n",
            serde_json::to_string(&header()).expect("header"),
            r#"{"t":0,"file":{"path":"../escape","bytes":1}}"#,
            r#"{"t":0,"file":{"path":"/etc/x","bytes":1}}"#,
            r#"{"t":0,"file":{"path":"brain/x.bin","bytes":1000000000000}}"#,
            r#"{"t":0,"file":{"path":"brain/x.jpg","bytes":1,"width":60000,"height":60000}}"#,
        );
        let err = Trace::parse("t.jsonl", &text).expect_err("rejects");
        let lines: Vec<usize> = err.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![3, 4, 5, 6, 7], "{err}");
        assert!(
            err.0[0].message.contains("leaves the app data dir"),
            "{err}"
        );
        assert!(err.0[2].message.contains("cap of"), "{err}");
        assert!(err.0[3].message.contains("60000×60000"), "{err}");
        assert!(err.0[4].message.contains("outside 0–255"), "{err}");
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC*") {
            let _ = Trace::parse("t", &s);
        }

        #[test]
        fn arbitrary_captures_round_trip(stdout in proptest::collection::vec(any::<u8>(), 0..200),
                                         stderr in proptest::collection::vec(any::<u8>(), 0..50),
                                         code in 0i32..=255) {
            let trace = Trace::from_capture(header(), InvocationStart::default(), &[], &stdout, &stderr, Some(code));
            let back = Trace::parse("t", &trace.render()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(back.invocations[0].stdout(), stdout);
            prop_assert_eq!(back.invocations[0].stderr(), stderr);
        }
    }
}
