//! The runner: per scenario a sandbox, the driver in its own process group, the ops
//! sent (`ops`), the journal read, every process killed at the end (also on a timeout
//! or an interrupt), and the verdict (`judge`). `run_all` runs many scenarios
//! `--jobs` at a time; `settings` is how a run is set up.

mod applicable;
mod context;
mod judge;
mod ops;
mod settings;

use crate::check::Failure;
use crate::driver_client::DriverClient;
use crate::observation::Observation;
use crate::report::{ScenarioResult, Status, SETUP_FAILURE};
use crate::scenario::Scenario;
use context::Ctx;
use judge::passed_result;
use std::sync::Arc;
use tokio::sync::Semaphore;

pub use applicable::NOT_APPLICABLE;
pub(crate) use settings::{prepare, PrepareError};
pub use settings::{Cancel, RunSettings};

/// Runs one scenario to its verdict: prepare the sandbox, execute the ops, tear every
/// process down, judge. Every process it started is gone when this returns.
pub async fn run_scenario(s: &Scenario, settings: &RunSettings, cancel: Cancel) -> ScenarioResult {
    let started = std::time::Instant::now();
    if let Some(note) = skip_reason(s, settings) {
        return early_result(s, Status::Skipped, note);
    }
    if let Some(note) = applicable::unoffered(s, &settings.config) {
        return early_result(s, Status::NotApplicable, note);
    }
    let (mut sandbox, env, scale) = match prepare(s, settings) {
        Ok(prepared) => prepared,
        Err(note) => return setup_failure(s, format!("{SETUP_FAILURE} {note}")),
    };
    let ctx = Ctx {
        s,
        settings,
        sandbox: &sandbox,
        env,
        scale,
    };
    let (mut obs, driver, ended) = ops::execute(&ctx, cancel).await;
    tear_down(&ctx, driver, &mut obs, ended.is_ok()).await;
    let mut result = match unwritable(&sandbox) {
        // The kit's own files (fake-agy's journal and state) may be missing: nothing
        // the run showed is the adapter's doing.
        Some(why) => setup_failure(s, why),
        None => judge::verdict(&ctx, &obs, ended),
    };
    drop(ctx);
    if let Some(live) = &settings.live {
        let adapter = &settings.config.adapter.name;
        if let Some(why) = live.record_scenario(&s.meta.name, adapter, &sandbox.fake_state()) {
            result.note = Some(match result.note.take() {
                Some(n) => format!("{n}; {why}"),
                None => why,
            });
        }
    }
    if settings.keep_sandboxes {
        result.sandbox = Some(sandbox.keep().display().to_string());
    }
    result.duration_ms = started.elapsed().as_millis() as u64;
    result
}

/// Why the sandbox cannot hold the kit's files, if it cannot: a block written and
/// synced after the run fails (ENOSPC, EDQUOT, EFBIG, EIO).
fn unwritable(sandbox: &crate::sandbox::Sandbox) -> Option<String> {
    use std::io::Write;
    let probe = sandbox.root().join(".space-check");
    let written = std::fs::File::create(&probe)
        .and_then(|mut f| f.write_all(&[0; 4096]).and_then(|()| f.sync_all()));
    let _ = std::fs::remove_file(&probe);
    written.err().map(|e| {
        format!(
            "{SETUP_FAILURE} the sandbox `{}` cannot hold the kit's own files ({e}): the adapter was not judged; free space and run again",
            sandbox.root().display()
        )
    })
}

/// The result of a scenario whose sandbox failed it (`why` starts with
/// [`SETUP_FAILURE`]): an error, shown as the one failure, the adapter not judged.
fn setup_failure(s: &Scenario, why: String) -> ScenarioResult {
    ScenarioResult {
        failures: vec![Failure::new(
            "sandbox",
            "setup",
            "a sandbox that holds the kit's own files",
            why.clone(),
        )],
        ..early_result(s, Status::Error, why)
    }
}

/// The result of a scenario that never ran, with its status and why.
fn early_result(s: &Scenario, status: Status, note: String) -> ScenarioResult {
    ScenarioResult {
        status,
        note: Some(note),
        ..passed_result(s)
    }
}

/// Why `s` is skipped in this run, if it is.
fn skip_reason(s: &Scenario, settings: &RunSettings) -> Option<String> {
    if !settings.config.adapter.profiles.contains(&s.meta.profile) {
        return Some(format!(
            "{} `{}` profile",
            crate::report::PROFILE_SKIP,
            s.meta.profile
        ));
    }
    let modelled = settings
        .agy_version
        .or(s.meta.agy)
        .unwrap_or(agy_protocol::AgyVersion::DEFAULT);
    if settings.live.is_none() && !settings.config.adapter.supports(modelled) {
        return Some(format!(
            "unsupported: the scenario acts out agy {modelled}, and the adapter config supports agy {}",
            settings
                .config
                .adapter
                .agy_versions
                .as_ref()
                .map(|r| r.to_string())
                .unwrap_or_default()
        ));
    }
    if settings.live.as_ref().is_some_and(|l| l.spent()) {
        return Some("skipped for budget: the live budget of agy invocations is spent".into());
    }
    None
}

