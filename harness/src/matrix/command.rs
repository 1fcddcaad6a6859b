//! `agy-harness matrix`: one catalogue run per agy version through the shared runner
//! (`run_catalogue`), each with `FAKE_AGY_VERSION` set, gathered into a [`Matrix`].

use super::args::{MatrixArgs, UncertainChoice};
use super::table::Matrix;
use crate::adapter_config::AdapterConfig;
use crate::binaries::{adapter_config, fake_agy, fake_agy_acp};
use crate::catalogue_run::{run_catalogue, select_scenarios};
use crate::exit_code;
use crate::fatal::HarnessError;
use crate::report::{ReportFormat, ReportTarget, RunReport};
use crate::runner::RunSettings;
use crate::scenario::Scenario;
use agy_protocol::version_evidence::{uncertain_at, UncertainSide};
use agy_protocol::{AgyVersion, MODELLED_VERSIONS};
use anstream::{AutoStream, ColorChoice};
use std::io::Write;

/// Runs `agy-harness matrix`; returns the exit code.
pub async fn matrix_command(args: MatrixArgs, choice: ColorChoice) -> i32 {
    match matrix_inner(args, choice).await {
        Ok(code) => code,
        Err(f) => f.report(),
    }
}

/// The scenarios of the profiles the adapter implements; the others are said and left
/// out, so a column's "passed / applicable" counts only cells that could pass.
fn of_its_profiles(scenarios: Vec<Scenario>, config: &AdapterConfig) -> Vec<Scenario> {
    let (its, others): (Vec<Scenario>, Vec<Scenario>) = scenarios
        .into_iter()
        .partition(|s| config.adapter.profiles.contains(&s.meta.profile));
    if !others.is_empty() {
        eprintln!(
            "note: {} scenario(s) of profiles `{}` does not implement are left out of the table",
            others.len(),
            config.adapter.name
        );
    }
    its
}

/// The scenarios whose `versions` include `version`.
fn applicable_to(scenarios: &[Scenario], version: AgyVersion) -> Vec<Scenario> {
    scenarios
        .iter()
        .filter(|s| s.meta.versions.as_ref().is_none_or(|r| r.contains(version)))
        .cloned()
        .collect()
}

/// The sides of its uncertain behaviours a column runs under (`None`: the version
/// model's). `--uncertain both` adds `before` and `after` only where the record leaves
/// some behaviour uncertain at `version`; those behaviours are noted in the table.
fn sides_at(
    version: AgyVersion,
    choice: UncertainChoice,
    matrix: &mut Matrix,
) -> Vec<Option<UncertainSide>> {
    let edges = uncertain_at(version);
    if choice == UncertainChoice::Both && !edges.is_empty() {
        let names: Vec<String> = edges.iter().map(|e| e.behaviour.to_string()).collect();
        eprintln!(
            "agy {version}: also with FAKE_AGY_UNCERTAIN=before and =after ({} uncertain: {})",
            names.len(),
            names.join(", ")
        );
        matrix.uncertain.insert(version, names);
    }
    choice
        .sides()
        .iter()
        .copied()
        .filter(|s| s.is_none() || choice != UncertainChoice::Both || !edges.is_empty())
        .collect()
}

/// The kept sandboxes of `report`: a line for each failed cell naming its folder; the
/// folders of the other cells are removed (a matrix keeps what there is to inspect).
fn failed_cells_sandboxes(version: AgyVersion, report: &RunReport) -> Vec<String> {
    let mut lines = Vec::new();
    for r in &report.results {
        let Some(dir) = &r.sandbox else { continue };
        if r.status.fails_run() {
            lines.push(format!("agy {version} {}: sandbox kept at {dir}", r.name));
        } else {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
    lines
}

async fn matrix_inner(args: MatrixArgs, choice: ColorChoice) -> Result<i32, HarnessError> {
    if let Some(t) = args.report.iter().find(|t| t.format == ReportFormat::Junit) {
        return Err(HarnessError::bad_input(format!(
            "`junit={}`: the matrix is written as `json=PATH`, `markdown=PATH` or `html=PATH`",
            t.path.display()
        )));
    }
    let config = adapter_config(
        args.target.adapter.as_deref(),
        &args.target.fault,
        &args.common.runner,
    )?;
    let scenarios = of_its_profiles(select_scenarios(&args.common)?, &config);
    let versions: Vec<AgyVersion> = if args.versions.is_empty() {
        MODELLED_VERSIONS.to_vec()
    } else {
        args.versions.clone()
    };
    let fake = fake_agy(&args.common.runner)?;
    let fake_acp = fake_agy_acp(&args.common.runner, &scenarios, &config.adapter.profiles)?;
    let jobs = args.common.runner.jobs();
    let mut matrix = Matrix::new(config.adapter.name.clone(), versions.clone());
    for s in &scenarios {
        matrix.add_row(&s.meta.name, &s.meta.profile.to_string());
    }
    let mut err = std::io::stderr();
    let mut kept = Vec::new();
    for (col, version) in versions.iter().enumerate() {
        let applicable = applicable_to(&scenarios, *version);
        if !config.adapter.supports(*version) {
            let _ = writeln!(err, "agy {version}: unsupported by the adapter config");
            let names: Vec<String> = applicable.iter().map(|s| s.meta.name.clone()).collect();
            matrix.mark_unsupported(col, &names);
            continue;
        }
        let _ = writeln!(err, "agy {version}: {} scenario(s)", applicable.len());
        for side in sides_at(*version, args.uncertain, &mut matrix) {
            let settings = RunSettings {
                config: config.clone(),
                fake_agy: fake.clone(),
                fake_agy_acp: fake_acp.clone(),
                time_scale: args.common.runner.time_scale,
                keep_sandboxes: args.keep_sandboxes,
                live: None,
                agy_version: Some(*version),
                uncertain: side,
                calibration: None,
            };
            let selection = applicable.clone();
            let report =
                run_catalogue(selection, settings, jobs, false, &mut std::io::sink()).await?;
            kept.extend(failed_cells_sandboxes(*version, &report));
            matrix.fill_side(col, &report, side);
            if !report.complete {
                return Ok(exit_code::COULD_NOT_RUN);
            }
        }
    }
    Ok(show(&matrix, &kept, &args.report, choice))
}

/// Prints the table and the kept sandboxes, writes the asked-for reports; returns the
/// exit code (1 when a cell failed, 3 when a report could not be written).
fn show(matrix: &Matrix, kept: &[String], reports: &[ReportTarget], choice: ColorChoice) -> i32 {
    let mut out = AutoStream::new(std::io::stdout(), choice);
    let _ = write!(out, "{}", matrix.to_text());
    for line in kept {
        let _ = writeln!(out, "{line}");
    }
    let mut code = if matrix.any_failed() {
        exit_code::SCENARIO_FAILED
    } else {
        exit_code::ALL_CONFORM
    };
    for target in reports {
        let text = match target.format {
            ReportFormat::Markdown => Ok(matrix.to_markdown()),
            ReportFormat::Html => Ok(matrix.to_html()),
            _ => matrix
                .to_json()
                .map_err(|e| HarnessError::could_not_run(format!("failed to render JSON: {e}"))),
        };
        let written = text.and_then(|t| {
            crate::keep::write_kept(&target.path, t).map_err(|e| {
                HarnessError::could_not_run(format!(
                    "failed to write `{}`: {e}",
                    target.path.display()
                ))
            })
        });
        if let Err(e) = written {
            code = code.max(e.report());
        }
    }
    code
}
