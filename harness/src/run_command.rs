//! `agy-harness run`: its arguments, and scenarios run against an adapter (fake-agy, or
//! a real agy with `--live`), summed up and written as reports.

use crate::adapter_config::check_expected_failures;
use crate::binaries::{adapter_config, fake_agy, fake_agy_acp};
use crate::catalogue_run::{ensure_something_runs, load_and_select, run_catalogue};
use crate::fatal::HarnessError;
use crate::options::{AdapterArgs, CommonArgs};
use crate::report::{parse_report_target, write_report, write_summary, ReportTarget};
use crate::runner::RunSettings;
use crate::scenario::{Profile, Scenario};
use agy_protocol::TimeScale;
use anstream::{AutoStream, ColorChoice};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// `agy-harness run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Scenario selection and run settings.
    #[command(flatten)]
    pub common: CommonArgs,
    /// The adapter under test.
    #[command(flatten)]
    pub target: AdapterArgs,
    /// Also write a report: `json=PATH`, `junit=PATH`, `markdown=PATH` or `html=PATH`
    /// (repeatable).
    #[arg(long, value_name = "FORMAT=PATH", value_parser = parse_report_target)]
    pub report: Vec<ReportTarget>,
    /// Keep each scenario's sandbox folder and print where it is.
    #[arg(long)]
    pub keep_sandboxes: bool,
    /// Succeed even when the selection runs no scenario (by default that is exit 2).
    #[arg(long)]
    pub allow_empty: bool,
    /// List every skipped scenario with its reason (by default skips are summed up by
    /// profile in one line).
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Run the adapter's success-path scenarios (tag `live`) against this real agy
    /// instead of fake-agy (needs `--live`).
    #[arg(long, value_name = "PATH")]
    pub agy: Option<PathBuf>,
    /// Allow running a real agy: it spends your quota.
    #[arg(long, requires = "agy")]
    pub live: bool,
    /// At most this many live agy invocations; scenarios past it are skipped.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub budget: u32,
    /// How live runs get your credentials (every choice but `none` is an opt-in).
    #[arg(long, value_enum, default_value_t = crate::live::CredentialsArg::None)]
    pub credentials: crate::live::CredentialsArg,
    /// Record every live agy invocation, redacted, as one trace per scenario in this
    /// folder (needs `--live`; `agy-harness repro` reads it).
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// Replace traces an earlier `--record` wrote into the folder (by default that is
    /// refused before agy runs).
    #[arg(long, requires = "record")]
    pub force: bool,
    /// Act out this agy version in every scenario instead of the one each models, and
    /// run only the scenarios that apply to it: one column of `matrix`, to reproduce a
    /// cell of it.
    #[arg(long, value_name = "VERSION", conflicts_with = "agy")]
    pub agy_version: Option<agy_protocol::AgyVersion>,
    /// Present this calibration file (docs/calibration-format.md) as agy in every
    /// scenario: fake-agy reads it instead of the built-in one of the scenario's
    /// version (`FAKE_AGY_CALIBRATION`).
    #[arg(long, value_name = "FILE", conflicts_with = "agy")]
    pub calibration: Option<PathBuf>,
}

/// `--calibration` over the adapter config's `agy_calibration` (checked as the config
/// was read); a live agy presents itself.
fn chosen_calibration(
    args: &RunArgs,
    config: &crate::adapter_config::AdapterConfig,
) -> Result<Option<PathBuf>, HarnessError> {
    let given = crate::calibration_file::check_calibration(args.calibration.as_deref())?;
    let configured = config.adapter.agy_calibration.clone();
    Ok(given.or_else(|| configured.filter(|_| args.agy.is_none())))
}

pub(crate) async fn run_command(args: RunArgs, choice: ColorChoice) -> i32 {
    match run_inner(args, choice).await {
        Ok(code) => code,
        Err(f) => f.report(),
    }
}

