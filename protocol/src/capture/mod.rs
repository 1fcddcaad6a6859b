//! Captures: real agy output someone published, with its provenance, listed in
//! `traces/corpus.toml` (format in `docs/trace-format.md`).
//!
//! [`load_corpus`] reads the table with every problem located and checks that each
//! capture's files exist and are bounded in size; [`Capture::to_trace`] turns one
//! capture into a replayable [`crate::trace::Trace`].

mod digest;
mod files;
mod first_sight;
mod known;
mod lines;
mod load;
mod model;
mod parse;
mod recorder;
mod trace;
mod transform;

pub use digest::sha256_hex;
pub use files::{read_capture_file, MAX_CAPTURE_FILE_BYTES};
pub use first_sight::{FirstSight, FirstSightVerdict};
pub use known::Known;
pub use lines::{check_stdout_line, LineCheck};
pub use load::{load_corpus, CORPUS_FILE, MAX_CORPUS_BYTES};
pub use model::{
    Capture, CaptureFiles, CaptureHost, CaptureKind, CaptureSource, Confidence, Corpus, HostSignal,
};
pub use parse::{parse_corpus, ELIDABLE};
pub use transform::{
    apply_transform, apply_transform_to, is_transform, read_transformed, TRANSFORMS,
};
