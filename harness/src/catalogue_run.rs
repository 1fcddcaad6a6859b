//! The scenarios a command runs and the run itself: loading and selecting them, and
//! the catalogue run with its progress lines.

use crate::adapter_config::AdapterConfig;
use crate::fatal::HarnessError;
use crate::interrupt::cancel_on_signals;
use crate::locate::default_catalogue;
use crate::options::{CommonArgs, ScenarioArgs};
use crate::report::{write_progress, RunReport, Status};
use crate::runner::{run_all, RunSettings};
use crate::scenario::{load_catalogue, Scenario, Selection};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// Loads and selects the scenarios of `common`.
pub(crate) fn select_scenarios(common: &CommonArgs) -> Result<Vec<Scenario>, HarnessError> {
    load_and_select(&common.source, &common.selection()).map(|(selected, _)| selected)
}

/// Loads the scenarios of `source`: those `selection` keeps, and every known name (those
/// loaded and, when paths were given, the default catalogue's).
pub(crate) fn load_and_select(
    source: &ScenarioArgs,
    selection: &Selection,
) -> Result<(Vec<Scenario>, Vec<String>), HarnessError> {
    let paths: Vec<PathBuf> = if source.paths.is_empty() {
        vec![default_catalogue(source.scenarios.as_deref())?]
    } else {
        source.paths.clone()
    };
    let catalogue = load_catalogue(&paths).map_err(|d| {
        eprint!("{d}");
        HarnessError::bad_input(format!(
            "{} problem(s) in the scenario files; nothing was run",
            d.len()
        ))
    })?;
    let selected = selection.apply(&catalogue).into_iter().cloned().collect();
    let mut names: Vec<String> = catalogue
        .scenarios
        .into_iter()
        .map(|s| s.meta.name)
        .collect();
    if !source.paths.is_empty() {
        let default = default_catalogue(source.scenarios.as_deref())
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

/// Fails a run that would execute no scenario: nothing selected, or nothing of a
/// profile the adapter implements (unless `--allow-empty`).
pub(crate) fn ensure_something_runs(
    scenarios: &[Scenario],
    config: &AdapterConfig,
    common: &CommonArgs,
) -> Result<(), HarnessError> {
    let hint = "nothing was run; pass `--allow-empty` to accept an empty run";
    if scenarios.is_empty() {
        return Err(HarnessError::bad_input(format!(
            "no scenario matches the selection ({}); {hint}",
            describe_selection(common)
        )));
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
        return Err(HarnessError::bad_input(format!(
            "the {} selected scenario(s) are of profile {}, and `{}` implements {}; {hint}",
            scenarios.len(),
            selected.join(", "),
            config.adapter.name,
            if implemented.is_empty() {
                "none".to_string()
            } else {
                implemented.join(", ")
            }
        )));
    }
    Ok(())
}

/// The selection options of `common`, as a user typed them.
fn describe_selection(common: &CommonArgs) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.extend(
        common
            .source
            .paths
            .iter()
            .map(|p| format!("`{}`", p.display())),
    );
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
) -> Result<RunReport, HarnessError> {
    let cancel = cancel_on_signals()
        .map_err(|e| HarnessError::could_not_run(format!("failed to listen for SIGINT: {e}")))?;
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
