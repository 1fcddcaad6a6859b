//! The commands behind the CLI: each returns an exit code from [`crate::exit_code`];
//! only here are fatal errors printed.

use crate::adapter_config::{check_expected_failures, load_adapter_config, AdapterConfig};
use crate::cli::{CheckArgs, Cli, ColorWhen, Command, CommonArgs, RunArgs};
use crate::exit_code;
use crate::interrupt::cancel_on_signals;
use crate::locate::{
    default_catalogue, locate_binary, FAKE_AGY_ACP_BIN, FAKE_AGY_BIN, REFERENCE_ADAPTER_BIN,
};
use crate::report::{write_progress, write_report, write_summary, RunReport, Status};
use crate::runner::{run_all, RunSettings};
use crate::scenario::{load_catalogue, Scenario, Selection};
use agy_protocol::env::{
    AGY_HARNESS_FAKE_AGY, AGY_HARNESS_FAKE_AGY_ACP, AGY_HARNESS_REFERENCE_ADAPTER,
};
use agy_protocol::TimeScale;
use anstream::{AutoStream, ColorChoice};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// Runs the parsed command line; returns the exit code.
pub fn execute(cli: Cli) -> i32 {
    let choice = match cli.color {
        ColorWhen::Auto => ColorChoice::Auto,
        ColorWhen::Always => ColorChoice::Always,
        ColorWhen::Never => ColorChoice::Never,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: failed to start the async runtime: {e}");
            return exit_code::COULD_NOT_RUN;
        }
    };
    runtime.block_on(async move {
        match cli.command {
            Command::Run(args) => run_command(args, choice).await,
            Command::Faults(args) => crate::faults::faults_command(args, choice).await,
            Command::Check(args) => check_command(args),
            Command::Init(args) => crate::init::init_command(args),
            Command::Bench(args) => crate::bench::bench_command(args).await,
            Command::Fuzz(args) => crate::fuzz::fuzz_command(args).await,
            Command::Spikes(args) => crate::spike::spikes_command(args, choice).await,
            Command::Fidelity(args) => crate::fidelity::fidelity_command(args).await,
            Command::Convert(args) => crate::capture::convert_command(args),
            Command::Matrix(args) => crate::matrix::matrix_command(args, choice).await,
            Command::Repro(args) => crate::repro::repro_command(args).await,
        }
    })
}

/// A fatal problem and the exit code it comes to.
pub(crate) struct Fatal(pub i32, pub String);

impl Fatal {
    pub(crate) fn report(self) -> i32 {
        eprintln!("error: {}", self.1);
        self.0
    }
}

/// Loads and selects the scenarios of `common`.
pub(crate) fn select_scenarios(common: &CommonArgs) -> Result<Vec<Scenario>, Fatal> {
    load_and_select(common).map(|(selected, _)| selected)
}

/// Loads the scenarios of `common`: the selected ones, and every known name (those
/// loaded and, when paths were given, the default catalogue's).
fn load_and_select(common: &CommonArgs) -> Result<(Vec<Scenario>, Vec<String>), Fatal> {
    let paths: Vec<PathBuf> = if common.paths.is_empty() {
        vec![default_catalogue(common.scenarios.as_deref())
            .map_err(|e| Fatal(exit_code::COULD_NOT_RUN, e))?]
    } else {
        common.paths.clone()
    };
    let catalogue = load_catalogue(&paths).map_err(|d| {
        eprint!("{d}");
        Fatal(
            exit_code::BAD_INPUT,
            format!(
                "{} problem(s) in the scenario files; nothing was run",
                d.len()
            ),
        )
    })?;
    let selection = Selection {
        names: common.name.clone(),
        tags: common.tag.clone(),
        profiles: common.profile.clone(),
        partition: common.partition,
    };
    let selected = selection.apply(&catalogue).into_iter().cloned().collect();
    let mut names: Vec<String> = catalogue
        .scenarios
        .into_iter()
        .map(|s| s.meta.name)
        .collect();
    if !common.paths.is_empty() {
        let default = default_catalogue(common.scenarios.as_deref())
            .ok()
            .and_then(|p| load_catalogue(&[p]).ok());
        names.extend(
            default
                .into_iter()
                .flat_map(|c| c.scenarios)
                .map(|s| s.meta.name),
        );
    }
    Ok((selected, names))
}

