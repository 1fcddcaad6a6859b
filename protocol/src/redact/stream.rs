//! Redaction of output that arrives in chunks: a secret split across two chunks is
//! still found, because text is released line by line, and a line longer than the cap
//! only up to a cut no match straddles (the rest is kept as the tail).

use super::key_block::KeyBlock;
use super::Redactor;

/// The longest partial line held back before part of it is released.
pub const LINE_HOLD_CAP: usize = 64 * 1024;
/// What stays held back of an over-long line: longer than any secret the rules know.
const TAIL: usize = 8 * 1024;

/// Feeds chunks, returns redacted pieces that are safe to write.
#[derive(Debug, Clone)]
pub struct LineRedactor {
    redactor: Redactor,
    pending: Vec<u8>,
    scanned: usize,
    key: KeyBlock,
}

impl LineRedactor {
    /// A line redactor using `redactor`.
    pub fn new(redactor: Redactor) -> LineRedactor {
        LineRedactor {
            redactor,
            pending: Vec::new(),
            scanned: 0,
            key: KeyBlock::default(),
        }
    }

    /// Adds a chunk; returns the redacted pieces now complete: each whole line (with
    /// its newline) and, of a line longer than `LINE_HOLD_CAP`, a head that no match
    /// crosses.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<Vec<u8>> {
        self.pending.extend_from_slice(chunk);
        let mut out = Vec::new();
        let mut start = 0;
        while let Some(i) = self.pending[self.scanned..]
            .iter()
            .position(|&b| b == b'\n')
        {
            let end = self.scanned + i + 1;
            out.push(
                self.redactor
                    .redact_bytes_in(&self.pending[start..end], &mut self.key),
            );
            start = end;
            self.scanned = end;
        }
        self.pending.drain(..start);
        self.scanned = self.pending.len();
        if self.pending.len() > LINE_HOLD_CAP {
            let mut cut = self.pending.len() - TAIL;
            if let Some(s) = self.redactor.earliest_open_match(&self.pending, cut) {
                // A secret longer than the whole hold is cut anyway: its head matched
                // already, so it is redacted.
                cut = if s == 0 { cut } else { s };
            }
            out.push(
                self.redactor
                    .redact_bytes_in(&self.pending[..cut], &mut self.key),
            );
            self.pending.drain(..cut);
            self.scanned = self.pending.len();
        }
        out
    }

    /// Releases what is held (the last line, without a newline).
    pub fn finish(&mut self) -> Option<Vec<u8>> {
        self.scanned = 0;
        (!self.pending.is_empty()).then(|| {
            self.redactor
                .redact_bytes_in(&std::mem::take(&mut self.pending), &mut self.key)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_split_across_chunks_is_redacted() {
        let mut r = LineRedactor::new(Redactor::default());
        let mut out = r.push(b"first line\nkey ghp_abcdefghij");
        out.extend(r.push(b"klmnopqrstuvwxyz0123456789 end\nlast"));
        out.extend(r.finish());
        assert_eq!(
            out,
            vec![
                b"first line\n".to_vec(),
                b"key [TOKEN] end\n".to_vec(),
                b"last".to_vec()
            ]
        );
    }

    #[test]
    fn an_over_long_line_is_released_in_parts_without_cutting_a_secret() {
        let mut r = LineRedactor::new(Redactor::default());
        let filler = vec![b'x'; LINE_HOLD_CAP - 20];
        let mut out = r.push(&filler);
        out.extend(r.push(b" ya29.abcdefghij"));
        out.extend(r.push(&[b' '; TAIL]));
        out.extend(r.push(b"klmnop more"));
        out.extend(r.finish());
        let all: Vec<u8> = out.concat();
        let text = String::from_utf8_lossy(&all);
        assert!(!text.contains("abcdefghij"), "{}", &text[text.len() - 40..]);
        assert!(text.contains("[TOKEN]"));
        assert!(out.len() >= 2);
    }
}
