//! Diagnostics for every file format of the workspace: scenario, script, trace, spike.
//!
//! A problem carries its file, 1-based line and column, a message and a hint; a parser
//! collects all of them before giving up so a user fixes a file in one pass.

mod diagnostic;
mod embedded;
mod file_error;
mod source;
mod suggest;
mod toml_walk;

pub use diagnostic::{Diagnostic, Diagnostics, MAX_PER_FILE, SNIPPET_CHARS};
pub use embedded::{parse_embedded_file, parse_whole_document, EmbeddedFormat, ValueParser};
pub use source::SourceFile;
pub use suggest::{closest, hint_for_serde_message};
pub use toml_walk::{
    deserialize_one_key, deserialize_value, kind, parse_toml_document, TableWalker,
};