/// fake-agy: `--fake-agy`, `$AGY_HARNESS_FAKE_AGY`, or next to agy-harness, verified
/// by the identity handshake before it runs any scenario.
pub(crate) fn fake_agy(common: &CommonArgs) -> Result<PathBuf, Fatal> {
    let found = match &common.fake_agy {
        Some(p) if p.is_file() => Ok(p.clone()),
        Some(p) => Err(format!(
            "the fake-agy binary `{}` does not exist",
            p.display()
        )),
        None => locate_binary(FAKE_AGY_BIN, AGY_HARNESS_FAKE_AGY, "fake-agy"),
    }
    .map_err(|e| Fatal(exit_code::COULD_NOT_RUN, e))?;
    verified(found, FAKE_AGY_BIN)
}

/// `path` once it has answered the identity handshake as `name`; bad input otherwise.
pub(crate) fn verified(path: PathBuf, name: &str) -> Result<PathBuf, Fatal> {
    crate::fake_identity::verify_fake(&path, name)
        .map(|_| path)
        .map_err(|e| Fatal(exit_code::BAD_INPUT, e.to_string()))
}

/// The fake ACP agent: `--fake-agy-acp`, `$AGY_HARNESS_FAKE_AGY_ACP`, or next to
/// agy-harness. Needed only when `scenarios` has an `acp` scenario.
pub(crate) fn fake_agy_acp(
    common: &CommonArgs,
    scenarios: &[Scenario],
) -> Result<Option<PathBuf>, Fatal> {
    let needed = scenarios
        .iter()
        .any(|s| s.meta.profile == crate::scenario::Profile::Acp);
    fake_agy_acp_if(common, needed)
}

/// fake-agy-acp, verified, when `needed` (an acp scenario will run).
pub(crate) fn fake_agy_acp_if(common: &CommonArgs, needed: bool) -> Result<Option<PathBuf>, Fatal> {
    let found = match &common.fake_agy_acp {
        Some(p) if p.is_file() => Ok(p.clone()),
        Some(p) => Err(format!(
            "the fake-agy-acp binary `{}` does not exist",
            p.display()
        )),
        None => locate_binary(FAKE_AGY_ACP_BIN, AGY_HARNESS_FAKE_AGY_ACP, "fake-agy-acp"),
    };
    // Verified only when it will run; one that will not is not handed on.
    match found {
        Ok(p) if needed => verified(p, FAKE_AGY_ACP_BIN).map(Some),
        Err(e) if needed => Err(Fatal(exit_code::COULD_NOT_RUN, e)),
        Ok(_) | Err(_) => Ok(None),
    }
}

pub(crate) fn reference_adapter(common: &CommonArgs) -> Result<PathBuf, Fatal> {
    match &common.reference_adapter {
        Some(p) if p.is_file() => Ok(p.clone()),
        Some(p) => Err(format!(
            "the reference adapter `{}` does not exist",
            p.display()
        )),
        None => locate_binary(
            REFERENCE_ADAPTER_BIN,
            AGY_HARNESS_REFERENCE_ADAPTER,
            "agy-reference-adapter",
        ),
    }
    .map_err(|e| Fatal(exit_code::COULD_NOT_RUN, e))
}

pub(crate) fn jobs(common: &CommonArgs) -> usize {
    common
        .jobs
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2)
        })
        .max(1)
}

/// Fails a run that would execute no scenario: nothing selected, or nothing of a
/// profile the adapter implements (unless `--allow-empty`).
fn ensure_something_runs(
    scenarios: &[Scenario],
    config: &AdapterConfig,
    common: &CommonArgs,
) -> Result<(), Fatal> {
    let hint = "nothing was run; pass `--allow-empty` to accept an empty run";
    if scenarios.is_empty() {
        return Err(Fatal(
            exit_code::BAD_INPUT,
            format!(
                "no scenario matches the selection ({}); {hint}",
                describe_selection(common)
            ),
        ));
    }
    let profiles = &config.adapter.profiles;
    if !scenarios.iter().any(|s| profiles.contains(&s.meta.profile)) {
        let implemented: Vec<String> = profiles.iter().map(|p| format!("`{p}`")).collect();
        let mut selected: Vec<String> = scenarios
            .iter()
            .map(|s| format!("`{}`", s.meta.profile))
            .collect();
        selected.sort();
        selected.dedup();
        return Err(Fatal(
            exit_code::BAD_INPUT,
            format!(
                "the {} selected scenario(s) are of profile {}, and `{}` implements {}; {hint}",
                scenarios.len(),
                selected.join(", "),
                config.adapter.name,
                if implemented.is_empty() {
                    "none".to_string()
                } else {
                    implemented.join(", ")
                }
            ),
        ));
    }
    Ok(())
}

