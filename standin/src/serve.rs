//! Answering one invocation from the holdings: the match rule and the replay.
//!
//! The match rule (standin/README.md): a held invocation is a candidate when its argv,
//! after the program name, equals the invocation's exactly (every flag, value and prompt,
//! in order). The candidates' recorded events are then followed in step: output is
//! written as recorded; at a recorded stdin line the client's next line is read and only
//! the candidates that recorded that very line (byte for byte, without its newline) stay;
//! candidates whose output differs from the one being replayed are dropped at the
//! difference, so what was written is always one capture's prefix. The first candidate in
//! file-name order leads. No candidate left means no capture: the stand-in says so and
//! exits with its reserved code.

use crate::error::StandinError;
use crate::holdings::{Held, Holdings};
use agy_protocol::diag::closest;
use agy_protocol::journal::ExitRecord;
use agy_protocol::trace::TraceEvent;
use std::io::Write;

/// Where the replay writes: stdout and stderr.
pub struct Outputs<'a> {
    /// The process's stdout.
    pub stdout: &'a mut dyn Write,
    /// The process's stderr.
    pub stderr: &'a mut dyn Write,
}

/// Serves one invocation with `args` (argv without the program name): `next_line` gives
/// the client's stdin lines (`Ok(None)` at end of input). Returns the recorded exit.
pub fn serve(
    holdings: &Holdings,
    args: &[String],
    next_line: &mut dyn FnMut() -> Result<Option<String>, String>,
    out: &mut Outputs<'_>,
) -> Result<ExitRecord, StandinError> {
    let mut candidates: Vec<&Held> = holdings.held.iter().filter(|h| h.args == args).collect();
    if candidates.is_empty() {
        return Err(no_argv(holdings, args));
    }
    let mut stdin_lines = 0;
    for i in 0.. {
        let Some(event) = candidates[0].events.get(i) else {
            break;
        };
        if let TraceEvent::Stdin(_) = event {
            stdin_lines += 1;
            let got = next_line().map_err(StandinError::Stdin)?;
            let keep = |h: &&Held| matches!(h.events.get(i), Some(TraceEvent::Stdin(s)) if Some(s.strip_suffix('\n').unwrap_or(s)) == got.as_deref());
            let left: Vec<&Held> = candidates.iter().copied().filter(keep).collect();
            if left.is_empty() {
                return Err(no_stdin(args, stdin_lines, got, &candidates, i));
            }
            candidates = left;
            continue;
        }
        let event = event.clone();
        candidates.retain(|h| h.events.get(i) == Some(&event));
        if let TraceEvent::Exit(x) = event {
            return Ok(x);
        }
        write_event(&event, out)?;
    }
    // Holdings only keep invocations that end with an exit; kept for completeness.
    Ok(ExitRecord {
        code: Some(0),
        signal: None,
    })
}

/// Writes one output event; a file event writes nothing (the stand-in keeps no data dir).
fn write_event(event: &TraceEvent, out: &mut Outputs<'_>) -> Result<(), StandinError> {
    let (stream, bytes, name): (&mut dyn Write, &[u8], &'static str) = match event {
        TraceEvent::Stdout(s) => (&mut *out.stdout, s.as_bytes(), "stdout"),
        TraceEvent::StdoutHex(b) => (&mut *out.stdout, &b.0, "stdout"),
        TraceEvent::Stderr(s) => (&mut *out.stderr, s.as_bytes(), "stderr"),
        TraceEvent::StderrHex(b) => (&mut *out.stderr, &b.0, "stderr"),
        _ => return Ok(()),
    };
    stream
        .write_all(bytes)
        .and_then(|()| stream.flush())
        .map_err(|source| StandinError::Write {
            stream: name,
            source,
        })
}

fn json(args: &[String]) -> String {
    let mut s = String::from("[");
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&format!("{a:?}"));
    }
    s.push(']');
    s
}

fn no_argv(holdings: &Holdings, args: &[String]) -> StandinError {
    let joined: Vec<String> = holdings.held.iter().map(|h| h.args.join(" ")).collect();
    let hint = closest(&args.join(" "), joined.iter().map(String::as_str))
        .map(|c| format!("\nhelp: the nearest held argv is `{c}`"))
        .unwrap_or_default();
    StandinError::NoArgv {
        argv: json(args),
        held: holdings.held.len(),
        version: holdings.version.clone(),
        hint,
    }
}

