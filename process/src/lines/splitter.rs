//! Splits bytes into lines under a cap, scanning each byte once.

use tokio::io::{AsyncRead, AsyncReadExt};

/// The cap of a line unless a reader names another: 16 MiB.
pub const DEFAULT_LINE_CAP: usize = 16 * 1024 * 1024;

/// One line, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineItem {
    /// A UTF-8 line, without its `\n` (and `\r`).
    Text {
        /// 1-based line number.
        number: u64,
        /// The text.
        text: String,
    },
    /// A line that is not UTF-8: its bytes, without the `\n`.
    NotUtf8 {
        /// 1-based line number.
        number: u64,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// A line longer than the cap: skipped up to its `\n`.
    TooLong {
        /// 1-based line number.
        number: u64,
        /// The cap, in bytes.
        cap: usize,
    },
}

impl LineItem {
    /// The one policy of every reader for what a line is: a UTF-8 line is its text; a
    /// line that is not UTF-8, or is over the cap, is `Err` with a located report
    /// (`source:line:column: …`) for the reader to pass on, and is skipped. A bad line
    /// is never converted into other text and never ends the reading: the lines after
    /// it are read as usual.
    pub fn into_text(self, source: &str) -> Result<String, String> {
        match self {
            LineItem::Text { text, .. } => Ok(text),
            bad => Err(bad.problem(source).unwrap_or_default()),
        }
    }

    /// A located description of a bad line (`None` for a good one). For a line that is
    /// not UTF-8 the column is the first bad byte's, and that byte is named.
    pub fn problem(&self, source: &str) -> Option<String> {
        match self {
            LineItem::Text { .. } => None,
            LineItem::NotUtf8 { number, bytes } => {
                let at = std::str::from_utf8(bytes)
                    .err()
                    .map_or(0, |e| e.valid_up_to());
                let byte = bytes.get(at).copied().unwrap_or_default();
                Some(format!(
                    "{source}:{number}:{}: line is not valid UTF-8 (byte 0x{byte:02x}; skipped, the lines after it are read)",
                    at + 1
                ))
            }
            LineItem::TooLong { number, cap } => Some(format!(
                "{source}:{number}:1: line longer than the cap of {cap} bytes (skipped up to its newline)"
            )),
        }
    }
}

/// Feeds bytes, takes lines. The cap counts every byte of a line before its `\n`.
#[derive(Debug, Clone)]
pub struct LineSplitter {
    cap: usize,
    buf: Vec<u8>,
    /// Bytes of `buf` known to hold no `\n`.
    scanned: usize,
    /// Inside a line over the cap: bytes are dropped up to the next `\n`.
    skipping: bool,
    number: u64,
}

impl LineSplitter {
    /// A splitter refusing lines longer than `cap` bytes.
    pub fn new(cap: usize) -> LineSplitter {
        LineSplitter {
            cap: cap.max(1),
            buf: Vec::new(),
            scanned: 0,
            skipping: false,
            number: 0,
        }
    }

    /// Adds bytes; returns the lines they complete, in order.
    pub fn push(&mut self, mut bytes: &[u8]) -> Vec<LineItem> {
        let mut out = Vec::new();
        while !bytes.is_empty() {
            if self.skipping {
                match bytes.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        self.skipping = false;
                        bytes = &bytes[i + 1..];
                    }
                    None => return out,
                }
                continue;
            }
            // Take at most what fits under the cap (plus its newline), so memory stays
            // bounded by the cap whatever arrives.
            let room = self.cap + 1 - self.buf.len();
            let take = bytes.len().min(room);
            self.buf.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            while let Some(i) = self.buf[self.scanned..].iter().position(|&b| b == b'\n') {
                let end = self.scanned + i;
                let line: Vec<u8> = self.buf.drain(..=end).take(end).collect();
                self.scanned = 0;
                out.push(self.item(line));
            }
            self.scanned = self.buf.len();
            if self.buf.len() > self.cap {
                self.number += 1;
                out.push(LineItem::TooLong {
                    number: self.number,
                    cap: self.cap,
                });
                self.buf = Vec::new();
                self.scanned = 0;
                self.skipping = true;
            }
        }
        out
    }

    /// The last line, when the input ended without a `\n`.
    pub fn finish(&mut self) -> Option<LineItem> {
        if self.skipping || self.buf.is_empty() {
            self.skipping = false;
            return None;
        }
        let line = std::mem::take(&mut self.buf);
        self.scanned = 0;
        Some(self.item(line))
    }

    fn item(&mut self, mut line: Vec<u8>) -> LineItem {
        self.number += 1;
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        match String::from_utf8(line) {
            Ok(text) => LineItem::Text {
                number: self.number,
                text,
            },
            Err(e) => LineItem::NotUtf8 {
                number: self.number,
                bytes: e.into_bytes(),
            },
        }
    }
}