/// The selection options of `common`, as a user typed them.
fn describe_selection(common: &CommonArgs) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.extend(common.paths.iter().map(|p| format!("`{}`", p.display())));
    parts.extend(common.name.iter().map(|n| format!("--name {n}")));
    parts.extend(common.tag.iter().map(|t| format!("--tag {t}")));
    parts.extend(common.profile.iter().map(|p| format!("--profile {p}")));
    if let Some((k, n)) = common.partition {
        parts.push(format!("--partition {k}/{n}"));
    }
    if parts.is_empty() {
        "the whole catalogue".into()
    } else {
        parts.join(" ")
    }
}

/// Runs `scenarios` with `settings`, printing progress to `out` (skipped scenarios only
/// when `list_skips`); the report is complete unless the run was interrupted.
pub(crate) async fn run_catalogue(
    scenarios: Vec<Scenario>,
    settings: RunSettings,
    jobs: usize,
    list_skips: bool,
    out: &mut (dyn Write + Send),
) -> Result<RunReport, Fatal> {
    let cancel = cancel_on_signals().map_err(|e| {
        Fatal(
            exit_code::COULD_NOT_RUN,
            format!("failed to listen for SIGINT: {e}"),
        )
    })?;
    let started = std::time::Instant::now();
    let started_at = time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    let adapter = settings.config.adapter.name.clone();
    let time_scale = settings.time_scale.get();
    let (results, not_run) = run_all(
        scenarios,
        Arc::new(settings),
        jobs,
        cancel.clone(),
        |r, done, total| {
            if list_skips || r.status != Status::Skipped {
                write_progress(out, r, done, total);
                let _ = out.flush();
            }
        },
    )
    .await;
    let interrupted = *cancel.borrow();
    Ok(RunReport {
        adapter,
        started: started_at,
        duration_ms: started.elapsed().as_millis() as u64,
        time_scale,
        complete: !interrupted,
        results,
        not_run,
    })
}

/// The adapter under test: the config file `adapter`, else the reference adapter with
/// `faults` switched on.
pub(crate) fn adapter_config(
    adapter: Option<&std::path::Path>,
    faults: &[String],
    common: &CommonArgs,
) -> Result<AdapterConfig, Fatal> {
    match adapter {
        Some(path) => load_adapter_config(path).map_err(|d| {
            eprint!("{d}");
            Fatal(
                exit_code::BAD_INPUT,
                format!("the adapter config `{}` is not valid", path.display()),
            )
        }),
        None => {
            let bin = reference_adapter(common)?;
            let extra: Vec<String> = faults
                .iter()
                .flat_map(|f| ["--fault".to_string(), f.clone()])
                .collect();
            Ok(AdapterConfig::reference(&bin, &extra))
        }
    }
}

async fn run_command(args: RunArgs, choice: ColorChoice) -> i32 {
    match run_inner(args, choice).await {
        Ok(code) => code,
        Err(f) => f.report(),
    }
}

async fn run_inner(args: RunArgs, choice: ColorChoice) -> Result<i32, Fatal> {
    if args.record.is_some() && !args.live {
        return Err(Fatal(
            exit_code::BAD_INPUT,
            "`--record` records live agy runs, and this run is not live\nhelp: add `--agy PATH --live` to record a real agy; a run against fake-agy is already reproducible from its scenario files".into(),
        ));
    }
    let config = adapter_config(
        args.target.adapter.as_deref(),
        &args.target.fault,
        &args.common,
    )?;
    let (mut scenarios, names) = load_and_select(&args.common)?;
    check_expected_failures(&config, names.iter().map(String::as_str)).map_err(|d| {
        eprint!("{d}");
        Fatal(
            exit_code::BAD_INPUT,
            "the adapter config expects failures of scenarios that do not exist".into(),
        )
    })?;
    if !args.allow_empty {
        ensure_something_runs(&scenarios, &config, &args.common)?;
    }
    let mut jobs = jobs(&args.common);
    let live = match &args.agy {
        Some(agy) => {
            scenarios = live_scenarios(scenarios)?;
            // One scenario at a time: the budget is spent in order, and a live agy is
            // not hit harder than the scenario itself asks for.
            jobs = 1;
            let run = live_run(agy, &args)?;
            Some(Arc::new(match &args.record {
                Some(dir) => recording(run, dir).await?,
                None => run,
            }))
        }
        None => None,
    };
    let settings = RunSettings {
        config,
        fake_agy: match &live {
            Some(_) => PathBuf::new(),
            None => fake_agy(&args.common)?,
        },
        time_scale: match &live {
            // A real agy takes real time: adapter timeouts are not shortened.
            Some(_) => TimeScale::ONE,
            None => args.common.time_scale,
        },
        fake_agy_acp: fake_agy_acp(&args.common, &scenarios)?,
        keep_sandboxes: args.keep_sandboxes,
        live: live.clone(),
        agy_version: None,
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
            eprintln!("error: {e}");
            code = code.max(exit_code::COULD_NOT_RUN);
        }
    }
    Ok(code)
}

