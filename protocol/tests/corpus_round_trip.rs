//! Every stdout line of every capture in `traces/` parses with the protocol types and
//! renders back byte for byte. `AGY_CORPUS_DIR` names another corpus folder.

use agy_protocol::capture::{
    check_stdout_line, load_corpus, read_capture_file, CaptureKind, LineCheck,
};
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    std::env::var_os("AGY_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")))
}

#[test]
fn every_line_of_every_capture_round_trips_byte_for_byte() {
    let dir = corpus_dir();
    let corpus = load_corpus(&dir).unwrap_or_else(|e| panic!("{e}"));
    let (mut lines, mut json, mut text) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for c in corpus
        .captures
        .iter()
        .filter(|c| c.kind != CaptureKind::Acp)
    {
        let Some(rel) = &c.files.stdout else { continue };
        let bytes = read_capture_file(&dir, rel).unwrap_or_else(|e| panic!("{}: {e}", c.id));
        // Every line counts: a JSON line renders back byte for byte; model text, a cut
        // last line and bytes that are not UTF-8 are text no type applies to.
        for (n, raw) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
            lines += 1;
            let body = raw.strip_suffix(b"\n");
            let check = body
                .and_then(|b| std::str::from_utf8(b).ok())
                .map(check_stdout_line);
            match check {
                Some(LineCheck::RoundTrips) => json += 1,
                Some(LineCheck::Differs { rendered }) => failures.push(format!(
                    "{} line {}:\n  capture: {}\n  types:   {}",
                    c.id,
                    n + 1,
                    String::from_utf8_lossy(raw).trim_end(),
                    rendered.trim_end()
                )),
                Some(LineCheck::Rejected { error }) => failures.push(format!(
                    "{} line {}: rejected: {error}\n  {}",
                    c.id,
                    n + 1,
                    String::from_utf8_lossy(raw).trim_end()
                )),
                Some(LineCheck::Text) | None => text += 1,
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {lines} lines do not round-trip:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(json + text, lines);
    assert!(
        json >= 50,
        "only {json} JSON lines found ({text} text lines)"
    );
}
