//! The bug-detection score: the catalogue against the correct reference adapter (every
//! scenario must pass) and against each of its fault variants (each must fail at least
//! one scenario, named with the broken expectation).

use crate::adapter_config::AdapterConfig;
use crate::app::{
    fake_agy, fake_agy_acp, jobs, reference_adapter, run_catalogue, select_scenarios, Fatal,
};
use crate::cli::FaultsArgs;
use crate::exit_code;
use crate::report::{RunReport, Status};
use crate::runner::RunSettings;
use crate::scenario::Scenario;
use agy_protocol::fault::{parse_fault_list, FaultInfo};
use anstream::{AutoStream, ColorChoice};
use anstyle::{AnsiColor, Style};
use std::io::Write;
use std::path::Path;

const GREEN: Style = AnsiColor::Green.on_default();
const RED: Style = AnsiColor::Red.on_default();
const YELLOW: Style = AnsiColor::Yellow.on_default();

/// Asks the reference adapter for its faults.
pub fn list_faults(bin: &Path) -> Result<Vec<FaultInfo>, String> {
    let out = std::process::Command::new(bin)
        .arg("--list-faults")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("failed to run `{} --list-faults`: {e}", bin.display()))?;
    if !out.status.success() {
        return Err(format!(
            "`{} --list-faults` failed ({}): {}",
            bin.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    parse_fault_list(&String::from_utf8_lossy(&out.stdout))
}

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

async fn faults_inner(args: FaultsArgs, choice: ColorChoice) -> Result<i32, Fatal> {
    let bin = reference_adapter(&args.common)?;
    let fake = fake_agy(&args.common)?;
    let mut faults = list_faults(&bin).map_err(|e| Fatal(exit_code::COULD_NOT_RUN, e))?;
    if !args.fault.is_empty() {
        faults.retain(|f| args.fault.contains(&f.name));
    }
    let scenarios = select_scenarios(&args.common)?;
    let fake_acp = fake_agy_acp(&args.common, &scenarios)?;
    let jobs = jobs(&args.common);
    let mut out = AutoStream::new(std::io::stdout(), choice);
    let settings = |extra: &[String]| RunSettings {
        config: AdapterConfig::reference(&bin, extra),
        fake_agy: fake.clone(),
        fake_agy_acp: fake_acp.clone(),
        time_scale: args.common.time_scale,
        keep_sandboxes: false,
        live: None,
        agy_version: None,
    };
    // Every catalogue run at once: a run mostly waits on scripted delays, so the runs
    // share the CPUs well; each keeps its own `--jobs` bound.
    let mut runs = tokio::task::JoinSet::new();
    let mut scored_faults: Vec<(&FaultInfo, Vec<Scenario>)> = Vec::new();
    let mut unscored: Vec<&FaultInfo> = Vec::new();
    for fault in &faults {
        let selected: Vec<Scenario> = scenarios
            .iter()
            .filter(|s| s.meta.profile == fault.profile)
            .cloned()
            .collect();
        if selected.is_empty() {
            // No scenario of that profile was selected: nothing can judge this fault.
            unscored.push(fault);
            continue;
        }
        let extra = vec!["--fault".to_string(), fault.name.clone()];
        let (run, config) = (selected.clone(), settings(&extra));
        let at = scored_faults.len() + 1;
        runs.spawn(async move {
            let report = run_catalogue(run, config, jobs, true, &mut std::io::sink()).await;
            (at, report)
        });
        scored_faults.push((fault, selected));
    }
    let (base_scenarios, base_settings) = (scenarios.clone(), settings(&[]));
    runs.spawn(async move {
        let report = run_catalogue(
            base_scenarios,
            base_settings,
            jobs,
            true,
            &mut std::io::sink(),
        )
        .await;
        (0, report)
    });
    let mut reports: Vec<Option<RunReport>> = (0..=scored_faults.len()).map(|_| None).collect();
    while let Some(joined) = runs.join_next().await {
        let (at, report) = joined.map_err(|e| {
            Fatal(
                exit_code::COULD_NOT_RUN,
                format!("a catalogue run failed: {e}"),
            )
        })?;
        let report = report?;
        if !report.complete {
            return Ok(exit_code::COULD_NOT_RUN);
        }
        reports[at] = Some(report);
    }
    let mut reports = reports.into_iter().flatten();
    let Some(baseline) = reports.next() else {
        return Ok(exit_code::COULD_NOT_RUN);
    };
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
    let scored = scored_faults.len();
    for ((fault, selected), report) in scored_faults.iter().zip(reports) {
        let hits = broken(&report);
        // A scenario that claims this fault (`catches`) must be among those it broke.
        for r in report.results.iter().filter(|r| !r.status.fails_run()) {
            let claims = selected
                .iter()
                .any(|s| s.meta.name == r.name && s.meta.catches.contains(&fault.name));
            if claims {
                false_claims.push(format!(
                    "{} claims `catches = [\"{}\"]` but passed with that fault",
                    r.name, fault.name
                ));
            }
        }
        if hits.is_empty() {
            let _ = writeln!(
                out,
                "{RED}✗ {}{RED:#} ({}) not caught: all {} {} scenarios passed\n    bug: {}",
                fault.name,
                fault.profile,
                selected.len(),
                fault.profile,
                fault.bug
            );
        } else {
            caught += 1;
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
        }
    }
    let total = scored;
    let pct = if total == 0 {
        0.0
    } else {
        100.0 * caught as f64 / total as f64
    };
    let style = if caught == total && base_failed.is_empty() {
        GREEN
    } else {
        RED
    };
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
    for c in &false_claims {
        let _ = writeln!(out, "{RED}✗ {c}{RED:#}");
    }
    Ok(
        if caught == total && base_failed.is_empty() && total > 0 && false_claims.is_empty() {
            exit_code::ALL_CONFORM
        } else {
            exit_code::SCENARIO_FAILED
        },
    )
}
