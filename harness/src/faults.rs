//! The bug-detection score: the catalogue against the correct reference adapter (every
//! scenario must pass) and against each of its fault variants (each must fail at least
//! one scenario, named with the broken expectation).

use crate::adapter_config::AdapterConfig;
pub use crate::binaries::list_faults;
use crate::binaries::{fake_agy, fake_agy_acp, reference_adapter};
use crate::catalogue_run::{run_catalogue, select_scenarios};
use crate::exit_code;
use crate::fatal::HarnessError;
use crate::options::CommonArgs;
use crate::report::{RunReport, Status};
use crate::runner::RunSettings;
use crate::scenario::Scenario;
use agy_protocol::fault::FaultInfo;
use anstream::{AutoStream, ColorChoice};
use anstyle::{AnsiColor, Style};
use clap::Args;
use std::io::Write;

/// `agy-harness faults`.
#[derive(Debug, Clone, Args)]
pub struct FaultsArgs {
    /// Scenario selection and run settings.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Only these faults (repeatable; default: every fault the adapter lists).
    #[arg(long, value_name = "NAME")]
    pub fault: Vec<String>,
}

const GREEN: Style = AnsiColor::Green.on_default();
const RED: Style = AnsiColor::Red.on_default();
const YELLOW: Style = AnsiColor::Yellow.on_default();

fn broken(report: &RunReport) -> Vec<String> {
    report
        .results
        .iter()
        .filter(|r| r.status.fails_run())
        .map(|r| match r.failures.first() {
            Some(f) => format!(
                "{} — {} (expected {}, observed {})",
                r.name,
                f.headline(),
                f.expected,
                f.observed
            ),
            None => format!("{} — {}", r.name, r.status.word()),
        })
        .collect()
}

/// `agy-harness faults`.
pub async fn faults_command(args: FaultsArgs, choice: ColorChoice) -> i32 {
    match faults_inner(args, choice).await {
        Ok(code) => code,
        Err(f) => f.report(),
    }
}

async fn faults_inner(args: FaultsArgs, choice: ColorChoice) -> Result<i32, HarnessError> {
    let bin = reference_adapter(&args.common.runner)?;
    let fake = fake_agy(&args.common.runner)?;
    let mut faults = list_faults(&bin)?;
    if !args.fault.is_empty() {
        faults.retain(|f| args.fault.contains(&f.name));
    }
    let scenarios = select_scenarios(&args.common)?;
    let fake_acp = fake_agy_acp(
        &args.common.runner,
        &scenarios,
        &agy_protocol::profile::Profile::ALL,
    )?;
    let settings = |extra: &[String]| RunSettings {
        config: AdapterConfig::reference(&bin, extra),
        fake_agy: fake.clone(),
        fake_agy_acp: fake_acp.clone(),
        time_scale: args.common.runner.time_scale,
        keep_sandboxes: false,
        live: None,
        agy_version: None,
        uncertain: None,
        calibration: None,
    };
    // A fault of a profile with no selected scenario cannot be judged: it is not scored.
    let (scored, unscored): (Vec<Variant<'_>>, Vec<Variant<'_>>) = faults
        .iter()
        .map(|fault| Variant {
            fault,
            selected: scenarios
                .iter()
                .filter(|s| s.meta.profile == fault.profile)
                .cloned()
                .collect(),
        })
        .partition(|v| !v.selected.is_empty());
    let Some((baseline, reports)) =
        run_variants(&scenarios, &scored, settings, args.common.runner.jobs()).await?
    else {
        return Ok(exit_code::COULD_NOT_RUN);
    };
    let mut out = AutoStream::new(std::io::stdout(), choice);
    let base_failed = broken(&baseline);
    let _ = writeln!(
        out,
        "baseline: {} passed, {} failed against the correct reference adapter",
        baseline.count(Status::Passed),
        base_failed.len()
    );
    for b in &base_failed {
        let _ = writeln!(out, "  {RED}✗{RED:#} {b}");
    }
    let mut caught = 0;
    let mut false_claims: Vec<String> = Vec::new();
    for (variant, report) in scored.iter().zip(reports) {
        false_claims.extend(false_claims_of(variant, &report));
        if write_variant(&mut out, variant, &report) {
            caught += 1;
        }
    }
    let unscored: Vec<&FaultInfo> = unscored.iter().map(|v| v.fault).collect();
    let score = Score {
        caught,
        total: scored.len(),
        base_failed: base_failed.len(),
    };
    write_score(&mut out, &score, &unscored, &false_claims);
    Ok(
        if score.perfect() && score.total > 0 && false_claims.is_empty() {
            exit_code::ALL_CONFORM
        } else {
            exit_code::SCENARIO_FAILED
        },
    )
}

