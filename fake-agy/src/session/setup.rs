//! What an invocation was started with and keeps for its life: the command line and
//! what follows from it (output format, run mode, workspace), the modelled version,
//! delay scaling and default turn lengths, and the script's folder.

use crate::cli::{Args, OutputFormat};
use crate::io::clock::Clock;
use agy_protocol::script::RunMode;
use agy_protocol::AgyVersion;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The invocation's fixed facts, read by every part of the fake and set once.
#[derive(Debug)]
pub struct Setup {
    args: Args,
    format: OutputFormat,
    mode: RunMode,
    version: AgyVersion,
    clock: Clock,
    turn_duration: Duration,
    image_duration: Duration,
    script: Option<PathBuf>,
    workspace: String,
}

impl Setup {
    /// The facts of an invocation with command line `args`.
    pub(super) fn new(
        args: Args,
        version: AgyVersion,
        clock: Clock,
        turn_duration: Duration,
        image_duration: Duration,
        script: Option<PathBuf>,
    ) -> Setup {
        let workspace = args
            .add_dirs
            .first()
            .map(|d| absolute(d))
            .unwrap_or_else(|| {
                std::env::current_dir()
                    .map(|c| c.display().to_string())
                    .unwrap_or_default()
            });
        Setup {
            format: args.output_format().unwrap_or_default(),
            mode: args.run_mode(),
            args,
            version,
            clock,
            turn_duration,
            image_duration,
            script,
            workspace,
        }
    }

    /// The command line.
    pub fn args(&self) -> &Args {
        &self.args
    }

    /// The output format (`--output-format`, text by default).
    pub fn format(&self) -> OutputFormat {
        self.format
    }

    /// The run mode the command line asks for.
    pub fn mode(&self) -> RunMode {
        self.mode
    }

    /// The modelled agy version.
    pub fn version(&self) -> AgyVersion {
        self.version
    }

    /// Delay scaling (`FAKE_AGY_TIME_SCALE`).
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// How long a default text turn takes.
    pub fn turn_duration(&self) -> Duration {
        self.turn_duration
    }

    /// How long a default image turn takes.
    pub fn image_duration(&self) -> Duration {
        self.image_duration
    }

    /// The script file (trace paths are relative to its folder and confined to its
    /// repository).
    pub fn script(&self) -> Option<&Path> {
        self.script.as_deref()
    }

    /// The workspace: the first `--add-dir`, else the cwd.
    pub fn workspace(&self) -> &str {
        &self.workspace
    }
}

fn absolute(p: &str) -> String {
    let path = std::path::Path::new(p);
    if path.is_absolute() {
        p.to_string()
    } else {
        std::env::current_dir()
            .map(|c| c.join(path).display().to_string())
            .unwrap_or_else(|_| p.to_string())
    }
}
