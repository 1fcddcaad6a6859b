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
fn every_json_line_of_every_capture_round_trips_byte_for_byte() {
    let dir = corpus_dir();
    let corpus = load_corpus(&dir).unwrap_or_else(|e| panic!("{e}"));
    let (mut json, mut text) = (0usize, 0usize);
    let mut failures = Vec::new();
    for c in corpus
        .captures
        .iter()
        .filter(|c| c.kind != CaptureKind::Acp)
    {
        let Some(rel) = &c.files.stdout else { continue };
        let bytes = read_capture_file(&dir, rel).unwrap_or_else(|e| panic!("{}: {e}", c.id));
        for (n, line) in String::from_utf8_lossy(&bytes).lines().enumerate() {
            match check_stdout_line(line) {
                LineCheck::RoundTrips => json += 1,
                LineCheck::Text => text += 1,
                LineCheck::Differs { rendered } => failures.push(format!(
                    "{} line {}:\n  capture: {line}\n  types:   {}",
                    c.id,
                    n + 1,
                    rendered.trim_end()
                )),
                LineCheck::Rejected { error } => failures.push(format!(
                    "{} line {}: rejected: {error}\n  {line}",
                    c.id,
                    n + 1
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} JSON lines do not round-trip:\n{}",
        failures.len(),
        json + failures.len(),
        failures.join("\n")
    );
    assert!(
        json >= 50,
        "only {json} JSON lines found ({text} text lines)"
    );
}
