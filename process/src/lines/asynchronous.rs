//! The bounded line reader over a tokio reader.

use super::splitter::{LineItem, Queue};
use std::io;
use tokio::io::AsyncRead;

/// Lines of an async reader, each at most `cap` bytes.
#[derive(Debug)]
pub struct AsyncBoundedLines<R> {
    reader: R,
    queue: Queue,
}

impl<R: AsyncRead + Unpin> AsyncBoundedLines<R> {
    /// Reads `reader` line by line under `cap`.
    pub fn new(reader: R, cap: usize) -> AsyncBoundedLines<R> {
        AsyncBoundedLines {
            reader,
            queue: Queue::new(cap),
        }
    }

    /// The next line; `None` at the end of input.
    pub async fn next(&mut self) -> Option<io::Result<LineItem>> {
        self.queue.next(&mut self.reader).await
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
            texts.push(item.expect("read").into_text("in"));
        }
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert_eq!(texts[0].as_deref(), Ok("{\"a\":1}"));
        assert!(
            texts[1].as_ref().is_err_and(|e| e.starts_with("in:2:1: ")),
            "{texts:?}"
        );
        assert_eq!(texts[2].as_deref(), Ok("{\"b\":2}"));
    }
}
