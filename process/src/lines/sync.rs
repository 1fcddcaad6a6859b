//! The bounded line reader over a blocking reader.

use super::splitter::{run_ready, Blocking, LineItem, Queue};
use std::io::{self, Read};

/// Lines of a blocking reader, each at most `cap` bytes.
#[derive(Debug)]
pub struct BoundedLines<R> {
    reader: Blocking<R>,
    queue: Queue,
}

impl<R: Read + Unpin> BoundedLines<R> {
    /// Reads `reader` line by line under `cap`.
    pub fn new(reader: R, cap: usize) -> BoundedLines<R> {
        BoundedLines {
            reader: Blocking(reader),
            queue: Queue::new(cap),
        }
    }
}

impl<R: Read + Unpin> Iterator for BoundedLines<R> {
    type Item = io::Result<LineItem>;

    fn next(&mut self) -> Option<io::Result<LineItem>> {
        run_ready(self.queue.next(&mut self.reader))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_zero_is_one_line_over_the_cap_then_the_reader_is_stopped_by_its_caller() {
        let zero = std::fs::File::open("/dev/zero").expect("/dev/zero");
        let mut lines = BoundedLines::new(zero, 1 << 20);
        let first = lines.next().expect("an item").expect("readable");
        assert_eq!(
            first,
            LineItem::TooLong {
                number: 1,
                cap: 1 << 20
            }
        );
    }

    /// Hands out its chunks one read at a time, an `Interrupted` error before each.
    struct Chunks(Vec<Result<&'static [u8], io::ErrorKind>>);

    impl Read for Chunks {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Ok(0);
            }
            match self.0.remove(0) {
                Ok(bytes) => {
                    buf[..bytes.len()].copy_from_slice(bytes);
                    Ok(bytes.len())
                }
                Err(kind) => Err(kind.into()),
            }
        }
    }

    #[test]
    fn interrupted_reads_are_retried_and_another_error_ends_the_lines() {
        let reader = Chunks(vec![
            Ok(b"one\n\xff"),
            Err(io::ErrorKind::Interrupted),
            Ok(b"\ntw"),
            Ok(b"o\n"),
            Err(io::ErrorKind::BrokenPipe),
            Ok(b"never\n"),
        ]);
        let items: Vec<Result<Result<String, String>, io::ErrorKind>> =
            BoundedLines::new(reader, 64)
                .map(|r| r.map(|item| item.into_text("in")).map_err(|e| e.kind()))
                .collect();
        assert_eq!(items.len(), 4, "{items:?}");
        assert_eq!(items[0], Ok(Ok("one".to_string())));
        assert!(
            items[1].as_ref().is_ok_and(|t| t.is_err()),
            "the bad line is reported: {items:?}"
        );
        assert_eq!(items[2], Ok(Ok("two".to_string())));
        assert_eq!(items[3], Err(io::ErrorKind::BrokenPipe));
    }
}
