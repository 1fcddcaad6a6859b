//! The spikes layer's errors: why a spikes run cannot start (its files, `--only`,
//! `--report`), why a probe run did not run, and a measure name that is not one.

use agy_protocol::diag::Diagnostics;
use std::path::PathBuf;

/// Why a spikes run cannot start: bad input, found before any probe runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SpikeError {
    /// The spike files do not load: every problem, located.
    #[error("{0}")]
    Files(Diagnostics),
    /// `--only` names spikes the files do not define.
    #[error(
        "--only names unknown spikes: {}\nhelp: the spikes are {}",
        unknown.join(", "),
        known.join(", ")
    )]
    UnknownSpikes {
        /// The ids `--only` named that no file defines, in the order given.
        unknown: Vec<String>,
        /// Every id the files define.
        known: Vec<String>,
    },
    /// A `--report KIND=PATH` whose kind is none of json, junit, markdown.
    #[error("--report kind `{0}` is not one of json, junit, markdown")]
    ReportKind(String),
    /// A `--report` that is not `KIND=PATH` (no `=`, or no path).
    #[error("--report `{0}`: write json=PATH, junit=PATH or markdown=PATH")]
    ReportSpec(String),
}

impl SpikeError {
    /// The text the command prints: located diagnostics as they are (each opens with
    /// `error:`), any other error after `error: `.
    pub(crate) fn shown(&self) -> String {
        match self {
            SpikeError::Files(d) => d.to_string(),
            other => format!("error: {other}"),
        }
    }
}

/// Why a probe run did not run (its observation's `not_run`).
#[derive(Debug, thiserror::Error)]
pub(crate) enum ProbeError {
    /// The run's sandbox could not be made.
    #[error("failed to create a sandbox: {0}")]
    Sandbox(#[source] std::io::Error),
    /// The launcher refused to start the binary.
    #[error(transparent)]
    Launch(crate::launch::LaunchError),
    /// The sandbox's fixtures folder could not be made.
    #[error("failed to create `{path}`: {source}")]
    FixtureFolder {
        /// The folder.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// A fixture could not be written.
    #[error("failed to write fixtures: {0}")]
    Fixtures(#[source] std::io::Error),
    /// The binary under probe could not be started.
    #[error("failed to start `{bin}`: {source}")]
    Start {
        /// The binary.
        bin: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
}

/// A measure name that names no measure (docs/spikes.md lists them); the spike file's
/// parser adds where it stands and the closest name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown measure `{0}`")]
pub struct UnknownMeasure(pub String);