fn no_stdin(
    args: &[String],
    number: usize,
    got: Option<String>,
    candidates: &[&Held],
    i: usize,
) -> StandinError {
    let expected: Vec<String> = candidates
        .iter()
        .filter_map(|h| match h.events.get(i) {
            Some(TraceEvent::Stdin(s)) => Some(format!("{:?}", s.trim_end_matches('\n'))),
            _ => None,
        })
        .collect();
    StandinError::NoStdin {
        argv: json(args),
        number,
        got: got.map_or("(end of input)".into(), |g| format!("{g:?}")),
        expected: expected.join(" or "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::diag::Diagnostics;
    use agy_protocol::trace::Trace;
    use proptest::prelude::*;

    const TRACE: &str = r#"{"trace":1,"agy_version":"1.3.1","recorded":"unknown","platform":"unknown","source":"test"}
{"invocation":{"argv":["agy","--input-format","stream-json"]}}
{"t":0,"stdin":"ping\n"}
{"t":0,"stdout":"one\n"}
{"t":0,"stderr":"warn\n"}
{"t":0,"exit":{"code":0}}
{"invocation":{"argv":["agy","--input-format","stream-json"]}}
{"t":0,"stdin":"other\n"}
{"t":0,"stdout":"two\n"}
{"t":0,"exit":{"code":3}}
{"invocation":{"argv":["agy","--version"]}}
{"t":0,"stdout":"1.3.1\n"}
{"t":0,"exit":{"code":0}}
{"invocation":{"argv":[]}}
{"t":0,"stdout":"never\n"}
{"t":0,"exit":{"code":0}}
"#;

    fn holdings() -> Holdings {
        let trace = Trace::parse("t.jsonl", TRACE).expect("a valid trace");
        let mut diags = Diagnostics::new();
        let h = crate::holdings::holdings_of(
            &[("t.jsonl".into(), "t.jsonl".into(), trace)],
            &mut diags,
        );
        assert!(diags.is_empty(), "{diags}");
        h
    }

    /// Serves `args` with `stdin`; returns (exit, stdout, stderr) or the error's text.
    fn answer(
        h: &Holdings,
        args: &[&str],
        stdin: &[&str],
    ) -> Result<(ExitRecord, String, String), String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let mut lines = stdin.iter().map(|s| s.to_string());
        let mut next = move || Ok(lines.next());
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let mut out = Outputs {
            stdout: &mut o,
            stderr: &mut e,
        };
        let exit = serve(h, &args, &mut next, &mut out).map_err(|e| e.to_string())?;
        Ok((
            exit,
            String::from_utf8_lossy(&o).into(),
            String::from_utf8_lossy(&e).into(),
        ))
    }

    #[test]
    fn the_capture_recorded_for_the_argv_and_stdin_is_replayed_byte_for_byte() {
        let h = holdings();
        let (x, o, e) = answer(&h, &["--input-format", "stream-json"], &["other"]).expect("served");
        assert_eq!((x.code, o.as_str(), e.as_str()), (Some(3), "two\n", ""));
        let (x, o, e) = answer(&h, &["--input-format", "stream-json"], &["ping"]).expect("served");
        assert_eq!(
            (x.code, o.as_str(), e.as_str()),
            (Some(0), "one\n", "warn\n")
        );
    }

    #[test]
    fn an_argv_no_capture_has_is_refused_naming_it() {
        let err = answer(&holdings(), &["--versoin"], &[]).expect_err("refused");
        assert!(
            err.starts_with(r#"no capture for argv ["--versoin"]"#),
            "{err}"
        );
        assert!(
            err.contains("the nearest held argv is `--version`"),
            "{err}"
        );
    }

    #[test]
    fn a_stdin_line_no_capture_recorded_is_refused_with_what_was_expected() {
        let err = answer(&holdings(), &["--input-format", "stream-json"], &["pong"])
            .expect_err("refused");
        assert!(err.contains("with stdin line 1 \"pong\""), "{err}");
        assert!(err.contains("\"ping\" or \"other\""), "{err}");
        let eof =
            answer(&holdings(), &["--input-format", "stream-json"], &[]).expect_err("refused");
        assert!(eof.contains("(end of input)"), "{eof}");
    }

    #[test]
    fn an_invocation_whose_argv_is_unknown_is_never_served() {
        let h = holdings();
        assert_eq!(h.held.len(), 3);
        assert_eq!(h.unservable[0].reason, "its argv is unknown");
        assert!(answer(&h, &[], &[]).is_err());
    }

    proptest! {
        #[test]
        fn any_argv_and_stdin_is_answered_or_refused_without_panicking(
            args in proptest::collection::vec("[-a-z0-9 ]{0,12}", 0..4),
            stdin in proptest::collection::vec("[a-z]{0,6}", 0..3),
        ) {
            let h = holdings();
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let s: Vec<&str> = stdin.iter().map(String::as_str).collect();
            let _ = answer(&h, &a, &s);
        }
    }
}
