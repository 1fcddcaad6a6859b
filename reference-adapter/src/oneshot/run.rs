//! One generation: spawn agy, wait (killing it after timeout + 30 s), look in the brain
//! directory, classify, and copy the image into the asset store.

use super::argv::{build_argv, reference_dirs};
use super::brain::{conversation_dirs, list_images, subagent_images, usable_conversation_id};
use super::classify::{
    binary_missing_failure, classify, killed_failure, parse_envelope, Observation, Verdict,
};
use super::prompt::wrap_prompt;
use super::settings::OneshotSettings;
use crate::environment::Environment;
use crate::failure::{tail, Failure, PROVIDER_PERMANENT};
use crate::faults::{Fault, FaultSet};
use crate::pipes::{drained, read_capped};
use agy_process::{in_own_group, wait_for, GroupGuard, ParentDeath};
use agy_protocol::driver::Outcome;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use tokio::process::Command;

/// Concurrent generations (ADR 0013 decision 8; S7 measured two as safe and faster).
pub const MAX_CONCURRENCY: usize = 2;
/// The grace after `timeout_s` before the run is killed (the error table's "+ 30").
pub const KILL_GRACE_S: f64 = 30.0;
/// How long pipes may stay open after agy exited (helpers holding them are killed).
const PIPE_DRAIN_S: f64 = 5.0;
/// stdout larger than this is not an envelope.
const STDOUT_CAP: u64 = 16 * 1024 * 1024;
/// stderr kept for messages.
const STDERR_CAP: u64 = 1024 * 1024;

/// A `generate` request.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateRequest {
    /// The user's prompt.
    pub prompt: String,
    /// Aspect ratio, e.g. `16:9`.
    pub aspect: Option<String>,
    /// Adapter timeout in seconds.
    pub timeout_s: Option<f64>,
    /// Reference image paths (relative ones are taken from the work directory).
    pub references: Vec<String>,
    /// The request's settings object.
    pub settings: serde_json::Map<String, serde_json::Value>,
}

/// A delivered image and the run's evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// The copy in the asset store (`None` only under the `trusts-success` fault).
    pub image: Option<PathBuf>,
    /// Evidence for the report: envelope, exit code, stderr tail.
    pub evidence: serde_json::Value,
}

/// The outcome of one generation: delivered, or failed with the evidence.
pub type GenerateOutcome = Result<Delivery, (Failure, serde_json::Value)>;

fn evidence(
    exit_code: Option<i32>,
    envelope: Option<&agy_protocol::Envelope>,
    stderr: &str,
) -> serde_json::Value {
    serde_json::json!({
        "exit_code": exit_code,
        "envelope": envelope,
        "stderr_tail": tail(stderr, 2000),
    })
}

fn no_evidence(f: Failure) -> (Failure, serde_json::Value) {
    (f, serde_json::Value::Null)
}

/// Runs one generation to its verdict.
pub async fn generate(
    env: &Environment,
    faults: &FaultSet,
    request_id: u64,
    req: GenerateRequest,
) -> GenerateOutcome {
    let settings = OneshotSettings::from_map(&req.settings)
        .map_err(|e| no_evidence(Failure::bad_request(e)))?;
    let timeout_s = settings
        .resolve_timeout(req.timeout_s)
        .map_err(|e| no_evidence(Failure::bad_request(e)))?;
    let (ref_files, ref_dirs) = reference_dirs(&env.work_dir, &req.references);
    let prompt = wrap_prompt(&req.prompt, req.aspect.as_deref(), &ref_files);
    let argv = build_argv(
        &prompt,
        &env.work_dir,
        &ref_dirs,
        timeout_s,
        &settings,
        faults,
    );

    let _ = std::fs::create_dir_all(&env.work_dir);
    let brain_root = env.app_data_dir.join("brain");
    let conversations_before = conversation_dirs(&brain_root);
    let mut child = spawn_agy(env, &argv).map_err(no_evidence)?;
    let guard = GroupGuard::of(&child);
    let stdout_task = tokio::spawn(read_capped(child.stdout.take(), STDOUT_CAP));
    let stderr_task = tokio::spawn(read_capped(child.stderr.take(), STDERR_CAP));

    let status = if faults.has(Fault::NeverKillsHungAgy) {
        child.wait().await.ok()
    } else {
        match wait_for(&mut child, env.scaled(timeout_s + KILL_GRACE_S)).await {
            Some(status) => Some(status),
            None => {
                guard.kill_and_reap(&mut child).await;
                // A helper that left the group could hold the pipe open: bounded wait.
                let stderr = tokio::time::timeout(env.scaled(PIPE_DRAIN_S), stderr_task)
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .unwrap_or_default();
                stdout_task.abort();
                let f = killed_failure(timeout_s, KILL_GRACE_S, &stderr);
                return Err((f, evidence(None, None, &stderr)));
            }
        }
    };
    // agy has exited; anything left in its group is an orphaned helper.
    drop(guard);
    let drain = env.scaled(PIPE_DRAIN_S);
    let stdout = drained(stdout_task, drain).await;
    let stderr = drained(stderr_task, drain).await;
    let exit_code = status.and_then(|s| s.code());

    let obs = observe(
        env,
        faults,
        &conversations_before,
        exit_code,
        &stdout,
        stderr,
    );
    deliver(env, faults, request_id, &obs)
}

