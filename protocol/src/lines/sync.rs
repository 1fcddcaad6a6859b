//! The bounded line reader over a blocking reader.

use super::splitter::{LineItem, LineSplitter};
use std::collections::VecDeque;
use std::io::{self, Read};

/// Lines of a blocking reader, each at most `cap` bytes.
#[derive(Debug)]
pub struct BoundedLines<R> {
    reader: R,
    splitter: LineSplitter,
    ready: VecDeque<LineItem>,
    buf: Box<[u8]>,
    done: bool,
}

impl<R: Read> BoundedLines<R> {
    /// Reads `reader` line by line under `cap`.
    pub fn new(reader: R, cap: usize) -> BoundedLines<R> {
        BoundedLines {
            reader,
            splitter: LineSplitter::new(cap),
            ready: VecDeque::new(),
            buf: vec![0u8; 64 * 1024].into_boxed_slice(),
            done: false,
        }
    }
}

impl<R: Read> Iterator for BoundedLines<R> {
    type Item = io::Result<LineItem>;

    fn next(&mut self) -> Option<io::Result<LineItem>> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(Ok(item));
            }
            if self.done {
                return None;
            }
            match self.reader.read(&mut self.buf) {
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
}
