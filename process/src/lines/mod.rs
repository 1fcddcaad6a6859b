//! The one bounded line reader every crate uses on every input: driver stdout, agy
//! stdout, fake-agy stdin, ACP frames. Every reader follows one policy
//! ([`LineItem::into_text`]): a line longer than its cap is reported (once, naming the
//! cap) and skipped without being held in memory; a line that is not UTF-8 is reported
//! with its line, the column and value of its first bad byte, and skipped (never
//! converted into other text); either way the lines after it are still read.
//!
//! - [`LineSplitter`]: the core, fed bytes by any reader (linear in the input).
//! - [`BoundedLines`]: over a blocking [`std::io::Read`].
//! - [`AsyncBoundedLines`]: over a tokio `AsyncRead`.
//!
//! A whole file read under a cap (a script, a trace, a scenario) is
//! `agy_protocol::file::read_file_bounded`: the vocabulary's own format readers use it.

mod asynchronous;
mod splitter;
mod sync;

pub use asynchronous::AsyncBoundedLines;
pub use splitter::{LineItem, LineSplitter, DEFAULT_LINE_CAP};
pub use sync::BoundedLines;