/// The live run of `--agy PATH --live`, after the guard.
fn live_run(agy: &std::path::Path, args: &RunArgs) -> Result<crate::live::LiveRun, Fatal> {
    crate::live::check_live_allowed(agy, args.live).map_err(|e| Fatal(exit_code::BAD_INPUT, e))?;
    if !agy.is_file() {
        return Err(Fatal(
            exit_code::BAD_INPUT,
            format!("`--agy {}` is not a file", agy.display()),
        ));
    }
    let credentials = crate::live::Credentials::from_arg(args.credentials)
        .map_err(|e| Fatal(exit_code::BAD_INPUT, e))?;
    crate::live::LiveRun::new(agy.to_path_buf(), args.budget, credentials).map_err(|e| {
        Fatal(
            exit_code::COULD_NOT_RUN,
            format!("failed to set up the live budget: {e}"),
        )
    })
}

/// The live run recording into `dir`: the agy version comes from one `--version` run
/// (charged to the budget) before any scenario, as spikes ask it.
async fn recording(
    run: crate::live::LiveRun,
    dir: &std::path::Path,
) -> Result<crate::live::LiveRun, Fatal> {
    if !run.charge_one() {
        return Err(Fatal(
            exit_code::BAD_INPUT,
            "the live budget allows no `--version` run to stamp the recording with\nhelp: raise --budget".into(),
        ));
    }
    let version = crate::spike::version_of(&run.agy).await.map_err(|why| {
        Fatal(
            exit_code::BAD_INPUT,
            format!(
                "`{} --version` did not answer like agy: {why}; nothing was run or recorded\nhelp: give the path of a real agy binary to `--agy`",
                run.agy.display()
            ),
        )
    })?;
    let recorder = crate::live::LiveRecorder::new(dir.to_path_buf(), version).map_err(|e| {
        Fatal(
            exit_code::COULD_NOT_RUN,
            format!(
                "failed to create the record folder `{}`: {e}",
                dir.display()
            ),
        )
    })?;
    Ok(run.recording(recorder))
}

/// The scenarios a live run may use: the success paths (tag `live`), never the fault
/// injections. Scripted agy behaviour does not apply to a real agy, so the script, the
/// op expectations on scripted text and the carry-over check are dropped; outcome,
/// output, turn counts and journal expectations stay.
fn live_scenarios(scenarios: Vec<Scenario>) -> Result<Vec<Scenario>, Fatal> {
    let live: Vec<Scenario> = scenarios
        .into_iter()
        .filter(|s| s.meta.tags.iter().any(|t| t == "live"))
        .map(|mut s| {
            s.script = None;
            s.script_file = None;
            for op in &mut s.ops {
                op.expect.text = None;
                op.expect.text_contains.clear();
                op.expect.text_lacks.clear();
            }
            // Carry-over is judged against the scripted answers' distinct texts; a real
            // agy may well answer two turns alike.
            if let Some(h) = &mut s.expect.history {
                h.no_carryover = None;
            }
            s
        })
        .collect();
    if live.is_empty() {
        return Err(Fatal(
            exit_code::BAD_INPUT,
            "no selected scenario is tagged `live` (a success path safe to run against a real agy)"
                .into(),
        ));
    }
    Ok(live)
}

fn check_command(args: CheckArgs) -> i32 {
    let common = CommonArgs {
        paths: args.paths,
        jobs: None,
        time_scale: TimeScale::ONE,
        fake_agy: None,
        fake_agy_acp: None,
        reference_adapter: None,
        scenarios: args.scenarios,
        name: vec![],
        tag: vec![],
        profile: vec![],
        partition: None,
    };
    let (selected, names) = match load_and_select(&common) {
        Ok(loaded) => loaded,
        Err(f) => return f.report(),
    };
    println!("{} scenario(s) are valid", selected.len());
    let Some(path) = args.adapter else {
        return exit_code::ALL_CONFORM;
    };
    let checked = load_adapter_config(&path)
        .and_then(|c| check_expected_failures(&c, names.iter().map(String::as_str)));
    match checked {
        Ok(()) => {
            println!("adapter config `{}` is valid", path.display());
            exit_code::ALL_CONFORM
        }
        Err(d) => {
            eprint!("{d}");
            Fatal(
                exit_code::BAD_INPUT,
                format!("{} problem(s) in `{}`", d.len(), path.display()),
            )
            .report()
        }
    }
}
