//! `agy-harness fidelity`: fake-agy's default behaviour against every capture.

use super::baseline::{load_baseline, Baseline, Found};
use super::capture_shape::{expected_shape, observed_shape};
use super::compare::{compare_shapes, Difference};
use super::decisions::model_decisions;
use super::first_sight::first_sight_score;
use super::report::{CaptureResult, FidelityReport, Outcome, ReportedDifference};
use super::run::{run_default, RunWith};
use crate::exit_code;
use crate::fatal::HarnessError;
use crate::report::{ReportFormat, ReportTarget};
use agy_protocol::capture::{load_corpus, read_transformed, Capture, CaptureKind, Corpus};
use agy_protocol::env::AGY_HARNESS_FAKE_AGY;
use agy_protocol::TimeScale;
use clap::Args;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The baseline's name inside the corpus folder.
pub const BASELINE_FILE: &str = "fidelity-baseline.toml";

/// `agy-harness fidelity`.
#[derive(Debug, Clone, Args)]
pub struct FidelityArgs {
    /// Capture ids to compare (default: every capture of the corpus).
    #[arg(value_name = "CAPTURE")]
    pub captures: Vec<String>,
    /// The corpus folder holding corpus.toml (default: `traces/`).
    #[arg(long, value_name = "DIR")]
    pub traces: Option<PathBuf>,
    /// Also write a report: `json=PATH` or `markdown=PATH` (repeatable).
    #[arg(long, value_name = "FORMAT=PATH", value_parser = crate::report::parse_report_target)]
    pub report: Vec<ReportTarget>,
    /// The accepted divergences (default: `fidelity-baseline.toml` in the corpus folder,
    /// when it exists; without one, every difference is new).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// The fake-agy binary (default: next to agy-harness).
    #[arg(long, value_name = "BIN", env = AGY_HARNESS_FAKE_AGY)]
    pub fake_agy: Option<PathBuf>,
    /// Write the run's verdicts as the baseline to FILE: counts, skips and divergences
    /// (keeping the reasons the current baseline gives; the others get `--reason`),
    /// then exit 0. Only over the whole corpus.
    #[arg(long, value_name = "FILE", requires = "reason")]
    pub write_baseline: Option<PathBuf>,
    /// The reason written for differences the current baseline does not list.
    #[arg(long, value_name = "TEXT", requires = "write_baseline")]
    pub reason: Option<String>,
    /// List the version-model behaviours the record leaves uncertain at agy version V,
    /// and the evidence V falls back to; compares no capture.
    #[arg(long = "version", value_name = "V", conflicts_with_all = ["captures", "write_baseline"])]
    pub agy_version: Option<agy_protocol::AgyVersion>,
    /// Multiply fake-agy's delays by this factor (shapes do not depend on it).
    #[arg(long, value_name = "FACTOR", default_value = "0.05", value_parser = TimeScale::parse_positive)]
    pub time_scale: TimeScale,
    /// Score fake-agy presenting this calibration file (docs/calibration-format.md) as
    /// agy, instead of the built-in one of each capture's version (the baseline stays
    /// the default fake's: no `--write-baseline`).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["agy_version", "write_baseline"])]
    pub calibration: Option<PathBuf>,
}

/// The corpus folder: `--traces`, else `./traces`, else the source tree's.
pub fn traces_dir(arg: Option<&Path>) -> PathBuf {
    if let Some(p) = arg {
        return p.to_path_buf();
    }
    let here = PathBuf::from("traces");
    if here.join(agy_protocol::capture::CORPUS_FILE).is_file() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("traces")
}

/// Loads the corpus, reporting its problems as bad input.
fn load_corpus_dir(dir: &Path) -> Result<Corpus, HarnessError> {
    load_corpus(dir).map_err(|d| {
        eprint!("{d}");
        HarnessError::bad_input(format!("{} problem(s) in the capture corpus", d.len()))
    })
}

