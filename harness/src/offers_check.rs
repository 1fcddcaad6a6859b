//! `agy-harness check --infer`: the neutral run of [`crate::offers_inference`] against
//! the adapter, in a sandbox with fake-agy as `agy`, and the `offers = [...]` line it
//! comes to.

use crate::adapter_config::AdapterConfig;
use crate::exit_code;
use crate::fatal::HarnessError;
use crate::offers_inference::{infer_offers, render_offers, TEXT_NEUTRAL_RUN};
use crate::report::Status;
use crate::runner::{run_scenario, RunSettings};
use crate::scenario::{parse_scenario, Scenario};
use agy_protocol::diag::SourceFile;
use std::path::Path;

/// Why the neutral run could not be read.
#[derive(Debug, thiserror::Error)]
enum InferError {
    /// The built-in neutral scenario did not parse (a bug of the kit).
    #[error("the neutral run does not parse: {0}")]
    Scenario(agy_protocol::diag::Diagnostics),
    /// The run kept no sandbox to read the journal from.
    #[error("the neutral run kept no sandbox ({0})")]
    NoSandbox(String),
    /// fake-agy's journal could not be read.
    #[error("failed to read the neutral run's journal: {0}")]
    Journal(#[from] agy_protocol::journal::JournalError),
}

/// Runs the neutral run of each profile of `config` that has one and prints what the
/// adapter offers. A config whose profiles have none says so and succeeds.
pub(crate) async fn infer_and_print(config: &AdapterConfig, fake_agy: Option<&Path>) -> i32 {
    let src = SourceFile::new("built-in:neutral-run.toml", TEXT_NEUTRAL_RUN);
    let scenario = match parse_scenario(&src, Path::new("neutral-run.toml")) {
        Ok(s) => s,
        Err(d) => return HarnessError::could_not_run(InferError::Scenario(d).to_string()).report(),
    };
    let profile = scenario.meta.profile;
    if !config.adapter.profiles.contains(&profile) {
        println!("no neutral run for the profiles of this adapter yet (only for `{profile}`): declare `offers` by hand (docs/contract.md, \"Premises and capabilities\")");
        return exit_code::ALL_CONFORM;
    }
    let fake = match crate::binaries::fake_agy_at(fake_agy) {
        Ok(f) => f,
        Err(e) => return e.report(),
    };
    match infer_from(&scenario, config, &fake).await {
        Ok(lines) => {
            println!(
                "what a neutral run of the `{profile}` profile shows; paste under `[adapter]`:"
            );
            print!("{lines}");
            exit_code::ALL_CONFORM
        }
        Err(e) => HarnessError::could_not_run(e.to_string()).report(),
    }
}

/// The neutral run `scenario`, and the `offers` lines it comes to.
async fn infer_from(
    scenario: &Scenario,
    config: &AdapterConfig,
    fake: &Path,
) -> Result<String, InferError> {
    let mut config = config.clone();
    config.adapter.offers = None;
    config.expected_failures.clear();
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
    let hung_stopped = result.status != Status::TimedOut
        && result.ops.get(2).is_some_and(|o| o.no_reply.is_none());
    Ok(render_offers(&infer_offers(&journal?, hung_stopped)))
}
