//! `agy-harness calibrate --agy PATH --live --budget N --out FILE`: the command line
//! and its run.

use super::drift::{drift_rows, drift_table};
use super::suite::{probe_suite, replay_probes, spike_probes, CalibrationProbe};
use crate::fatal::HarnessError;
use crate::keep::refuse_overwrite;
use crate::learn::{learn_into, read_recordings};
use crate::live::{check_live_allowed, judge, probe_with, CredentialsArg};
use crate::spike::{probe_version, run_probe, Budget, Credentials, Probe, Recorder, Target};
use agy_protocol::{GoDuration, TimeScale};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `agy-harness calibrate`.
#[derive(Debug, Clone, Args)]
pub struct CalibrateArgs {
    /// The agy binary to calibrate against (needs `--live`).
    #[arg(long, value_name = "PATH")]
    pub agy: PathBuf,
    /// Allow running it: a real agy spends your quota.
    #[arg(long)]
    pub live: bool,
    /// At most this many agy invocations (the `--version` check and the sign-in check
    /// included); the probes the budget leaves out are listed.
    #[arg(long, value_name = "N", default_value_t = 12)]
    pub budget: u32,
    /// Where the learned calibration is written.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Where the recordings go (default: `<out>.recordings/` beside `--out`).
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// How the runs get your credentials (every choice but `none` is an opt-in).
    #[arg(long, value_enum, default_value_t = CredentialsArg::None)]
    pub credentials: CredentialsArg,
    /// Extra environment for every agy run, `KEY=VALUE`.
    #[arg(long = "agy-env", value_name = "KEY=VALUE")]
    pub agy_env: Vec<String>,
    /// Also run every probe of the spike files (`--spikes`, default the built-in ones)
    /// once, after the suite.
    #[arg(long)]
    pub with_spikes: bool,
    /// The folder of spike files `--with-spikes` reads.
    #[arg(long, value_name = "DIR", requires = "with_spikes")]
    pub spikes: Option<PathBuf>,
    /// Also re-run, after the suite, every invocation recorded in these folders of
    /// traces, with its recorded argv and stdin lines.
    #[arg(long = "probes-from", value_name = "DIR")]
    pub probes_from: Vec<PathBuf>,
    /// The calibration unlearned fields are inherited from (default: the built-in
    /// nearest the version agy reports).
    #[arg(long, value_name = "FILE")]
    pub base: Option<PathBuf>,
    /// The version to stamp the recordings with when `--version` does not answer like
    /// agy (a warning says so); without it such a binary is refused.
    #[arg(long, value_name = "V")]
    pub assume_version: Option<agy_protocol::AgyVersion>,
    /// Replace `--out` and the recordings of an earlier run.
    #[arg(long)]
    pub force: bool,
}

/// How long one probe may run.
const PROBE_TIMEOUT: Duration = Duration::from_secs(300);

/// Runs `agy-harness calibrate`; returns the exit code.
pub async fn calibrate_command(args: CalibrateArgs) -> i32 {
    match calibrate(&args).await {
        Ok(()) => crate::exit_code::ALL_CONFORM,
        Err(e) => e.report(),
    }
}

async fn calibrate(args: &CalibrateArgs) -> Result<(), HarnessError> {
    check_live_allowed(&args.agy, args.live)?;
    let record = args
        .record
        .clone()
        .unwrap_or_else(|| recordings_beside(&args.out));
    for (path, flag) in [(&args.out, "--out"), (&record, "--record")] {
        refuse_overwrite(path, args.force, flag)
            .map_err(|e| HarnessError::bad_input(e.message).with_hint(e.hint))?;
    }
    let probes = planned_probes(args)?;
    let target = live_target(args)?;
    let version = version_of_target(&target, args.assume_version).await?;
    check_sign_in(&target).await?;
    if args.force {
        let _ = std::fs::remove_dir_all(&record);
    }
    let recorder = Recorder::new(
        record.clone(),
        target.credentials.redactor(),
        version.clone(),
    )
    .map_err(|e| {
        HarnessError::could_not_run(format!("failed to create `{}`: {e}", record.display()))
    })?;
    let not_probed = run_suite(&probes, &target, &recorder).await;
    if let Some(failed) = recorder.failures().first() {
        return Err(HarnessError::could_not_run(format!(
            "a recording was not written: {failed}"
        )));
    }
    let outcome = learn_into(
        std::slice::from_ref(&record),
        args.base.as_deref(),
        &args.out,
    )?;
    let rows = drift_rows(&outcome.learned, &outcome.base.1);
    print!("{}", drift_table(&rows, &version, &outcome.base.0));
    if !not_probed.is_empty() {
        println!("\nNot probed (budget of {} spent):\n", args.budget);
        not_probed.iter().for_each(|p| println!("- {p}"));
    }
    eprintln!(
        "calibrated agy {version}: `{}` (recordings in `{}`)",
        args.out.display(),
        record.display()
    );
    Ok(())
}