/// Runs the command; returns the exit code.
pub async fn fidelity_command(args: FidelityArgs) -> i32 {
    match fidelity(args).await {
        Ok(code) => code,
        Err(f) => f.report(),
    }
}

async fn fidelity(args: FidelityArgs) -> Result<i32, HarnessError> {
    if let Some(v) = args.agy_version {
        print!("{}", super::uncertain::uncertain_report(v));
        return Ok(exit_code::ALL_CONFORM);
    }
    let not_ours = |f| !matches!(f, ReportFormat::Json | ReportFormat::Markdown);
    if let Some(t) = args.report.iter().find(|t| not_ours(t.format)) {
        return Err(HarnessError::bad_input(format!(
            "fidelity writes json and markdown reports, not junit or html (`{}`)",
            t.path.display()
        )));
    }
    if args.write_baseline.is_some() && !args.captures.is_empty() {
        return Err(HarnessError::bad_input(
            "`--write-baseline` writes the whole corpus's verdicts; run it without capture ids",
        ));
    }
    let dir = traces_dir(args.traces.as_deref());
    let corpus = load_corpus_dir(&dir)?;
    let selected = select(&corpus, &args.captures)?;
    let baseline = baseline(&dir, args.baseline.as_deref(), &corpus)?;
    let fake = crate::binaries::fake_agy_at(args.fake_agy.as_deref())?;
    let calibration = crate::calibration_file::check_calibration(args.calibration.as_deref())?;
    let run = RunWith {
        fake: &fake,
        calibration: calibration.as_deref(),
        time_scale: args.time_scale,
    };
    let mut results = Vec::new();
    let mut found = Found {
        whole: args.captures.is_empty(),
        ..Found::default()
    };
    for c in selected {
        let measured = measure(&dir, &run, c).await?;
        results.push(result_of(c, measured, &baseline, &mut found));
    }
    let verdict = baseline.judge(&found);
    let mut report = FidelityReport::new(dir.display().to_string(), results, &verdict);
    report.first_sight = first_sight_score(&corpus);
    print!("{}", report.to_terminal());
    for t in &args.report {
        let text = match t.format {
            ReportFormat::Markdown => report.to_markdown(),
            _ => report.to_json(),
        };
        crate::keep::write_kept(&t.path, text).map_err(|e| {
            HarnessError::could_not_run(format!("failed to write `{}`: {e}", t.path.display()))
        })?;
    }
    if let (Some(path), Some(reason)) = (&args.write_baseline, &args.reason) {
        crate::keep::write_kept(path, baseline.render_with(&found, reason)).map_err(|e| {
            HarnessError::could_not_run(format!("failed to write `{}`: {e}", path.display()))
        })?;
        println!("baseline written to {}", path.display());
        return Ok(exit_code::ALL_CONFORM);
    }
    Ok(if report.holds {
        exit_code::ALL_CONFORM
    } else {
        exit_code::SCENARIO_FAILED
    })
}

/// One capture's line of the report, its verdict noted in `found`.
fn result_of(
    c: &Capture,
    measured: Measured,
    baseline: &Baseline,
    found: &mut Found,
) -> CaptureResult {
    let outcome = match measured {
        Measured::Skipped(reason) => {
            found.skipped.insert(c.id.clone(), reason.clone());
            Outcome::Skipped {
                accepted: baseline.skip_reason(&c.id).map(String::from),
                reason,
            }
        }
        Measured::Compared(diffs) => {
            found.compared.insert(c.id.clone(), diffs.clone());
            outcome_of(baseline, &c.id, diffs)
        }
    };
    CaptureResult {
        id: c.id.clone(),
        agy_version: c
            .version()
            .map(|v| v.to_string())
            .unwrap_or_else(|| "unknown".into()),
        kind: c.kind.as_str().into(),
        rests_on: rests_on(c),
        outcome,
    }
}

enum Measured {
    Skipped(String),
    Compared(Vec<Difference>),
}

