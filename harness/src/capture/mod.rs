//! Captures as scripts: [`capture_to_script`] (agy runs, for fake-agy; reused by the
//! repro command), [`acp_capture_to_script`] (ACP transcripts, for fake-agy-acp) and the
//! `agy-harness convert` command.

mod acp;
mod command;
mod convert;

pub use acp::acp_capture_to_script;
pub use command::{convert_command, ConvertArgs};
pub(crate) use convert::stdout_step;
pub use convert::{capture_to_script, ConvertError};
