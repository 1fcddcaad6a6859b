//! The bounded line reader over a blocking reader.

use super::splitter::{LineItem, Queue, Step};
use std::io::{self, Read};

/// Lines of a blocking reader, each at most `cap` bytes.
#[derive(Debug)]
pub struct BoundedLines<R> {
    reader: R,
    queue: Queue,
    buf: Box<[u8]>,
}

impl<R: Read> BoundedLines<R> {
    /// Reads `reader` line by line under `cap`.
    pub fn new(reader: R, cap: usize) -> BoundedLines<R> {
        BoundedLines {
            reader,
            queue: Queue::new(cap),
            buf: vec![0u8; 64 * 1024].into_boxed_slice(),
        }
    }
}

impl<R: Read> Iterator for BoundedLines<R> {
    type Item = io::Result<LineItem>;

    fn next(&mut self) -> Option<io::Result<LineItem>> {
        let mut step = self.queue.step(None);
        loop {
            match step {
                Step::Item(item) => return Some(item),
                Step::End => return None,
                Step::Read => {
                    let read = self.reader.read(&mut self.buf);
                    step = self.queue.step(Some((read, &self.buf)));
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