/// The state a blocking and an async reader share (the splitter, the lines it gave and
/// the read buffer), and the one loop both run ([`Queue::next`]).
#[derive(Debug)]
pub(crate) struct Queue {
    splitter: LineSplitter,
    ready: std::collections::VecDeque<LineItem>,
    done: bool,
    buf: Box<[u8]>,
}

impl Queue {
    pub(crate) fn new(cap: usize) -> Queue {
        Queue {
            splitter: LineSplitter::new(cap),
            ready: std::collections::VecDeque::new(),
            done: false,
            buf: vec![0u8; 64 * 1024].into_boxed_slice(),
        }
    }

    /// The next line, reading `reader` while none is ready; `None` at the end of
    /// input. A read error other than `Interrupted` is handed out once and ends the
    /// input.
    pub(crate) async fn next<R: AsyncRead + Unpin>(
        &mut self,
        reader: &mut R,
    ) -> Option<std::io::Result<LineItem>> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(Ok(item));
            }
            if self.done {
                return None;
            }
            match reader.read(&mut self.buf).await {
                Ok(0) => {
                    self.done = true;
                    self.ready.extend(self.splitter.finish());
                }
                Ok(n) => self.ready.extend(self.splitter.push(&self.buf[..n])),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

/// A blocking reader as an [`AsyncRead`] whose reads are always ready, so a blocking
/// reader runs the same [`Queue::next`] as an async one (through [`run_ready`]).
#[derive(Debug)]
pub(crate) struct Blocking<R>(pub(crate) R);

impl<R: std::io::Read + Unpin> AsyncRead for Blocking<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let read = self.0.read(buf.initialize_unfilled());
        std::task::Poll::Ready(read.map(|n| buf.advance(n)))
    }
}

/// The output of `future` when none of its awaits ever waits (a [`Blocking`] reader's),
/// run on this thread.
pub(crate) fn run_ready<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    // Ready at the first poll: nothing inside registers a waker to wait for.
    loop {
        if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text(number: u64, t: &str) -> LineItem {
        LineItem::Text {
            number,
            text: t.into(),
        }
    }

    #[test]
    fn a_bad_line_is_reported_and_the_next_ones_are_read() {
        let mut s = LineSplitter::new(8);
        let mut out = s.push(b"ok\n\xff\xfe\n0123456789abc\nlast\npart");
        out.extend(s.finish());
        assert_eq!(
            out,
            vec![
                text(1, "ok"),
                LineItem::NotUtf8 {
                    number: 2,
                    bytes: vec![0xff, 0xfe]
                },
                LineItem::TooLong { number: 3, cap: 8 },
                text(4, "last"),
                text(5, "part"),
            ]
        );
    }

    #[test]
    fn a_bad_line_is_a_located_report_never_text() {
        let mut s = LineSplitter::new(8);
        let out: Vec<Result<String, String>> = s
            .push(b"ok\nab\xffc\n0123456789\nnext\n")
            .into_iter()
            .map(|item| item.into_text("stdin"))
            .collect();
        assert_eq!(
            out,
            vec![
                Ok("ok".to_string()),
                Err("stdin:2:3: line is not valid UTF-8 (byte 0xff; skipped, the lines after it are read)".to_string()),
                Err("stdin:3:1: line longer than the cap of 8 bytes (skipped up to its newline)".to_string()),
                Ok("next".to_string()),
            ]
        );
    }

    #[test]
    fn a_flood_without_newline_is_reported_once_and_never_held() {
        let mut s = LineSplitter::new(1024);
        let chunk = vec![b'x'; 4096];
        let mut reports = 0;
        for _ in 0..1000 {
            reports += s.push(&chunk).len();
            assert!(s.buf.capacity() <= 4 * 1024, "holding {}", s.buf.capacity());
        }
        assert_eq!(reports, 1);
        assert_eq!(s.push(b"\nnext\n"), vec![text(2, "next")]);
    }

    #[test]
    fn a_line_exactly_at_the_cap_is_kept() {
        // The cap counts every byte before the `\n`, a `\r` included.
        let mut s = LineSplitter::new(5);
        assert_eq!(s.push(b"abcd\r\n"), vec![text(1, "abcd")]);
        assert_eq!(
            s.push(b"abcdef\n"),
            vec![LineItem::TooLong { number: 2, cap: 5 }]
        );
    }

    proptest! {
        #[test]
        fn any_split_of_the_input_gives_the_same_lines(
            input in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(0xffu8), 32u8..127], 0..300),
            cuts in proptest::collection::vec(0usize..300, 0..6),
            cap in 1usize..40,
        ) {
            let mut whole = LineSplitter::new(cap);
            let mut expected = whole.push(&input);
            expected.extend(whole.finish());
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(input.len())).collect();
            cuts.sort();
            let mut parts = LineSplitter::new(cap);
            let mut got = Vec::new();
            let mut at = 0;
            for c in cuts.into_iter().chain([input.len()]) {
                got.extend(parts.push(&input[at..c]));
                at = c;
            }
            got.extend(parts.finish());
            prop_assert_eq!(got, expected);
        }
    }
}
