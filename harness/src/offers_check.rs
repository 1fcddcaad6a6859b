//! `agy-harness check --infer`: the neutral run of [`crate::offers_inference`] against
//! the adapter, in a sandbox with fake-agy as `agy`, and the `offers = [...]` line it
//! comes to; for an MCP server, that of [`crate::shape_inference`] and whether its tool
//! is outside the `mcp` profile's shape.

use crate::adapter_config::AdapterConfig;
use crate::exit_code;
use crate::fatal::HarnessError;
use crate::offers_inference::{infer_offers, render_offers, TEXT_NEUTRAL_RUN};
use crate::report::{ScenarioResult, Status};
use crate::runner::{run_scenario, RunSettings};
use crate::scenario::{parse_scenario, Scenario};
use crate::shape_inference::{infer_outside, render_outside, MCP_NEUTRAL_RUN};
use agy_protocol::diag::SourceFile;
use agy_protocol::journal::JournalRecord;
use std::path::Path;

/// Why the neutral run could not be read.
#[derive(Debug, thiserror::Error)]
enum InferError {
    /// The built-in neutral scenario did not parse (a bug of the kit).
    #[error("the neutral run does not parse: {0}")]
    Scenario(agy_protocol::diag::Diagnostics),
    /// The neutral run's file, which fake-agy reads its script from, was not written.
    #[error("failed to write the neutral run for fake-agy: {0}")]
    Write(std::io::Error),
    /// The run kept no sandbox to read the journal from.
    #[error("the neutral run kept no sandbox ({0})")]
    NoSandbox(String),
    /// fake-agy's journal could not be read.
    #[error("failed to read the neutral run's journal: {0}")]
    Journal(#[from] agy_protocol::journal::JournalError),
}

/// The built-in neutral runs: the `text` profile's (what it offers) and the `mcp`
/// profile's (whether its tool has the profile's shape).
const NEUTRAL_RUNS: [&str; 2] = [TEXT_NEUTRAL_RUN, MCP_NEUTRAL_RUN];

/// Runs the neutral run of each profile of `config` that has one and prints what it
/// shows. A config whose profiles have none says so and succeeds.
pub(crate) async fn infer_and_print(config: &AdapterConfig, fake_agy: Option<&Path>) -> i32 {
    // fake-agy reads its script from the scenario file: each neutral run is written
    // to a folder that lives as long as the runs.
    let folder = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => return HarnessError::could_not_run(InferError::Write(e).to_string()).report(),
    };
    let mut runs = Vec::new();
    for (i, text) in NEUTRAL_RUNS.iter().enumerate() {
        match neutral_scenario(folder.path(), i, text) {
            Ok(s) if config.adapter.profiles.contains(&s.meta.profile) => runs.push(s),
            Ok(_) => {}
            Err(e) => return HarnessError::could_not_run(e.to_string()).report(),
        }
    }
    if runs.is_empty() {
        println!("no neutral run for the profiles of this adapter yet (only for `text` and `mcp`): declare `offers` by hand (docs/contract.md, \"Premises and capabilities\")");
        return exit_code::ALL_CONFORM;
    }
    let fake = match crate::binaries::fake_agy_at(fake_agy) {
        Ok(f) => f,
        Err(e) => return e.report(),
    };
    for scenario in &runs {
        match infer_from(scenario, config, &fake).await {
            Ok(lines) => print!("{lines}"),
            Err(e) => return HarnessError::could_not_run(e.to_string()).report(),
        }
    }
    exit_code::ALL_CONFORM
}

/// Built-in neutral run `i`, written into `folder` and parsed from there.
fn neutral_scenario(folder: &Path, i: usize, text: &str) -> Result<Scenario, InferError> {
    let path = folder.join(format!("neutral-run-{i}.toml"));
    std::fs::write(&path, text).map_err(InferError::Write)?;
    let src = SourceFile::new("built-in:neutral-run.toml", text);
    parse_scenario(&src, &path).map_err(InferError::Scenario)
}

/// The neutral run `scenario`, and what it shows: the `offers` lines (`text`), or
/// whether the tool has the profile's shape (`mcp`).
async fn infer_from(
    scenario: &Scenario,
    config: &AdapterConfig,
    fake: &Path,
) -> Result<String, InferError> {
    let (result, journal) = neutral_run(scenario, config, fake).await?;
    let profile = scenario.meta.profile;
    let mcp_client = crate::profile::Reach::Driverless {
        client: crate::profile::Client::Mcp,
    };
    if crate::profile::unit(profile).reach == mcp_client {
        let answered = result.status == Status::Passed;
        return Ok(render_outside(infer_outside(&journal, answered).as_deref()));
    }
    let hung_stopped = result.status != Status::TimedOut
        && result.ops.get(2).is_some_and(|o| o.no_reply.is_none());
    Ok(format!(
        "what a neutral run of the `{profile}` profile shows; paste under `[adapter]`:\n{}",
        render_offers(&infer_offers(&journal, hung_stopped))
    ))
}

/// Runs `scenario` against the adapter as if it declared nothing (no `offers`, no
/// expected failures, no tool outside the profile) and reads fake-agy's journal.
async fn neutral_run(
    scenario: &Scenario,
    config: &AdapterConfig,
    fake: &Path,
) -> Result<(ScenarioResult, Vec<JournalRecord>), InferError> {
    let mut config = config.clone();
    config.adapter.offers = None;
    config.expected_failures.clear();
    if let Some(t) = config.mcp.as_mut() {
        t.outside_profile = None;
    }
    let settings = RunSettings {
        config,
        fake_agy: fake.to_path_buf(),
        fake_agy_acp: None,
        time_scale: agy_protocol::TimeScale::default(),
        keep_sandboxes: true,
        live: None,
        agy_version: None,
        uncertain: None,
        calibration: None,
    };
    let (_keep_going, cancel) = tokio::sync::watch::channel(false);
    let result = run_scenario(scenario, &settings, cancel).await;
    let kept = result
        .sandbox
        .clone()
        .ok_or_else(|| InferError::NoSandbox(result.status.word().to_string()))?;
    let journal = agy_protocol::journal::read_journal(&Path::new(&kept).join("journal.jsonl"));
    let _ = std::fs::remove_dir_all(&kept);
    Ok((result, journal?))
}