/// agy started in its own process group (dying with the driver), its output piped.
fn spawn_agy(env: &Environment, argv: &[OsString]) -> Result<tokio::process::Child, Failure> {
    let mut cmd = Command::new(&env.agy_bin);
    cmd.args(argv)
        .current_dir(&env.work_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    in_own_group(&mut cmd, ParentDeath::Kill).kill_on_drop(false);
    cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => binary_missing_failure(&env.agy_bin),
        _ => Failure::new(
            Outcome::Permanent,
            PROVIDER_PERMANENT,
            format!("failed to start `{}`: {e}", env.agy_bin.display()),
        ),
    })
}

/// The verdict on a finished run: the image delivered (copied into the asset store) or
/// the failure, each with the run's evidence.
fn deliver(
    env: &Environment,
    faults: &FaultSet,
    request_id: u64,
    obs: &Observation,
) -> GenerateOutcome {
    let ev = evidence(obs.exit_code, obs.envelope.as_ref().ok(), &obs.stderr);
    match classify(obs, faults) {
        Verdict::Delivered(None) => Ok(Delivery {
            image: None,
            evidence: ev,
        }),
        Verdict::Delivered(Some(path)) => match store(&env.state_dir, request_id, &path) {
            Ok(stored) => Ok(Delivery {
                image: Some(stored),
                evidence: ev,
            }),
            Err(f) => Err((f, ev)),
        },
        Verdict::Failed(f) => Err((f, ev)),
    }
}

/// What a finished run left: its envelope and, for a SUCCESS, the images of its
/// brain folder (or of the image subagent's, which is created during the run).
fn observe(
    env: &Environment,
    faults: &FaultSet,
    conversations_before: &BTreeSet<String>,
    exit_code: Option<i32>,
    stdout: &str,
    stderr: String,
) -> Observation {
    let brain_root = env.app_data_dir.join("brain");
    let envelope = parse_envelope(stdout);
    let brain_dir = envelope
        .as_ref()
        .ok()
        .map(|e| e.conversation_id.as_str())
        .filter(|id| usable_conversation_id(id))
        .map(|id| env.brain_dir(id));
    let mut images = match (&envelope, &brain_dir) {
        (Ok(e), Some(dir)) if e.status == agy_protocol::Status::Success => list_images(dir),
        _ => Vec::new(),
    };
    if let (true, Ok(e), false) = (
        images.is_empty() && brain_dir.is_some(),
        &envelope,
        faults.has(Fault::ImageInParentBrainOnly),
    ) {
        if e.status == agy_protocol::Status::Success {
            images = subagent_images(&brain_root, conversations_before, &e.conversation_id);
        }
    }
    Observation {
        exit_code,
        envelope,
        stderr,
        brain_dir,
        images,
    }
}

/// Copies the image into `<state>/assets/` (decision 3: "copy it into the asset store").
fn store(state_dir: &Path, request_id: u64, image: &Path) -> Result<PathBuf, Failure> {
    let assets = state_dir.join("assets");
    let name = image.file_name().unwrap_or_default().to_string_lossy();
    let target = assets.join(format!("{request_id}-{name}"));
    std::fs::create_dir_all(&assets)
        .and_then(|()| std::fs::copy(image, &target))
        .map_err(|e| {
            Failure::new(
                Outcome::Permanent,
                PROVIDER_PERMANENT,
                format!(
                    "failed to copy {} into {}: {e}",
                    image.display(),
                    assets.display()
                ),
            )
        })?;
    Ok(target)
}
