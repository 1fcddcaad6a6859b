//! The bug-detection score: the catalogue against the correct reference adapter (every
//! scenario must pass) and against each of its fault variants (each must fail at least
//! one scenario, named with the broken expectation).

use crate::adapter_config::AdapterConfig;
use crate::app::{
    check_time_scale, fake_agy, fake_agy_acp, jobs, reference_adapter, run_catalogue,
    select_scenarios, Fatal,
};
use crate::cli::FaultsArgs;
use crate::exit_code;
use crate::report::{RunReport, Status};
use crate::runner::RunSettings;
use crate::scenario::{Profile, Scenario};
use anstream::{AutoStream, ColorChoice};
use anstyle::{AnsiColor, Style};
use serde::Deserialize;
use std::io::Write;
use std::path::Path;

const GREEN: Style = AnsiColor::Green.on_default();
const RED: Style = AnsiColor::Red.on_default();
const YELLOW: Style = AnsiColor::Yellow.on_default();

/// One fault switch, as `--list-faults` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct FaultInfo {
    /// The switch (`--fault NAME`).
    pub name: String,
    /// The profile it breaks.
    pub profile: Profile,
    /// The real bug it reproduces.
    #[serde(default)]
    pub bug: String,
}

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
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| format!("line {} of `--list-faults` is not a fault: {e}", i + 1))
        })
        .collect()
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
    check_time_scale(args.common.time_scale)?;
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
    let baseline =
        run_catalogue(scenarios.clone(), settings(&[]), jobs, &mut std::io::sink()).await?;
    if !baseline.complete {
        return Ok(exit_code::COULD_NOT_RUN);
    }
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
    let mut unscored: Vec<&FaultInfo> = Vec::new();
    let mut scored = 0;
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
        scored += 1;
        let extra = vec!["--fault".to_string(), fault.name.clone()];
        let report = run_catalogue(
            selected.clone(),
            settings(&extra),
            jobs,
            &mut std::io::sink(),
        )
        .await?;
        if !report.complete {
            return Ok(exit_code::COULD_NOT_RUN);
        }
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
