//! The one redactor: every artefact that can carry live output (traces, journals of
//! live runs, drift reports, webhook payloads, kept sandboxes) passes through it.
//!
//! - [`rules`]: the secret formats, kept as data in `protocol/redact-rules.toml`.
//! - [`identity`]: the person's own facts (home, user, account name and e-mail).
//! - [`Redactor`]: both applied to text and raw bytes, in plain, JSON-escaped and
//!   URL-encoded forms, with private keys over several lines and tokens wrapped in
//!   base64; [`LineRedactor`] for output arriving in chunks.

pub mod identity;
mod key_block;
mod redactor;
pub mod rules;
mod stream;
mod wrapped;

pub use identity::Identity;
pub use redactor::{percent_encode, Redactor};
pub use stream::LineRedactor;
