//! fake-agy as a library for an adapter's own tests, in the style of wiremock's
//! `MockServer`: [`MockAgy::builder`] lays a sandbox (its own `HOME`, a `bin/` whose
//! `agy` is fake-agy acting out your script), your code runs `agy` from it, and
//! [`MockAgy::invocations`] reads back what fake-agy saw (argv, stdin lines, signals,
//! pids, exit) for assertions.
//!
//! ```no_run
//! use fake_agy::mock::MockAgy;
//!
//! # fn main() -> Result<(), fake_agy::mock::MockError> {
//! let agy = MockAgy::builder()
//!     .script_toml(r#"
//!         [[invocation]]
//!         steps = [{ default = { response = "PONG" } }]
//!     "#)
//!     .start()?;
//! let out = agy.command().args(["-p", "ping", "--output-format", "json"]).output()?;
//! assert!(String::from_utf8_lossy(&out.stdout).contains("PONG"));
//! let calls = agy.invocations()?;
//! assert_eq!(calls.len(), 1);
//! assert_eq!(calls[0].prompt(), Some("ping"));
//! # Ok(()) }
//! ```
//!
//! A full example an adapter crate can copy: `fake-agy/tests/mock_agy.rs`; the guide:
//! docs/fake-agy-mock.md.

mod builder;
mod error;
mod invocation;
mod sandbox;

pub use agy_protocol::journal::{JournalRecord, SignalRecord};
pub use agy_protocol::script;
pub use builder::{MockAgyBuilder, ENV_FAKE_AGY_BIN};
pub use error::MockError;
pub use invocation::Invocation;
pub use sandbox::MockAgy;
