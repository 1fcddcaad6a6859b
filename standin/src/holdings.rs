//! The captures the stand-in holds: every invocation of every trace in its folder that
//! can be served, and the ones that cannot, with the reason.

use crate::error::StandinError;
use agy_protocol::diag::{Diagnostic, Diagnostics};
use agy_protocol::file::{read_file_located, FILE_CAP};
use agy_protocol::standin::STANDIN_UNSERVED_EXIT;
use agy_protocol::trace::{Trace, TraceEvent};
use std::path::Path;

/// The most traces one folder may hold.
pub const MAX_TRACES: usize = 4096;

/// One invocation the stand-in can answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    /// `file.jsonl#N`: the trace and the invocation's 1-based number in it.
    pub origin: String,
    /// argv without the program name.
    pub args: Vec<String>,
    /// The recorded events, in order; the last is the exit.
    pub events: Vec<TraceEvent>,
}

/// An invocation the stand-in cannot answer, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unservable {
    /// `file.jsonl#N`.
    pub origin: String,
    /// Why it is not served.
    pub reason: &'static str,
}

/// Everything one folder holds, for one agy version.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Holdings {
    /// The agy version every trace records.
    pub version: String,
    /// The invocations served, in file-name order, then recorded order.
    pub held: Vec<Held>,
    /// The invocations that cannot be served.
    pub unservable: Vec<Unservable>,
}

/// Reads every `*.jsonl` in `dir` (file-name order), each bounded, every problem of every
/// trace located; refuses traces of more than one agy version.
pub fn load_holdings(dir: &Path) -> Result<Holdings, StandinError> {
    let list_err = |source| StandinError::List {
        dir: dir.display().to_string(),
        source,
    };
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(list_err)? {
        let path = entry.map_err(list_err)?.path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            paths.push(path);
        }
        if paths.len() > MAX_TRACES {
            return Err(StandinError::TooMany {
                dir: dir.display().to_string(),
                cap: MAX_TRACES,
            });
        }
    }
    paths.sort();
    let mut diags = Diagnostics::new();
    let mut traces = Vec::new();
    for path in &paths {
        let shown = path.display().to_string();
        match read_file_located(path, FILE_CAP) {
            Err(e) => diags.push(e.diagnostic(&shown, "read the trace")),
            Ok(text) => match Trace::parse(&shown, &text) {
                Ok(t) => traces.push((name_of(path), shown, t)),
                Err(d) => diags.extend(d),
            },
        }
    }
    let holdings = holdings_of(&traces, &mut diags);
    diags.into_result(holdings).map_err(StandinError::Traces)
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The holdings of parsed traces `(name, shown path, trace)`; a version other than the
/// first trace's is reported at the header of the trace that has it.
pub fn holdings_of(traces: &[(String, String, Trace)], diags: &mut Diagnostics) -> Holdings {
    let mut h = Holdings::default();
    for (i, (name, shown, trace)) in traces.iter().enumerate() {
        if i == 0 {
            h.version = trace.header.agy_version.clone();
        } else if trace.header.agy_version != h.version {
            diags.push(
                Diagnostic::at_line(
                    shown.clone(),
                    1,
                    1,
                    format!(
                        "the trace records agy {} while `{}` records agy {}",
                        trace.header.agy_version, traces[0].0, h.version
                    ),
                )
                .with_hint("give the stand-in the captures of one agy version only"),
            );
            continue;
        }
        for (n, inv) in trace.invocations.iter().enumerate() {
            let origin = format!("{name}#{}", n + 1);
            let events: Vec<TraceEvent> = inv.events.iter().map(|e| e.event.clone()).collect();
            match unservable_reason(&inv.start.argv, inv.exit()) {
                Some(reason) => h.unservable.push(Unservable { origin, reason }),
                None => h.held.push(Held {
                    origin,
                    args: inv.start.argv[1..].to_vec(),
                    events,
                }),
            }
        }
    }
    h
}

/// Why an invocation cannot be served: its argv or its end is not recorded, or it
/// ended with the stand-in's own exit code.
fn unservable_reason(
    argv: &[String],
    exit: Option<&agy_protocol::journal::ExitRecord>,
) -> Option<&'static str> {
    if argv.is_empty() {
        return Some("its argv is unknown");
    }
    match exit {
        None => Some("its exit is unknown"),
        Some(x) if x.code == Some(STANDIN_UNSERVED_EXIT) => {
            Some("it exited with the stand-in's reserved code")
        }
        Some(x) if x.code.is_none() && x.signal.is_none() => Some("its exit is unknown"),
        Some(_) => None,
    }
}
