//! The vocabulary fake-agy and agy-harness share.
//!
//! - [`envelope`], [`usage`], [`status`]: the `--output-format json` envelope.
//! - [`stream`]: stream-json events and persistent-mode stdin lines.
//! - [`gojson`], [`layout`]: byte-exact Go JSON rendering, agy's key order kept.
//! - [`duration`], [`version`]: Go durations and agy versions.
//! - [`timing`]: time scales and seconds, range-checked where they are read.
//! - [`script`]: the agy script fake-agy acts out.
//! - [`prompt`], [`reply`]: what both fakes' default behaviour reads from a prompt,
//!   and the fixed reply its instruction asks for.
//! - [`diag`]: located diagnostics shared by every file format.
//! - [`driver`]: driver protocol v1 between the harness and an adapter under test.
//! - [`profile`], [`fault`]: the profiles an adapter implements, and a fault switch's
//!   entry in the reference adapter's `--list-faults`.
//! - [`mod@env`]: every environment variable the binaries pass one another, spelled once.
//! - [`capture`]: the corpus of published agy output (`traces/corpus.toml`).
//! - [`trace`], [`journal`]: recordings of agy, and what fake-agy saw.
//! - [`signal`]: the signals an agy process can be seen to receive.
//! - [`mod@file`]: whole files read under a cap, with located errors.
//! - [`image`]: the one image check (format by magic, decoded by a real decoder).
//! - [`identity`]: the handshake by which the harness knows a fake from a real agy.
//! - [`redact`]: the one redactor for every artefact that can carry live output.
//! - [`premise`]: what a scenario needs of an adapter to apply, and what an adapter
//!   offers (one closed vocabulary).
//! - [`acp`]: ACP framing, the ACP journal, method names, permission outcomes and the
//!   ACP script of the fake agent.

pub mod acp;
pub mod agy_log;
pub mod app_files;
pub mod calibration;
pub mod capture;
pub mod command_line;
pub mod confine;
pub mod diag;
pub mod driver;
pub mod duration;
pub mod env;
pub mod envelope;
pub mod fault;
pub mod file;
pub mod gojson;
pub mod identity;
pub mod image;
pub mod journal;
pub mod layout;
pub mod premise;
pub mod profile;
pub mod prompt;
pub mod redact;
pub mod reply;
pub mod script;
pub mod sign_in;
pub mod signal;
mod spelling;
pub mod standin;
pub mod status;
pub mod stream;
pub mod timing;
pub mod trace;
pub mod usage;
pub mod version;
pub mod version_evidence;

pub use duration::GoDuration;
pub use envelope::{DeniedAction, Envelope};
pub use fault::FaultInfo;
pub use premise::Premise;
pub use profile::Profile;
pub use status::Status;
pub use timing::{Seconds, TimeScale};
pub use usage::Usage;
pub use version::{AgyVersion, VersionRange, MODELLED_VERSIONS};