/// Records what still runs, stops the driver (gracefully after a clean run), kills
/// every process of the sandbox and reads what only a finished run can show.
async fn tear_down(
    ctx: &Ctx<'_>,
    driver: Option<DriverClient>,
    obs: &mut Observation,
    clean: bool,
) {
    let (s, sandbox) = (ctx.s, ctx.sandbox);
    obs.running_at_end = obs.probe(&sandbox.journal(), sandbox.marker());
    if crate::profile::unit(s.meta.profile).needs_fake_acp() {
        obs.probe_acp(&sandbox.acp_journal(), sandbox.marker());
    }
    if let Some(mut d) = driver {
        if clean {
            d.stop(ctx.settings.config.timeouts.grace.0).await;
        } else {
            d.kill().await;
        }
        obs.violations.append(&mut d.violations);
    }
    sandbox.kill_all();
    if crate::profile::unit(s.meta.profile).needs_fake_acp() {
        obs.read_acp(&sandbox.acp_journal());
    }
    obs.driver_stderr_tail = tail(&sandbox.driver_stderr(), 2000);
}

/// The last `max` bytes of `path` (the driver's stderr, as long as the driver made it),
/// read from there rather than whole.
fn tail(path: &std::path::Path, max: usize) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or_default();
    let mut bytes = Vec::new();
    let read = file
        .seek(SeekFrom::Start(len.saturating_sub(max as u64)))
        .and_then(|_| file.take(max as u64).read_to_end(&mut bytes));
    if read.is_err() {
        return String::new();
    }
    String::from_utf8_lossy(&bytes).trim_end().to_string()
}

/// Runs `scenarios` at most `jobs` at a time; `on_done` sees each result as it
/// arrives (for progress). Results come back in the order given. Scenarios not
/// started when `cancel` fires are left out (their names are returned separately).
pub async fn run_all(
    scenarios: Vec<Scenario>,
    settings: Arc<RunSettings>,
    jobs: usize,
    cancel: Cancel,
    mut on_done: impl FnMut(&ScenarioResult, usize, usize),
) -> (Vec<ScenarioResult>, Vec<String>) {
    let total = scenarios.len();
    let sem = Arc::new(Semaphore::new(jobs.max(1)));
    let mut set = tokio::task::JoinSet::new();
    for (i, s) in scenarios.into_iter().enumerate() {
        let sem = sem.clone();
        let settings = settings.clone();
        let cancel = cancel.clone();
        set.spawn(async move {
            let permit = sem.acquire_owned().await;
            if *cancel.borrow() || permit.is_err() {
                return (i, Err(s.meta.name.clone()));
            }
            let (name, path, profile) = (
                s.meta.name.clone(),
                crate::locate::shown_path(&s.path),
                s.meta.profile.to_string(),
            );
            // Its own task, so a bug that panics fails this scenario, not the run.
            let inner = tokio::spawn(async move { run_scenario(&s, &settings, cancel).await });
            match inner.await {
                Ok(r) => (i, Ok(r)),
                Err(e) => (
                    i,
                    Ok(ScenarioResult {
                        failures: vec![Failure::new(
                            "harness",
                            "no internal error",
                            "the scenario runs",
                            format!("agy-harness failed: {e}"),
                        )],
                        note: Some("internal error in agy-harness; please report it".into()),
                        ..ScenarioResult::bare(&name, &path, &profile, Status::Error)
                    }),
                ),
            }
        });
    }
    let mut results: Vec<Option<ScenarioResult>> = (0..total).map(|_| None).collect();
    let mut not_run = Vec::new();
    let mut done = 0;
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok((i, Ok(mut r))) => {
                // A live result quotes the real agy: redacted before anything shows it.
                if let Some(live) = &settings.live {
                    crate::report::redact_result(&mut r, live.redactor());
                }
                // What an adapter said is quoted, not copied whole into every report.
                crate::report::bound_result(&mut r);
                done += 1;
                on_done(&r, done, total);
                results[i] = Some(r);
            }
            Ok((_, Err(name))) => not_run.push(name),
            Err(e) => not_run.push(format!("(a scenario task failed: {e})")),
        }
    }
    not_run.sort();
    (results.into_iter().flatten().collect(), not_run)
}
