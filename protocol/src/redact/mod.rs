//! The one redactor: every artefact that can carry live output (traces, journals,
//! drift reports, webhook payloads, kept sandboxes) passes through it.
//!
//! - [`gitleaks`]: the maintained rule list (gitleaks' default configuration, vendored
//!   in `protocol/gitleaks/`); [`rules`]: the kit's own rules for formats it lacks
//!   (`protocol/redact-rules.toml`), both run behind a keyword prefilter.
//! - [`secret_name`]: names whose value is a secret whatever it looks like (env
//!   variables, JSON fields, headers).
//! - [`identity`]: the person's own facts (home, user, account name and e-mail).
//! - [`Redactor`]: all of them applied to text, raw bytes, JSON values and env maps,
//!   in the text and in its decoded views (JSON escapes, URL encoding, base64), with
//!   private keys over several lines; [`LineRedactor`] for output arriving in chunks.

mod decode;
pub mod gitleaks;
pub mod identity;
mod key_block;
mod redactor;
mod rule_set;
pub mod rules;
pub mod secret_name;
mod stream;

pub use identity::Identity;
pub use redactor::{percent_encode, Redactor};
pub use secret_name::{is_secret_name, redact_env_by_name};
pub use stream::LineRedactor;
