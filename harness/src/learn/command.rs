//! `agy-harness learn --traces DIR… --out FILE`: the command line and its run.

use super::apply::apply_learned;
use super::base::base_calibration;
use super::observe::learn_from_traces;
use super::read::{read_recordings, ReadError};
use super::render::render_calibration;
use crate::fatal::HarnessError;
use crate::keep::{refuse_overwrite, write_kept};
use clap::Args;
use std::path::PathBuf;

/// `agy-harness learn`.
#[derive(Debug, Clone, Args)]
pub struct LearnArgs {
    /// Folders of recordings (`*.jsonl` traces, e.g. what `spikes --record` or
    /// `calibrate` wrote).
    #[arg(long, value_name = "DIR", num_args = 1.., required = true)]
    pub traces: Vec<PathBuf>,
    /// Where the calibration is written.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The calibration whose values the recordings do not show are inherited (default:
    /// the built-in calibration nearest the learned version).
    #[arg(long, value_name = "FILE")]
    pub base: Option<PathBuf>,
    /// Replace `--out` when it exists.
    #[arg(long)]
    pub force: bool,
}

/// Runs `agy-harness learn`; returns the exit code.
pub fn learn_command(args: LearnArgs) -> i32 {
    match learn(&args) {
        Ok(()) => crate::exit_code::ALL_CONFORM,
        Err(e) => e.report(),
    }
}

/// What `learn` did, for `calibrate` to report.
#[derive(Debug, Clone)]
pub struct LearnOutcome {
    /// The learned fields and their evidence.
    pub learned: super::Learned,
    /// The base calibration's name and table.
    pub base: (String, toml::Table),
    /// The calibration written.
    pub table: toml::Table,
}

fn learn(args: &LearnArgs) -> Result<(), HarnessError> {
    refuse_overwrite(&args.out, args.force, "--out")
        .map_err(|e| HarnessError::bad_input(e.message).with_hint(e.hint))?;
    let outcome = learn_into(&args.traces, args.base.as_deref(), &args.out)?;
    eprintln!(
        "learned {} field(s) into `{}`, the rest inherited from {}",
        outcome.learned.fields.len(),
        args.out.display(),
        outcome.base.0
    );
    Ok(())
}

/// Learns from the recordings in `dirs` over `base` (or the nearest built-in) and
/// writes the calibration to `out`.
pub(crate) fn learn_into(
    dirs: &[PathBuf],
    base: Option<&std::path::Path>,
    out: &std::path::Path,
) -> Result<LearnOutcome, HarnessError> {
    let traces = read_recordings(dirs).map_err(|e| match e {
        ReadError::Traces(d) => {
            eprint!("{d}");
            HarnessError::bad_input(format!("{} problem(s) in the recordings", d.len()))
        }
        other => HarnessError::bad_input(other.to_string())
            .with_hint("name folders of `*.jsonl` traces (docs/trace-format.md)"),
    })?;
    let learned = learn_from_traces(&traces);
    let version = learned
        .get("calibration.agy")
        .and_then(toml::Value::as_str)
        .unwrap_or_default()
        .to_string();
    let (name, table) = base_calibration(base, &version)?;
    let applied = apply_learned(&table, &learned);
    let text = render_calibration(&applied, &learned, &name, traces.len()).map_err(|e| {
        HarnessError::could_not_run(format!("failed to write the calibration: {e}"))
    })?;
    super::base::check_calibration(&out.display().to_string(), &text)?;
    write_kept(out, text).map_err(|e| {
        HarnessError::could_not_run(format!("failed to write `{}`: {e}", out.display()))
    })?;
    Ok(LearnOutcome {
        learned,
        base: (name, table),
        table: applied.table,
    })
}
