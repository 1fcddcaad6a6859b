//! `agy-harness fuzz`: generated agent behaviours and op sequences per profile, each
//! rendered as a scenario with its expectations written by the oracle, run by the
//! ordinary runner; a violation is shrunk and written as a scenario file.

mod args;
mod engine;
pub mod generated;

use crate::adapter_config::AdapterConfig;
use crate::binaries::{adapter_config, fake_agy, fake_agy_acp_if, reference_adapter};
use crate::exit_code;
use crate::fatal::HarnessError;
use crate::report::ReportFormat;
use crate::runner::RunSettings;
use crate::scenario::Profile;
use agy_protocol::env::FAKE_AGY_IMAGE_CACHE;
use agy_protocol::GoDuration;
pub use args::FuzzArgs;
use engine::{Bench, Violation};
use generated::Generated;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Cases in flight per CPU by default: a case spends most of its time waiting on its
/// processes (scripted delays, grace periods), not on a CPU.
const JOBS_PER_CPU: usize = 8;

/// One violation: the invariant, where the case came from, the shrunk scenario.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// The invariant broken (oracle::invariant_of).
    pub invariant: String,
    /// `--seed`.
    pub seed: u64,
    /// The case number (1-based) within the run.
    pub case: usize,
    /// The shrunk scenario file.
    pub scenario: PathBuf,
    /// What broke, as the runner put it.
    pub detail: String,
}

/// The JSON report.
#[derive(Debug, Serialize)]
pub struct FuzzReport {
    /// The profile fuzzed (`oneshot`, `session` or `acp`).
    pub profile: Profile,
    /// `--seed`.
    pub seed: u64,
    /// Cases judged (shrinking runs not counted).
    pub cases_run: usize,
    /// Cases in flight at once.
    pub jobs: usize,
    /// Seconds of wall time spent running cases (shrinking not counted).
    pub seconds: f64,
    /// Cases per second of that wall time.
    pub cases_per_second: f64,
    /// CPU seconds (user + system) agy-harness and every process it waited for spent
    /// in that time: the adapter, the fakes, the reapers.
    pub cpu_seconds: f64,
    /// CPU milliseconds per case: what bounds cases per second on a machine of its own
    /// (`1000 × CPUs / cpu_ms_per_case`), whatever else the machine runs.
    pub cpu_ms_per_case: f64,
    /// Violations found.
    pub violations: Vec<Finding>,
}

/// Runs `agy-harness fuzz`.
pub async fn fuzz_command(args: FuzzArgs) -> i32 {
    match fuzz_inner(args).await {
        Ok(code) => code,
        Err(f) => f.report(),
    }
}

fn bad_input(message: String) -> HarnessError {
    HarnessError::bad_input(message)
}

/// The adapter under test: `--adapter`, else the reference adapter with `--fault`s,
/// each fault checked against the adapter's own list.
fn adapter(args: &FuzzArgs) -> Result<AdapterConfig, HarnessError> {
    let faults = &args.target.fault;
    if args.target.adapter.is_none() && !faults.is_empty() {
        let bin = reference_adapter(&args.runner)?;
        let known = crate::binaries::list_faults(&bin)?;
        if let Some(f) = faults.iter().find(|f| !known.iter().any(|k| &k.name == *f)) {
            let names: Vec<&str> = known.iter().map(|k| k.name.as_str()).collect();
            return Err(bad_input(format!(
                "`{f}` is not a fault of the reference adapter; it has: {}",
                names.join(", ")
            )));
        }
    }
    adapter_config(args.target.adapter.as_deref(), faults, &args.runner)
}

fn settings(args: &FuzzArgs) -> Result<RunSettings, HarnessError> {
    let fake = fake_agy(&args.runner)?;
    let fake_agy_acp = fake_agy_acp_if(
        &args.runner,
        crate::profile::unit(args.profile).needs_fake_acp(),
    )?;
    Ok(RunSettings {
        config: adapter(args)?,
        fake_agy: fake,
        fake_agy_acp,
        time_scale: args.runner.time_scale,
        keep_sandboxes: false,
        live: None,
        agy_version: None,
        uncertain: None,
        calibration: None,
    })
}

/// The options that need more than clap checks: the case count, jobs, the time budget,
/// the report formats.
fn validate(args: &FuzzArgs) -> Result<Option<Duration>, HarnessError> {
    if args.cases == 0 {
        return Err(bad_input("--cases must be at least 1".into()));
    }
    if args.runner.jobs == Some(0) {
        return Err(bad_input("--jobs must be at least 1".into()));
    }
    if args.report.iter().any(|t| t.format != ReportFormat::Json) {
        return Err(bad_input(
            "fuzz writes only a json report: `--report json=PATH`".into(),
        ));
    }
    args.time_budget
        .as_deref()
        .map(|s| {
            GoDuration::parse(s).map(|d| d.0).map_err(|_| {
                bad_input(format!(
                    "--time-budget `{s}` is not a Go duration (e.g. `30s`, `5m`)"
                ))
            })
        })
        .transpose()
}

/// The generator, seeded from `--seed`: the same seed generates the same cases.
fn seeded_runner(seed: u64) -> TestRunner {
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
    )
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()) * JOBS_PER_CPU
}