/// Compares one capture with fake-agy's default run of its argv and stdin.
async fn measure(dir: &Path, run: &RunWith<'_>, c: &Capture) -> Result<Measured, HarnessError> {
    if c.kind == CaptureKind::Acp {
        return Ok(Measured::Skipped(
            "an ACP transcript: fake-agy-acp is not measured here".into(),
        ));
    }
    let Some(argv) = c.argv() else {
        return Ok(Measured::Skipped("argv unknown".into()));
    };
    let expected = expected_shape(dir, c)
        .map_err(|e| HarnessError::bad_input(format!("capture `{}`: {e}", c.id)))?;
    if expected.records_nothing() {
        return Ok(Measured::Skipped(
            "records nothing the measure compares (no exit code, stdout, stderr or log)".into(),
        ));
    }
    let interrupted = c.host.as_ref().is_some_and(|h| h.interrupt.is_some());
    let stated = c.host.as_ref().map(|h| h.model.clone()).unwrap_or_default();
    let decisions = match &c.files.stdout {
        // The record states what the model did where its kept lines do not show it.
        _ if !stated.is_empty() => stated,
        Some(rel) => read_transformed(dir, c, "stdout", rel)
            .map(|bytes| model_decisions(c.kind, &bytes, interrupted))
            .map_err(|e| HarnessError::bad_input(format!("capture `{}`: {e}", c.id)))?,
        None => Vec::new(),
    };
    let out = run_default(run, c, argv, &decisions)
        .await
        .map_err(|e| HarnessError::could_not_run(format!("capture `{}`: {e}", c.id)))?;
    Ok(Measured::Compared(compare_shapes(
        &expected,
        &observed_shape(c, &out),
    )))
}

fn outcome_of(baseline: &Baseline, id: &str, diffs: Vec<Difference>) -> Outcome {
    if diffs.is_empty() {
        return Outcome::Same;
    }
    let differences = diffs
        .into_iter()
        .map(|d| ReportedDifference {
            accepted: baseline.reason(id, &d).map(String::from),
            difference: d,
        })
        .collect();
    Outcome::Different { differences }
}

/// What a capture's comparison rests on besides agy's own bytes: lines or values the
/// publisher trimmed (`elided`), model decisions the record states (`host.model`).
fn rests_on(c: &Capture) -> Vec<String> {
    let mut out = Vec::new();
    if !c.elided.is_empty() {
        out.push("elided".to_string());
    }
    if c.host.as_ref().is_some_and(|h| !h.model.is_empty()) {
        out.push("host.model".to_string());
    }
    out
}

fn select<'c>(corpus: &'c Corpus, ids: &[String]) -> Result<Vec<&'c Capture>, HarnessError> {
    if ids.is_empty() {
        return Ok(corpus.captures.iter().collect());
    }
    ids.iter()
        .map(|id| {
            corpus.find(id).ok_or_else(|| {
                let known: Vec<&str> = corpus.captures.iter().map(|c| c.id.as_str()).collect();
                let hint = agy_protocol::diag::closest(id, known.iter().copied())
                    .map(|b| format!("; did you mean `{b}`?"))
                    .unwrap_or_default();
                HarnessError::bad_input(format!("the corpus has no capture `{id}`{hint}"))
            })
        })
        .collect()
}

fn baseline(dir: &Path, arg: Option<&Path>, corpus: &Corpus) -> Result<Baseline, HarnessError> {
    let default = dir.join(BASELINE_FILE);
    let path = match arg {
        Some(p) => p.to_path_buf(),
        None if default.is_file() => default,
        None => return Ok(Baseline::default()),
    };
    let known: BTreeSet<String> = corpus.captures.iter().map(|c| c.id.clone()).collect();
    load_baseline(&path, &known).map_err(|d| {
        eprint!("{d}");
        HarnessError::bad_input(format!("{} problem(s) in the baseline", d.len()))
    })
}
