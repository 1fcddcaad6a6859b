//! What an invocation was started with and keeps for its life: the command line and
//! what follows from it (output format, run mode, workspace), the modelled version,
//! delay scaling and default turn lengths, the script's folder and what the script and
//! the environment fix for every turn (the model's decisions, when `init` is written,
//! a used-up quota).

use crate::cli::{Args, CliError, OutputFormat};
use crate::io::clock::Clock;
use agy_protocol::calibration::Calibration;
use agy_protocol::script::{InitAt, ModelTurn, RunMode};
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
    calibration: Calibration,
    clock: Clock,
    turn_duration: Duration,
    image_duration: Duration,
    script: Option<PathBuf>,
    workspace: String,
    flag_error: Option<CliError>,
    model: Option<Vec<ModelTurn>>,
    init_at: InitAt,
    quota_exhausted: bool,
}

/// What a [`Setup`] is built from.
#[derive(Debug)]
pub struct SetupParts {
    /// The command line.
    pub args: Args,
    /// Why the command line did not parse, when a script rule serves it anyway
    /// (`args` are then the defaults).
    pub flag_error: Option<CliError>,
    /// The version presented.
    pub version: AgyVersion,
    /// What the session presents as that agy, resolved once.
    pub calibration: Calibration,
    /// Delay scaling.
    pub clock: Clock,
    /// Default text turn length.
    pub turn_duration: Duration,
    /// Default image turn length.
    pub image_duration: Duration,
    /// The script file (trace paths are relative to its folder).
    pub script: Option<PathBuf>,
    /// The script's model decisions (`[[model]]`); empty when it gives none.
    pub model: Vec<ModelTurn>,
    /// When persistent mode writes `init` (`FAKE_AGY_INIT_AT`, `[script] init_at`).
    pub init_at: InitAt,
    /// The account's quota is used up (`FAKE_AGY_QUOTA_EXHAUSTED`).
    pub quota_exhausted: bool,
}

impl Setup {
    /// The facts of an invocation built from `p`.
    pub(super) fn new(p: SetupParts) -> Setup {
        let SetupParts {
            args,
            flag_error,
            version,
            calibration,
            clock,
            turn_duration,
            image_duration,
            script,
            model,
            init_at,
            quota_exhausted,
        } = p;
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
            calibration,
            clock,
            turn_duration,
            image_duration,
            script,
            workspace,
            flag_error,
            model: (!model.is_empty()).then_some(model),
            init_at,
            quota_exhausted,
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

    /// The agy version presented.
    pub fn version(&self) -> AgyVersion {
        self.version
    }

    /// What the session presents as agy (docs/calibration-format.md).
    pub fn calibration(&self) -> &Calibration {
        &self.calibration
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

    /// Why the command line did not parse, when a script rule serves it anyway (the
    /// `args` are then the defaults); `default` answers as agy's flag parser.
    pub fn flag_error(&self) -> Option<&CliError> {
        self.flag_error.as_ref()
    }

    /// The model's decisions, one per decided turn of a conversation (`[[model]]`),
    /// when the script gives them: default turns render these instead of the fake's
    /// own model.
    pub fn model_turns(&self) -> Option<&[ModelTurn]> {
        self.model.as_deref()
    }

    /// When persistent mode writes `init`.
    pub fn init_at(&self) -> InitAt {
        self.init_at
    }

    /// True when the account's quota is used up: default turns fail.
    pub fn quota_exhausted(&self) -> bool {
        self.quota_exhausted
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
