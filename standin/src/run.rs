//! The binary's body: the folder from the environment, the real stdio, the exit.

use crate::error::StandinError;
use crate::holdings::load_holdings;
use crate::serve::{serve, Outputs};
use agy_process::lines::{BoundedLines, DEFAULT_LINE_CAP};
use agy_protocol::journal::ExitRecord;
use agy_protocol::standin::AGY_STANDIN_TRACES;
use std::path::PathBuf;

/// Answers the invocation `args` (argv without the program name) from the folder named
/// by `AGY_STANDIN_TRACES`, on the process's stdio; returns the recorded exit.
pub fn run(args: &[String]) -> Result<ExitRecord, StandinError> {
    let dir = std::env::var_os(AGY_STANDIN_TRACES)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .ok_or(StandinError::NoFolder {
            var: AGY_STANDIN_TRACES,
        })?;
    let holdings = load_holdings(&dir)?;
    let mut lines = BoundedLines::new(std::io::stdin().lock(), DEFAULT_LINE_CAP);
    let mut next_line = move || match lines.next() {
        None => Ok(None),
        Some(Err(e)) => Err(e.to_string()),
        Some(Ok(item)) => item.into_text("stdin").map(Some),
    };
    let (mut stdout, mut stderr) = (std::io::stdout().lock(), std::io::stderr().lock());
    let mut out = Outputs {
        stdout: &mut stdout,
        stderr: &mut stderr,
    };
    serve(&holdings, args, &mut next_line, &mut out)
}
