//! Evidence from what recorded a run: the invocations of traces (times, stdin lines,
//! output, files) and the records of a journal.

use crate::profile::repro_kit::evidence::{Evidence, ImageEvidence, Invocation, Item, ItemKind};
use agy_protocol::journal::JournalRecord;
use agy_protocol::stream::parse_input_line;
use agy_protocol::trace::{Trace, TraceEvent, TracedInvocation};

/// The evidence of recorded traces, invocation by invocation.
pub fn trace_evidence(source: &str, traces: &[Trace]) -> Evidence {
    let version = traces
        .iter()
        .find_map(|t| t.header.agy_version.parse().ok())
        .map(|v| (v, "the trace header".to_string()));
    Evidence {
        source: source.to_string(),
        version,
        invocations: traces
            .iter()
            .flat_map(|t| &t.invocations)
            .map(traced_invocation)
            .collect(),
    }
}

fn traced_invocation(inv: &TracedInvocation) -> Invocation {
    let mut out = Invocation {
        argv: Some(inv.start.argv.clone()),
        ..Invocation::default()
    };
    let mut last_t = 0.0f64;
    let mut images = 0;
    let mut size = None;
    for e in &inv.events {
        let delay = ((e.t - last_t).max(0.0) * 1000.0).round();
        last_t = last_t.max(e.t);
        // Times below a millisecond are recording noise, not a delay worth scripting.
        let delay_ms = (delay >= 1.0).then_some(delay.min(3_600_000.0) as u64);
        let mut push = |kind| {
            out.items.push(Item {
                line: 0,
                delay_ms,
                kind,
            })
        };
        match &e.event {
            TraceEvent::Stdin(s) => push(ItemKind::Stdin(
                parse_input_line(s.trim_end())
                    .map(|u| u.message.content.text())
                    .unwrap_or_else(|_| s.trim_end().to_string()),
            )),
            TraceEvent::Stdout(s) => s
                .lines()
                .for_each(|l| push(ItemKind::Stdout(l.to_string()))),
            TraceEvent::Stderr(s) => s
                .lines()
                .for_each(|l| push(ItemKind::Stderr(l.to_string()))),
            TraceEvent::StdoutHex(b) => push(ItemKind::Stdout(
                String::from_utf8_lossy(&b.0).trim_end().to_string(),
            )),
            TraceEvent::StderrHex(b) => push(ItemKind::Stderr(
                String::from_utf8_lossy(&b.0).trim_end().to_string(),
            )),
            TraceEvent::File(f) => {
                let lower = f.path.to_ascii_lowercase();
                if [".jpg", ".jpeg", ".png"].iter().any(|x| lower.ends_with(x)) {
                    images += 1;
                    size = size.or(f.width.zip(f.height));
                }
            }
            TraceEvent::Exit(x) => out.exit = x.code,
        }
    }
    out.images = Some(ImageEvidence {
        count: images,
        size,
    });
    out
}

/// A journal record: the argv, the stdin lines, the exit (no output: the journal does
/// not keep it).
pub fn journal_invocation(record: &JournalRecord, line: usize) -> Invocation {
    Invocation {
        argv: Some(record.argv.clone()),
        items: record
            .stdin
            .lines
            .iter()
            .map(|l| Item {
                line,
                delay_ms: None,
                kind: ItemKind::Stdin(
                    parse_input_line(&l.text)
                        .map(|u| u.message.content.text())
                        .unwrap_or_else(|_| l.text.clone()),
                ),
            })
            .collect(),
        exit: record.exit.as_ref().and_then(|x| x.code),
        hangs: !record.complete,
        ..Invocation::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corpus_trace_gives_its_argv_stdin_output_and_exit() {
        let text = include_str!("../../../traces/cp-1.2.7-stream-json-stdin.jsonl");
        let trace = Trace::parse("t.jsonl", text).expect("parses");
        let e = trace_evidence("t.jsonl", &[trace]);
        assert_eq!(
            e.version.as_ref().map(|v| v.0.to_string()),
            Some("1.2.7".into())
        );
        let inv = &e.invocations[0];
        assert_eq!(inv.flag("--input-format"), Some("stream-json"));
        assert_eq!(
            inv.items[0].kind,
            ItemKind::Stdin("Reply with the single word ok.".into())
        );
        assert_eq!(inv.exit, Some(0));
        assert_eq!(inv.images.map(|i| i.count), Some(0));
    }
}
