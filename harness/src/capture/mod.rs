//! Captures as agy scripts: [`capture_to_script`] (reused by the repro command) and the
//! `agy-harness convert` command.

mod command;
mod convert;

pub use command::{convert_command, ConvertArgs};
pub(crate) use convert::stdout_step;
pub use convert::{capture_to_script, ConvertError};