/// A fault switched on, and the scenarios of its profile that judge it.
struct Variant<'f> {
    fault: &'f FaultInfo,
    selected: Vec<Scenario>,
}

/// Runs the catalogue against the correct adapter and against every variant, all at
/// once: a run mostly waits on scripted delays, so the runs share the CPUs well; each
/// keeps its own `--jobs` bound. Returns the baseline and each variant's report in
/// order, or `None` when a run was interrupted.
async fn run_variants(
    scenarios: &[Scenario],
    scored: &[Variant<'_>],
    settings: impl Fn(&[String]) -> RunSettings,
    jobs: usize,
) -> Result<Option<(RunReport, Vec<RunReport>)>, HarnessError> {
    let mut runs = tokio::task::JoinSet::new();
    let plan = std::iter::once((scenarios.to_vec(), Vec::new())).chain(scored.iter().map(|v| {
        (
            v.selected.clone(),
            vec!["--fault".to_string(), v.fault.name.clone()],
        )
    }));
    for (at, (run, extra)) in plan.enumerate() {
        let config = settings(&extra);
        runs.spawn(async move {
            let report = run_catalogue(run, config, jobs, true, &mut std::io::sink()).await;
            (at, report)
        });
    }
    let mut reports: Vec<Option<RunReport>> = (0..=scored.len()).map(|_| None).collect();
    while let Some(joined) = runs.join_next().await {
        let (at, report) = joined
            .map_err(|e| HarnessError::could_not_run(format!("a catalogue run failed: {e}")))?;
        let report = report?;
        if !report.complete {
            return Ok(None);
        }
        reports[at] = Some(report);
    }
    let mut reports = reports.into_iter().flatten();
    Ok(reports.next().map(|baseline| (baseline, reports.collect())))
}

/// Scenarios that claim the variant's fault (`catches`) but passed with it on.
fn false_claims_of(variant: &Variant<'_>, report: &RunReport) -> Vec<String> {
    let fault = &variant.fault.name;
    report
        .results
        .iter()
        .filter(|r| !r.status.fails_run())
        .filter(|r| {
            variant
                .selected
                .iter()
                .any(|s| s.meta.name == r.name && s.meta.catches.contains(fault))
        })
        .map(|r| {
            format!(
                "{} claims `catches = [\"{fault}\"]` but passed with that fault",
                r.name
            )
        })
        .collect()
}

/// Writes whether the variant was caught, and by which scenarios; true when caught.
fn write_variant(out: &mut impl Write, variant: &Variant<'_>, report: &RunReport) -> bool {
    let fault = variant.fault;
    let hits = broken(report);
    if hits.is_empty() {
        let _ = writeln!(
            out,
            "{RED}✗ {}{RED:#} ({}) not caught: all {} {} scenarios passed\n    bug: {}",
            fault.name,
            fault.profile,
            variant.selected.len(),
            fault.profile,
            fault.bug
        );
        return false;
    }
    let _ = writeln!(
        out,
        "{GREEN}✓ {}{GREEN:#} ({}) caught by {} scenario(s)\n    bug: {}",
        fault.name,
        fault.profile,
        hits.len(),
        fault.bug
    );
    for h in &hits {
        let _ = writeln!(out, "    {h}");
    }
    true
}

/// The bug-detection score.
struct Score {
    caught: usize,
    total: usize,
    base_failed: usize,
}

impl Score {
    /// Every scored fault caught, and the correct adapter passes.
    fn perfect(&self) -> bool {
        self.caught == self.total && self.base_failed == 0
    }
}

/// Writes the score, the faults that could not be scored and the false claims.
fn write_score(
    out: &mut impl Write,
    score: &Score,
    unscored: &[&FaultInfo],
    false_claims: &[String],
) {
    let Score { caught, total, .. } = *score;
    let pct = if total == 0 {
        0.0
    } else {
        100.0 * caught as f64 / total as f64
    };
    let style = if score.perfect() { GREEN } else { RED };
    let _ = writeln!(
        out,
        "\n{style}bug-detection score: {caught}/{total} ({pct:.0}%){style:#}"
    );
    if !unscored.is_empty() {
        let names: Vec<String> = unscored
            .iter()
            .map(|f| format!("{} ({})", f.name, f.profile))
            .collect();
        let _ = writeln!(
            out,
            "{YELLOW}not scored: {} fault(s) of profiles with no selected scenario: {}{YELLOW:#}",
            unscored.len(),
            names.join(", ")
        );
    }
    for c in false_claims {
        let _ = writeln!(out, "{RED}✗ {c}{RED:#}");
    }
}
