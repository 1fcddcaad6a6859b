//! The bounded line reader over a tokio reader.

use super::splitter::{LineItem, LineSplitter};
use std::collections::VecDeque;
use std::io;
use tokio::io::{AsyncRead, AsyncReadExt};

/// Lines of an async reader, each at most `cap` bytes.
#[derive(Debug)]
pub struct AsyncBoundedLines<R> {
    reader: R,
    splitter: LineSplitter,
    ready: VecDeque<LineItem>,
    buf: Box<[u8]>,
    done: bool,
}

impl<R: AsyncRead + Unpin> AsyncBoundedLines<R> {
    /// Reads `reader` line by line under `cap`.
    pub fn new(reader: R, cap: usize) -> AsyncBoundedLines<R> {
        AsyncBoundedLines {
            reader,
            splitter: LineSplitter::new(cap),
            ready: VecDeque::new(),
            buf: vec![0u8; 64 * 1024].into_boxed_slice(),
            done: false,
        }
    }

    /// The next line; `None` at the end of input.
    pub async fn next(&mut self) -> Option<io::Result<LineItem>> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(Ok(item));
            }
            if self.done {
                return None;
            }
            match self.reader.read(&mut self.buf).await {
                Ok(0) => {
                    self.done = true;
                    self.ready.extend(self.splitter.finish());
                }
                Ok(n) => self.ready.extend(self.splitter.push(&self.buf[..n])),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_after_a_bad_one_are_still_read() {
        let input: &[u8] = b"{\"a\":1}\n\xff\n{\"b\":2}\n";
        let mut lines = AsyncBoundedLines::new(input, 64);
        let mut texts = Vec::new();
        while let Some(item) = lines.next().await {
            texts.push(item.expect("read").lossy_text().expect("text"));
        }
        assert_eq!(texts, vec!["{\"a\":1}", "\u{fffd}", "{\"b\":2}"]);
    }
}
