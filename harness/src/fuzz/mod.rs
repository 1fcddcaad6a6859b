//! `agy-harness fuzz`: generated agy behaviours and op sequences per profile, each
//! rendered as a scenario with its expectations written by the oracle, run by the
//! ordinary runner; a violation is shrunk and written as a scenario file.

pub mod case;
pub mod oracle;
pub mod render;

use crate::adapter_config::{load_adapter_config, AdapterConfig};
use crate::binaries::{fake_agy, reference_adapter};
use crate::cli::{CommonArgs, FuzzArgs};
use crate::exit_code;
use crate::fatal::Fatal;
use crate::report::{ScenarioResult, Status};
use crate::runner::{run_all, RunSettings};
use crate::scenario::parse_scenario_file;
use crate::scenario::Profile;
use agy_protocol::GoDuration;
use case::Case;
use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Most runs spent shrinking one finding.
const MAX_SHRINK_RUNS: usize = 48;

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
    /// `oneshot` or `session`.
    pub profile: String,
    /// `--seed`.
    pub seed: u64,
    /// Cases run (shrinking runs not counted).
    pub cases_run: usize,
    /// Cases per second of wall time.
    pub cases_per_second: f64,
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

fn strategy(profile: Profile) -> Result<BoxedStrategy<Case>, Fatal> {
    match profile {
        Profile::Oneshot => Ok(case::oneshot_case().boxed()),
        Profile::Session => Ok(case::session_case().boxed()),
        Profile::Acp => Err(Fatal(
            exit_code::BAD_INPUT,
            "fuzz generates `oneshot` and `session` cases; `acp` is not generated yet".into(),
        )),
    }
}

fn settings(args: &FuzzArgs) -> Result<RunSettings, Fatal> {
    let common = CommonArgs::for_generated(
        args.jobs,
        args.time_scale,
        args.fake_agy.clone(),
        args.reference_adapter.clone(),
    );
    let fake = fake_agy(&common)?;
    let config = match &args.adapter {
        Some(path) => load_adapter_config(path).map_err(|d| {
            eprint!("{d}");
            Fatal(
                exit_code::BAD_INPUT,
                "the adapter config has problems".into(),
            )
        })?,
        None => {
            let bin = reference_adapter(&common)?;
            let extra: Vec<String> = args
                .fault
                .iter()
                .flat_map(|f| ["--fault".to_string(), f.clone()])
                .collect();
            AdapterConfig::reference(&bin, &extra)
        }
    };
    Ok(RunSettings {
        config,
        fake_agy: fake,
        fake_agy_acp: None,
        time_scale: args.time_scale,
        keep_sandboxes: false,
        live: None,
        agy_version: None,
    })
}

/// The runner's verdict on `case`: `None` when every invariant held, else the first
/// invariant broken and its detail. `Err` when the case could not be run.
async fn judge(
    cases: &[Case],
    dir: &Path,
    tag: &str,
    settings: &Arc<RunSettings>,
    jobs: usize,
) -> Result<Vec<Option<(String, String)>>, Fatal> {
    let mut scenarios = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let profile = profile_name(c);
        let path = dir.join(format!("{tag}-{i}.toml"));
        let text = render::render(c, &format!("{profile}/fuzz-{tag}-{i}"), "generated", &[]);
        std::fs::write(&path, text).map_err(|e| {
            Fatal(
                exit_code::COULD_NOT_RUN,
                format!("cannot write {}: {e}", path.display()),
            )
        })?;
        scenarios.push(parse_scenario_file(&path).map_err(|d| {
            Fatal(
                exit_code::COULD_NOT_RUN,
                format!("a generated scenario does not parse (a fuzz bug):\n{d}"),
            )
        })?);
    }
    let (_stop, cancel) = tokio::sync::watch::channel(false);
    let (results, _) = run_all(scenarios, settings.clone(), jobs, cancel, |_, _, _| {}).await;
    results.iter().map(verdict).collect()
}

fn verdict(r: &ScenarioResult) -> Result<Option<(String, String)>, Fatal> {
    match r.status {
        Status::Passed | Status::ExpectedFailure | Status::Skipped => Ok(None),
        Status::Error => Err(Fatal(
            exit_code::COULD_NOT_RUN,
            format!(
                "a generated case could not be run: {}",
                r.note.clone().unwrap_or_default()
            ),
        )),
        _ => {
            let f = r.failures.iter().find(|f| f.seed_choice.is_none());
            Ok(f.map(|f| {
                (
                    oracle::invariant_of(&f.expectation, &f.place).to_string(),
                    format!(
                        "{}: {} expected {}, observed {}",
                        f.place, f.expectation, f.expected, f.observed
                    ),
                )
            })
            .or_else(|| {
                (r.status == Status::TimedOut)
                    .then(|| ("no-process-left".into(), "the scenario timed out".into()))
            }))
        }
    }
}

fn profile_name(c: &Case) -> &'static str {
    match c {
        Case::Oneshot(_) => "oneshot",
        Case::Session(_) => "session",
    }
}

