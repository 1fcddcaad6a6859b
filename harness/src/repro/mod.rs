//! `agy-harness repro`: a pasted bug report (or a recorded run) becomes a scenario whose
//! expectations come from the oracle, is run against the adapter, and is minimised while
//! it keeps failing the same expectation (docs/reproduce-a-bug.md).
//!
//! [`paste`] and [`record`] read the report into the evidence ([`hint`] reads prose);
//! [`build`] and [`convert`] turn it into a case of script steps per turn
//! (`crate::profile::repro_kit` holds the evidence, the case and the plan); the
//! profile's oracle judges it ([`plan`]); [`render`] writes the scenario; [`judge`]
//! runs it; [`minimise`] shrinks it; `command` ties them together. An ACP JSON-RPC
//! transcript takes its own way in: [`acp_transcript`] reads it, `acp_convert` makes
//! the case, the `acp` oracle judges it and `acp_render` writes its `[acp]` script.

mod acp_convert;
mod acp_render;
pub mod acp_transcript;
mod args;
pub mod build;
mod command;
pub mod convert;
pub mod hint;
pub mod judge;
pub mod minimise;
pub mod paste;
pub mod plan;
pub mod record;
pub mod recorded;
pub mod render;

pub use args::ReproArgs;
pub use command::repro_command;