/// The version `--version` reports, or `--assume-version` with a warning.
async fn version_of_target(
    target: &Target,
    assumed: Option<agy_protocol::AgyVersion>,
) -> Result<String, HarnessError> {
    match (probe_version(target).await, assumed) {
        (Ok(v), _) => Ok(v),
        (Err(why), Some(v)) => {
            eprintln!("warning: `--version` did not answer like agy ({why}); recording as agy {v} (`--assume-version`)");
            Ok(v.to_string())
        }
        (Err(why), None) => Err(HarnessError::could_not_run(format!(
            "`{} --version` did not answer like agy: {why}; no probe was run",
            target.bin.display()
        ))
        .with_hint("give the path of an agy binary to `--agy`, or state its version with `--assume-version`")),
    }
}

fn recordings_beside(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".recordings");
    out.with_file_name(name)
}

/// The suite, then the spikes' probes (`--with-spikes`), then `--probes-from`'s
/// invocations; says which recorded invocations are
/// not probes.
fn planned_probes(args: &CalibrateArgs) -> Result<Vec<CalibrationProbe>, HarnessError> {
    let mut probes = probe_suite();
    if args.with_spikes {
        let dir = args
            .spikes
            .clone()
            .unwrap_or_else(crate::locate::default_spikes);
        let spikes = crate::spike::load_spikes(&dir).map_err(|d| {
            eprint!("{d}");
            HarnessError::bad_input(format!("{} problem(s) in the spike files", d.len()))
        })?;
        let (extra, skipped) = spike_probes(&spikes);
        skipped
            .iter()
            .for_each(|s| eprintln!("note: not a probe: {s}"));
        probes.extend(extra);
    }
    let from = &args.probes_from;
    if !from.is_empty() {
        let traces = read_recordings(from)
            .map_err(|e| HarnessError::bad_input(format!("--probes-from: {e}")))?;
        let (extra, skipped) = replay_probes(&traces);
        skipped
            .iter()
            .for_each(|s| eprintln!("note: not a probe: {s}"));
        probes.extend(extra);
    }
    Ok(probes)
}

fn live_target(args: &CalibrateArgs) -> Result<Target, HarnessError> {
    let credentials = Credentials::from_arg(args.credentials)
        .map_err(|e| HarnessError::bad_input(e.to_string()))?;
    let mut env = Vec::new();
    for kv in &args.agy_env {
        let (k, v) = kv.split_once('=').ok_or_else(|| {
            HarnessError::bad_input(format!("--agy-env `{kv}`")).with_hint("write KEY=VALUE")
        })?;
        env.push((k.to_string(), v.to_string()));
    }
    Ok(Target {
        // Absolute: each probe runs agy in its own sandbox folder.
        bin: crate::locate::absolute(&args.agy),
        live: true,
        env,
        time_scale: TimeScale::ONE,
        credentials,
        budget: Some(Budget::new(args.budget)),
        budget_start: args.budget,
    })
}

/// The sign-in check every live run makes (one `agy models`, charged to the budget).
async fn check_sign_in(target: &Target) -> Result<(), HarnessError> {
    let t = target.clone();
    let seen = tokio::task::spawn_blocking(move || {
        probe_with(&t.bin, &t.credentials, || t.take_invocation())
    })
    .await
    .map_err(|e| HarnessError::could_not_run(format!("the sign-in check failed: {e}")))?;
    if let Some(note) = judge(&target.credentials, &seen)? {
        eprintln!("{}", target.credentials.redactor().redact(&note));
    }
    Ok(())
}

/// Runs each probe in order while the budget lasts; returns the ones it left out, each
/// with its cost.
async fn run_suite(
    probes: &[CalibrationProbe],
    target: &Target,
    recorder: &Recorder,
) -> Vec<String> {
    let mut not_probed = Vec::new();
    for p in probes {
        if target.budget_spent() {
            not_probed.push(format!("`{}` (1 invocation, {} turn(s))", p.name, p.turns));
            continue;
        }
        let probe = p.spike.clone().unwrap_or_else(|| Probe {
            name: p.name.clone(),
            argv: p.argv.clone(),
            prompt: String::new(),
            repeat: 1,
            concurrency: 1,
            env: Default::default(),
            isolated_profile: false,
            fixtures: Vec::new(),
            timeout: Some(GoDuration(PROBE_TIMEOUT)),
            stdin: p.stdin.clone(),
        });
        for obs in run_probe("calibrate", &probe, target, Some(recorder)).await {
            if let Some(why) = obs.not_run {
                not_probed.push(format!("`{}`: {why}", p.name));
            }
        }
    }
    not_probed
}