/// Shrinks `tree` (proptest's simplify/complicate walk) while its case keeps breaking
/// `invariant`; returns the smallest case that still does.
async fn shrink(
    mut tree: Box<dyn ValueTree<Value = Case>>,
    invariant: &str,
    dir: &Path,
    settings: &Arc<RunSettings>,
) -> Result<Case, Fatal> {
    let mut best = tree.current();
    if !tree.simplify() {
        return Ok(best);
    }
    for run in 0..MAX_SHRINK_RUNS {
        let candidate = tree.current();
        let v = judge(
            std::slice::from_ref(&candidate),
            dir,
            &format!("shrink{run}"),
            settings,
            1,
        )
        .await?;
        if matches!(&v[0], Some((inv, _)) if inv == invariant) {
            best = candidate;
            if !tree.simplify() {
                break;
            }
        } else if !tree.complicate() {
            break;
        }
    }
    Ok(best)
}

async fn fuzz_inner(args: FuzzArgs) -> Result<i32, Fatal> {
    let strategy = strategy(args.profile)?;
    if args.cases == 0 {
        return Err(Fatal(
            exit_code::BAD_INPUT,
            "--cases must be at least 1".into(),
        ));
    }
    let budget = match &args.time_budget {
        Some(s) => Some(GoDuration::parse(s).map_err(|_| {
            Fatal(
                exit_code::BAD_INPUT,
                format!("--time-budget `{s}` is not a Go duration (e.g. `30s`, `5m`)"),
            )
        })?),
        None => None,
    };
    let settings = Arc::new(settings(&args)?);
    let profile = args.profile;
    if !settings.config.adapter.profiles.contains(&profile) {
        return Err(Fatal(
            exit_code::BAD_INPUT,
            format!("the adapter does not implement the `{profile}` profile"),
        ));
    }
    let jobs = crate::catalogue_run::jobs(&CommonArgs::for_generated(
        args.jobs,
        args.time_scale,
        None,
        None,
    ));
    let work = tempfile::tempdir().map_err(|e| {
        Fatal(
            exit_code::COULD_NOT_RUN,
            format!("no temporary folder: {e}"),
        )
    })?;
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&args.seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
    );
    let started = Instant::now();
    let mut run = 0;
    let mut findings = Vec::new();
    'outer: while run < args.cases {
        if budget.is_some_and(|b| started.elapsed() >= b.0) {
            break;
        }
        let batch = jobs.min(args.cases - run);
        let mut trees = Vec::new();
        for _ in 0..batch {
            trees.push(
                strategy.new_tree(&mut runner).map_err(|e| {
                    Fatal(exit_code::COULD_NOT_RUN, format!("generation failed: {e}"))
                })?,
            );
        }
        let cases: Vec<Case> = trees.iter().map(|t| t.current()).collect();
        let verdicts = judge(&cases, work.path(), &format!("case{run}"), &settings, jobs).await?;
        for (i, (tree, v)) in trees.into_iter().zip(verdicts).enumerate() {
            let Some((invariant, detail)) = v else {
                continue;
            };
            let number = run + i + 1;
            let shrunk = shrink(tree, &invariant, work.path(), &settings).await?;
            let scenario = write_finding(&args, &shrunk, &invariant, number)?;
            findings.push(Finding {
                invariant,
                seed: args.seed,
                case: number,
                scenario,
                detail,
            });
            run += i + 1;
            break 'outer;
        }
        run += batch;
    }
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    let report = FuzzReport {
        profile: args.profile.as_str().into(),
        seed: args.seed,
        cases_run: run,
        cases_per_second: f64::from(u32::try_from(run).unwrap_or(u32::MAX)) / secs,
        violations: findings,
    };
    print_summary(&report);
    if let Some(path) = &args.report_json {
        let text = serde_json::to_string_pretty(&report).unwrap_or_default();
        std::fs::write(path, text + "\n").map_err(|e| {
            Fatal(
                exit_code::COULD_NOT_RUN,
                format!("cannot write {}: {e}", path.display()),
            )
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
    c: &Case,
    invariant: &str,
    number: usize,
) -> Result<PathBuf, Fatal> {
    let profile = profile_name(c);
    let stem = format!("fuzz-{invariant}-{}-{number}", args.seed);
    let dir = args.out.join(profile);
    let path = dir.join(format!("{stem}.toml"));
    let description = format!(
        "Found by agy-harness fuzz and shrunk: the generated agy behaviour below must keep the `{invariant}` invariant (expectations written by the fuzz oracle)."
    );
    let comment = vec![
        format!(
            "agy-harness fuzz --profile {profile} --seed {} (case {number})",
            args.seed
        ),
        format!("violated invariant: {invariant}"),
        format!("case: {c:?}"),
    ];
    let text = render::render(c, &format!("{profile}/{stem}"), &description, &comment);
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&path, text))
        .map_err(|e| {
            Fatal(
                exit_code::COULD_NOT_RUN,
                format!("cannot write {}: {e}", path.display()),
            )
        })?;
    Ok(path)
}

fn print_summary(r: &FuzzReport) {
    println!(
        "fuzz {}: {} case(s), seed {}, {:.1} cases/s",
        r.profile, r.cases_run, r.seed, r.cases_per_second
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