/// `--agy-version V`: the scenarios that apply to `v`, when the adapter supports it.
fn for_agy_version(
    v: agy_protocol::AgyVersion,
    config: &crate::adapter_config::AdapterConfig,
    mut scenarios: Vec<Scenario>,
) -> Result<Vec<Scenario>, HarnessError> {
    if !config.adapter.supports(v) {
        let range = config.adapter.agy_versions.as_ref().map(|r| r.to_string());
        return Err(HarnessError::bad_input(format!(
            "`--agy-version {v}`: the adapter config supports agy {}",
            range.unwrap_or_default()
        ))
        .with_hint("pick a version inside the config's `agy_versions`, or widen it"));
    }
    scenarios.retain(|s| s.meta.versions.as_ref().is_none_or(|r| r.contains(v)));
    Ok(scenarios)
}

async fn run_inner(args: RunArgs, choice: ColorChoice) -> Result<i32, HarnessError> {
    if args.record.is_some() && !args.live {
        return Err(HarnessError::bad_input("`--record` records live agy runs, and this run is not live")
            .with_hint("add `--agy PATH --live` to record a real agy; a run against fake-agy is already reproducible from its scenario files"));
    }
    let config = adapter_config(
        args.target.adapter.as_deref(),
        &args.target.fault,
        &args.common.runner,
    )?;
    let (mut scenarios, names) = load_and_select(&args.common.source, &args.common.selection())?;
    if let Some(v) = args.agy_version {
        scenarios = for_agy_version(v, &config, scenarios)?;
    }
    check_expected_failures(&config, names.iter().map(String::as_str)).map_err(|d| {
        eprint!("{d}");
        HarnessError::bad_input(
            "the adapter config expects failures of scenarios that do not exist",
        )
    })?;
    if !args.allow_empty {
        ensure_something_runs(&scenarios, &config, &args.common)?;
    }
    let mut jobs = args.common.runner.jobs();
    let live = match &args.agy {
        Some(agy) => {
            scenarios = live_scenarios(scenarios, &config.adapter.profiles)?;
            // One scenario at a time: the budget is spent in order, and a live agy is
            // not hit harder than the scenario itself asks for.
            jobs = 1;
            // Refused before the sign-in probe: no agy runs when nothing will be kept.
            if let Some(dir) = &args.record {
                keep_earlier_traces(dir, &scenarios, args.force)?;
            }
            let run = live_run(agy, &args)?;
            Some(Arc::new(match &args.record {
                Some(dir) => recording(run, dir).await?,
                None => run,
            }))
        }
        None => None,
    };
    let fake_agy_acp = fake_agy_acp(&args.common.runner, &scenarios, &config.adapter.profiles)?;
    let settings = RunSettings {
        calibration: chosen_calibration(&args, &config)?, // read before `config` moves
        config,
        fake_agy: match &live {
            Some(_) => PathBuf::new(),
            None => fake_agy(&args.common.runner)?,
        },
        time_scale: match &live {
            // A real agy takes real time: adapter timeouts are not shortened.
            Some(_) => TimeScale::ONE,
            None => args.common.runner.time_scale,
        },
        fake_agy_acp,
        keep_sandboxes: args.keep_sandboxes,
        live: live.clone(),
        agy_version: args.agy_version,
        uncertain: None,
    };
    let mut out = AutoStream::new(std::io::stdout(), choice);
    let report = run_catalogue(scenarios, settings, jobs, args.verbose, &mut out).await?;
    if let Some(live) = &live {
        let _ = writeln!(
            out,
            "live agy invocations used: {} of {}",
            live.used(),
            live.budget
        );
    }
    write_summary(&mut out, &report);
    let mut code = report.exit_code();
    for target in &args.report {
        if let Err(e) = write_report(&report, target) {
            code = code.max(HarnessError::could_not_run(e.to_string()).report());
        }
    }
    Ok(code)
}

/// The live run of `--agy PATH --live`, after the guard.
fn live_run(agy: &std::path::Path, args: &RunArgs) -> Result<crate::live::LiveRun, HarnessError> {
    crate::live::check_live_allowed(agy, args.live)?;
    if !agy.is_file() {
        return Err(HarnessError::bad_input(format!(
            "`--agy {}` is not a file",
            agy.display()
        )));
    }
    let credentials = crate::live::Credentials::from_arg(args.credentials)
        .map_err(|e| HarnessError::bad_input(e.to_string()))?;
    let run =
        crate::live::LiveRun::new(agy.to_path_buf(), args.budget, credentials).map_err(|e| {
            HarnessError::could_not_run(format!("failed to set up the live budget: {e}"))
        })?;
    // Before any turn: is agy signed in as `--credentials` promised?
    let seen = crate::live::probe(&run);
    let note = crate::live::judge(&run.credentials, &seen)?;
    if let Some(note) = note {
        eprintln!("{}", run.redactor().redact(&note));
    }
    Ok(run)
}

