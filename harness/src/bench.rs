//! The benchmark (a command, not a timed test): whole-catalogue wall time, and the
//! harness's overhead per scenario against running the driver alone (same sandbox,
//! same requests, no journal reads, checks, sweeps or reports).

use crate::adapter_config::AdapterConfig;
use crate::binaries::{fake_agy, fake_agy_acp, reference_adapter};
use crate::catalogue_run::{run_catalogue, select_scenarios};
use crate::driver_client::{DriverClient, DriverError};
use crate::exit_code;
use crate::fatal::HarnessError;
use crate::options::CommonArgs;
use crate::runner::{prepare, PrepareError, RunSettings};
use crate::scenario::{OpAction, Scenario};
use agy_protocol::driver::RequestOp;
use clap::Args;
use std::time::{Duration, Instant};

/// `agy-harness bench`.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Scenario selection and run settings.
    #[command(flatten)]
    pub common: CommonArgs,
    /// How many times to run the catalogue.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub runs: usize,
}

/// `agy-harness bench`.
pub async fn bench_command(args: BenchArgs) -> i32 {
    match bench_inner(args).await {
        Ok(code) => code,
        Err(f) => f.report(),
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Why the driver could not be run alone.
#[derive(Debug, thiserror::Error)]
enum AloneError {
    /// The scenario's sandbox could not be prepared.
    #[error(transparent)]
    Sandbox(#[from] PrepareError),
    /// The driver did not start or did not answer `hello`.
    #[error(transparent)]
    Driver(#[from] DriverError),
}

/// Runs `s`'s requests against the driver with nothing else around it, in the sandbox
/// a scenario run gets.
async fn driver_alone(s: &Scenario, settings: &RunSettings) -> Result<Duration, AloneError> {
    let (sandbox, env, _) = prepare(s, settings)?;
    let started = Instant::now();
    let t = &settings.config.timeouts;
    let start = || async {
        let mut d = DriverClient::start(
            &settings.config.adapter.command,
            &env,
            &sandbox.work(),
            &sandbox.driver_stderr(),
        )?;
        d.call(RequestOp::Hello {}, t.startup.0).await?;
        Ok::<DriverClient, AloneError>(d)
    };
    let mut d = start().await?;
    for op in &s.ops {
        match &op.action {
            OpAction::Request(req) => {
                let _ = d.call(req.clone(), t.reply.0).await;
            }
            OpAction::Restart => {
                d.stop(t.grace.0).await;
                d = start().await?;
            }
        }
    }
    d.stop(t.grace.0).await;
    Ok(started.elapsed())
}

/// The harness's overhead per scenario: its run against the driver alone, one scenario
/// at a time so the two measurements see the same machine.
async fn overhead(scenarios: &[Scenario], settings: &RunSettings) -> Result<(), HarnessError> {
    let mut overheads = Vec::new();
    for s in scenarios {
        let alone = match driver_alone(s, settings).await {
            Ok(d) => d,
            Err(e) => {
                eprintln!("warning: {}: driver alone failed: {e}", s.meta.name);
                continue;
            }
        };
        let one = run_catalogue(
            vec![s.clone()],
            settings.clone(),
            1,
            true,
            &mut std::io::sink(),
        )
        .await?;
        let harness =
            Duration::from_millis(one.results.first().map(|r| r.duration_ms).unwrap_or(0));
        overheads.push(harness.saturating_sub(alone));
    }
    if !overheads.is_empty() {
        let max = overheads.iter().max().copied().unwrap_or_default();
        println!(
            "harness overhead per scenario: median {} ms, max {} ms ({} scenarios)",
            median(overheads.clone()).as_millis(),
            max.as_millis(),
            overheads.len()
        );
    }
    Ok(())
}

async fn bench_inner(args: BenchArgs) -> Result<i32, HarnessError> {
    let bin = reference_adapter(&args.common.runner)?;
    let scenarios = select_scenarios(&args.common)?;
    let settings = RunSettings {
        config: AdapterConfig::reference(&bin, &[]),
        fake_agy: fake_agy(&args.common.runner)?,
        fake_agy_acp: fake_agy_acp(
            &args.common.runner,
            &scenarios,
            &agy_protocol::profile::Profile::ALL,
        )?,
        time_scale: args.common.runner.time_scale,
        keep_sandboxes: false,
        live: None,
        agy_version: None,
        uncertain: None,
        calibration: None,
    };
    let jobs = args.common.runner.jobs();
    println!(
        "catalogue: {} scenarios, --jobs {jobs}, time scale {}, {} CPU(s)",
        scenarios.len(),
        settings.time_scale,
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(0)
    );
    let mut walls = Vec::new();
    for i in 0..args.runs.max(1) {
        let report = run_catalogue(
            scenarios.clone(),
            settings.clone(),
            jobs,
            true,
            &mut std::io::sink(),
        )
        .await?;
        if !report.complete {
            return Ok(exit_code::COULD_NOT_RUN);
        }
        let wall = Duration::from_millis(report.duration_ms);
        let failed = report
            .results
            .iter()
            .filter(|r| r.status.fails_run())
            .count();
        println!(
            "run {}: {:.2} s wall, {failed} failed",
            i + 1,
            wall.as_secs_f64()
        );
        walls.push(wall);
    }
    println!(
        "catalogue wall time: median {:.2} s over {} run(s)",
        median(walls).as_secs_f64(),
        args.runs.max(1)
    );
    overhead(&scenarios, &settings).await?;
    Ok(exit_code::ALL_CONFORM)
}