async fn fuzz_inner(args: FuzzArgs) -> Result<i32, HarnessError> {
    let budget = validate(&args)?;
    let mut settings = settings(&args)?;
    if !settings.config.adapter.profiles.contains(&args.profile) {
        return Err(bad_input(format!(
            "the adapter does not implement the `{}` profile",
            args.profile
        )));
    }
    let jobs = args.runner.jobs.unwrap_or_else(default_jobs);
    let work = engine::work_dir()?;
    // The run's cases draw the same few pictures again and again: fake-agy encodes
    // each once and reads it back from here (an agy that inherits this environment).
    settings
        .config
        .adapter
        .env
        .entry(FAKE_AGY_IMAGE_CACHE.to_string())
        .or_insert_with(|| work.path().join("images").display().to_string());
    let bench = Bench {
        settings: Arc::new(settings),
        dir: work.path().to_path_buf(),
    };
    let strategy = generated::strategy(args.profile).ok_or_else(|| {
        bad_input(format!(
            "`fuzz` has no generator for the `{}` profile yet; its scenarios are in the catalogue",
            args.profile
        ))
    })?;
    let mut runner = seeded_runner(args.seed);
    let clock = Instant::now();
    let cpu = cpu_seconds();
    let outcome =
        engine::run_cases(&strategy, &mut runner, args.cases, jobs, budget, &bench).await?;
    let seconds = clock.elapsed().as_secs_f64().max(1e-9);
    let cpu = cpu_seconds() - cpu;
    let mut violations = Vec::new();
    if let Some((number, tree, v)) = outcome.first {
        let regenerate = || engine::nth_tree(&strategy, &mut seeded_runner(args.seed), number);
        let shrunk = engine::shrink(tree, &v.invariant, &bench, regenerate).await?;
        let scenario = write_finding(&args, &shrunk, &v, number)?;
        violations.push(Finding {
            invariant: v.invariant,
            seed: args.seed,
            case: number,
            scenario,
            detail: v.detail,
        });
    }
    let report = FuzzReport {
        profile: args.profile,
        seed: args.seed,
        cases_run: outcome.cases_run,
        jobs,
        seconds,
        cases_per_second: outcome.cases_run as f64 / seconds,
        cpu_seconds: cpu,
        cpu_ms_per_case: cpu * 1000.0 / outcome.cases_run.max(1) as f64,
        violations,
    };
    print_summary(&report);
    for t in &args.report {
        let text = serde_json::to_string_pretty(&report).unwrap_or_default();
        crate::keep::write_kept(&t.path, text + "\n").map_err(|e| {
            HarnessError::could_not_run(format!("cannot write {}: {e}", t.path.display()))
        })?;
    }
    Ok(if report.violations.is_empty() {
        exit_code::ALL_CONFORM
    } else {
        exit_code::SCENARIO_FAILED
    })
}

/// Writes the shrunk case as `<out>/<profile>/fuzz-<invariant>-<seed>-<case>.toml`.
fn write_finding(
    args: &FuzzArgs,
    c: &Generated,
    v: &Violation,
    number: usize,
) -> Result<PathBuf, HarnessError> {
    let (profile, invariant) = (c.profile(), &v.invariant);
    let stem = format!("fuzz-{invariant}-{}-{number}", args.seed);
    let dir = args.out.join(profile.as_str());
    let path = dir.join(format!("{stem}.toml"));
    let description = format!(
        "Found by agy-harness fuzz and shrunk: the generated behaviour below must keep the `{invariant}` invariant (expectations written by the fuzz oracle)."
    );
    let comment = vec![
        format!(
            "agy-harness fuzz --profile {profile} --seed {} (case {number})",
            args.seed
        ),
        format!("violated invariant: {invariant}"),
        format!("case: {c:?}"),
    ];
    let text = c.render(&format!("{profile}/{stem}"), &description, &comment);
    std::fs::create_dir_all(&dir)
        .and_then(|()| crate::keep::write_kept(&path, text))
        .map_err(|e| {
            HarnessError::could_not_run(format!("cannot write {}: {e}", path.display()))
        })?;
    Ok(path)
}

/// CPU seconds this process and its waited-for children have used so far.
fn cpu_seconds() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    [UsageWho::RUSAGE_SELF, UsageWho::RUSAGE_CHILDREN]
        .into_iter()
        .filter_map(|who| getrusage(who).ok())
        .map(|u| secs(u.user_time()) + secs(u.system_time()))
        .sum()
}

fn print_summary(r: &FuzzReport) {
    println!(
        "fuzz {}: {} case(s), seed {}, {} job(s), {:.1} s, {:.1} cases/s, {:.0} CPU ms/case",
        r.profile, r.cases_run, r.seed, r.jobs, r.seconds, r.cases_per_second, r.cpu_ms_per_case
    );
    if r.violations.is_empty() {
        println!("no invariant violated");
    }
    for f in &r.violations {
        println!(
            "✗ {} (case {}): {}\n  shrunk scenario: {}",
            f.invariant,
            f.case,
            f.detail,
            f.scenario.display()
        );
    }
}