/// Refuses a `--record` folder holding the trace of a scenario of this run, unless
/// `force`: a live recording costs quota, so no agy runs before the refusal.
fn keep_earlier_traces(
    dir: &std::path::Path,
    scenarios: &[Scenario],
    force: bool,
) -> Result<(), HarnessError> {
    let paths = crate::live::LiveRecorder::new(dir.to_path_buf(), String::new()).map_err(|e| {
        HarnessError::could_not_run(format!(
            "failed to create the record folder `{}`: {e}",
            dir.display()
        ))
    })?;
    for s in scenarios {
        crate::keep::refuse_overwrite(&paths.trace_path(&s.meta.name), force, "--record")
            .map_err(|r| HarnessError::bad_input(r.message).with_hint(r.hint))?;
    }
    Ok(())
}

/// The live run recording into `dir`: the agy version comes from one `--version` run
/// (charged to the budget) before any scenario, as spikes ask it.
async fn recording(
    run: crate::live::LiveRun,
    dir: &std::path::Path,
) -> Result<crate::live::LiveRun, HarnessError> {
    if !run.charge_one() {
        return Err(HarnessError::bad_input(
            "the live budget allows no `--version` run to stamp the recording with",
        )
        .with_hint("raise --budget"));
    }
    let version = crate::spike::version_of(&run.agy).await.map_err(|why| {
        HarnessError::bad_input(format!(
            "`{} --version` did not answer like agy: {why}; nothing was run or recorded",
            run.agy.display()
        ))
        .with_hint("give the path of a real agy binary to `--agy`")
    })?;
    let recorder = crate::live::LiveRecorder::new(dir.to_path_buf(), version).map_err(|e| {
        HarnessError::could_not_run(format!(
            "failed to create the record folder `{}`: {e}",
            dir.display()
        ))
    })?;
    Ok(run.recording(recorder))
}

/// The scenarios a live run may use: the success paths (tag `live`) of the adapter's
/// `profiles`, never the fault injections. Scripted agy behaviour does not apply to a
/// real agy, so the script, the op expectations on scripted text and usage and the
/// carry-over check are dropped; outcome, output, turn counts and journal
/// expectations stay. None of them is bad input, as for a run that selects nothing.
fn live_scenarios(
    scenarios: Vec<Scenario>,
    profiles: &[Profile],
) -> Result<Vec<Scenario>, HarnessError> {
    let live: Vec<Scenario> = scenarios
        .into_iter()
        .filter(|s| s.meta.tags.iter().any(|t| t == "live"))
        .filter(|s| profiles.contains(&s.meta.profile))
        .map(without_scripted_expectations)
        .collect();
    if live.is_empty() {
        let profiles: Vec<String> = profiles.iter().map(|p| format!("`{p}`")).collect();
        return Err(HarnessError::bad_input(format!(
            "no selected scenario of the adapter's profiles ({}) is tagged `live` (a success path safe to run against a real agy)",
            profiles.join(", ")
        ))
        .with_hint("docs/revalidate.md lists the live scenarios of each profile; nothing was run"));
    }
    Ok(live)
}

/// `s` without what only a scripted agy does: its script, the text and usage its ops
/// expect, the carry-over check.
fn without_scripted_expectations(mut s: Scenario) -> Scenario {
    s.script = None;
    s.script_file = None;
    for op in &mut s.ops {
        op.expect.text = None;
        op.expect.text_contains.clear();
        op.expect.text_lacks.clear();
        op.expect.usage = None;
    }
    // Carry-over is judged against the scripted answers' distinct texts; a real
    // agy may well answer two turns alike.
    if let Some(h) = &mut s.expect.history {
        h.no_carryover = None;
    }
    s
}
