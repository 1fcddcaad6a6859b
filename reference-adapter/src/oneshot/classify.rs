//! ADR 0013's error table, in its order: what one finished agy run came to.
//!
//! Pure: the run's exit, output and brain directory go in, a [`Verdict`] comes out.
//! The two process-level rows (killed after timeout + 30 s, binary not found) are
//! [`killed_failure`] and [`binary_missing_failure`].

use super::brain::FoundImage;
use crate::agy_text::{mentions_auth, mentions_image_quota};
use crate::failure::{
    head, tail, Failure, PROVIDER_AUTH, PROVIDER_OUTPUT_MISSING, PROVIDER_PERMANENT,
    PROVIDER_TIMEOUT, PROVIDER_TRANSIENT,
};
use crate::faults::{Fault, FaultSet};
use agy_protocol::driver::Outcome;
use agy_protocol::{Envelope, Status};
use std::path::{Path, PathBuf};

/// How much of stderr an error message quotes.
const STDERR_TAIL: usize = 400;

/// One finished agy run, as the classifier sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// Exit code; `None` when a signal ended the process.
    pub exit_code: Option<i32>,
    /// The envelope, or why stdout is not one.
    pub envelope: Result<Envelope, String>,
    /// stderr as text.
    pub stderr: String,
    /// `brain/<conversation_id>/`, when the conversation id can name a directory.
    pub brain_dir: Option<PathBuf>,
    /// The image files found there, sorted by name.
    pub images: Vec<FoundImage>,
}

/// What the run delivers.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Success; the image to deliver (`None` only under the `trusts-success` fault).
    Delivered(Option<PathBuf>),
    /// A failure row matched.
    Failed(Failure),
}

/// Parses agy's stdout as one envelope; the error quotes what was there.
pub fn parse_envelope(stdout: &str) -> Result<Envelope, String> {
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return Err("stdout is empty".to_string());
    }
    Envelope::parse(trimmed).map_err(|e| {
        format!(
            "stdout is not an envelope ({e} at line {} column {}): {:?}",
            e.line(),
            e.column(),
            tail(trimmed, 200)
        )
    })
}

fn brain_name(obs: &Observation) -> String {
    match &obs.brain_dir {
        Some(dir) => dir.display().to_string(),
        None => "brain/<conversation_id> (agy returned no usable conversation id)".to_string(),
    }
}

fn stderr_note(stderr: &str) -> String {
    let t = tail(stderr.trim(), STDERR_TAIL);
    if t.is_empty() {
        "stderr empty".to_string()
    } else {
        format!("stderr: {t}")
    }
}

fn exit_text(code: Option<i32>) -> String {
    match code {
        Some(c) => format!("exit code {c}"),
        None => "killed by a signal".to_string(),
    }
}

/// The rows for `status: SUCCESS` that look at the brain directory, in ADR order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SuccessRow {
    PrintTimeout,
    ImageQuota,
    OutputMissing,
}

fn success_rows(faults: &FaultSet) -> Vec<SuccessRow> {
    let mut rows = if faults.has(Fault::MissingOutputBeforeTimeout) {
        vec![
            SuccessRow::OutputMissing,
            SuccessRow::PrintTimeout,
            SuccessRow::ImageQuota,
        ]
    } else {
        vec![
            SuccessRow::PrintTimeout,
            SuccessRow::ImageQuota,
            SuccessRow::OutputMissing,
        ]
    };
    if faults.has(Fault::NoQuotaDetection) {
        rows.retain(|r| *r != SuccessRow::ImageQuota);
    }
    rows
}

/// The first no-image row of the error table that matches a SUCCESS without an image
/// (print timeout, image quota, output missing), unless faults switched them all off.
fn no_image_failure(obs: &Observation, env: &Envelope, faults: &FaultSet) -> Option<Failure> {
    for row in success_rows(faults) {
        match row {
            // S6c: a --print-timeout expiry is SUCCESS, empty response, zero usage.
            SuccessRow::PrintTimeout
                if env.response.trim().is_empty() && env.usage.total_tokens == 0 =>
            {
                return Some(Failure::new(
                    Outcome::Timeout,
                    PROVIDER_TIMEOUT,
                    format!(
                        "agy print timeout: SUCCESS with an empty response, zero tokens and no image in {}; {}",
                        brain_name(obs),
                        stderr_note(&obs.stderr)
                    ),
                ));
            }
            SuccessRow::ImageQuota if mentions_image_quota(&env.response) => {
                return Some(Failure::new(
                    Outcome::Transient,
                    PROVIDER_TRANSIENT,
                    format!(
                        "image model quota exhausted (429 RESOURCE_EXHAUSTED in the response), no image in {}: {}",
                        brain_name(obs),
                        head(env.response.trim(), STDERR_TAIL)
                    ),
                ));
            }
            SuccessRow::OutputMissing => {
                return Some(Failure::new(
                    Outcome::OutputMissing,
                    PROVIDER_OUTPUT_MISSING,
                    format!(
                        "agy reported SUCCESS but no image was found in {}",
                        brain_name(obs)
                    ),
                ));
            }
            _ => {}
        }
    }
    None
}

fn classify_success(obs: &Observation, env: &Envelope, faults: &FaultSet) -> Verdict {
    if faults.has(Fault::TrustsSuccess) && obs.exit_code == Some(0) {
        return Verdict::Delivered(obs.images.first().map(|i| i.path.clone()));
    }
    if obs.exit_code != Some(0) {
        return Verdict::Failed(Failure::new(
            Outcome::Permanent,
            PROVIDER_PERMANENT,
            format!(
                "agy reported SUCCESS but ended with {}; {}",
                exit_text(obs.exit_code),
                stderr_note(&obs.stderr)
            ),
        ));
    }
    if obs.images.is_empty() {
        if let Some(failure) = no_image_failure(obs, env, faults) {
            return Verdict::Failed(failure);
        }
    }
    let chosen = match obs.images.as_slice() {
        [] => {
            // Only reachable when every no-image row was switched off by faults.
            return Verdict::Failed(Failure::new(
                Outcome::OutputMissing,
                PROVIDER_OUTPUT_MISSING,
                format!("no image in {}", brain_name(obs)),
            ));
        }
        [one] => one,
        [first, ..] if faults.has(Fault::FirstOfManyImages) => first,
        many => {
            // "exactly one such image" (decision 3): with several, none is known to be
            // this request's output, so the output is missing; retrying would spend quota
            // on the same ambiguity, hence not retryable.
            let names: Vec<String> = many
                .iter()
                .map(|i| {
                    i.path
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
            return Verdict::Failed(Failure::new(
                Outcome::OutputMissing,
                PROVIDER_OUTPUT_MISSING,
                format!(
                    "expected exactly one image in {}, found {}: {}",
                    brain_name(obs),
                    many.len(),
                    names.join(", ")
                ),
            ));
        }
    };
    match &chosen.decoded {
        Ok(_) => Verdict::Delivered(Some(chosen.path.clone())),
        Err(why) => Verdict::Failed(Failure::new(
            Outcome::OutputMissing,
            PROVIDER_OUTPUT_MISSING,
            format!(
                "the image {} in {} does not open: {why}",
                chosen
                    .path
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy(),
                brain_name(obs)
            ),
        )),
    }
}

/// Applies the error table to a finished run.
pub fn classify(obs: &Observation, faults: &FaultSet) -> Verdict {
    let env = match &obs.envelope {
        Ok(env) => env,
        Err(why) => {
            return Verdict::Failed(Failure::new(
                Outcome::Permanent,
                PROVIDER_PERMANENT,
                format!(
                    "agy ended with {} and {why}; {}",
                    exit_text(obs.exit_code),
                    stderr_note(&obs.stderr)
                ),
            ))
        }
    };
    match &env.status {
        Status::Success => classify_success(obs, env, faults),
        Status::Canceled | Status::Interrupted => Verdict::Failed(Failure::new(
            Outcome::Transient,
            PROVIDER_TRANSIENT,
            format!(
                "agy status {}: {}",
                env.status,
                nonempty(&env.error, &obs.stderr)
            ),
        )),
        Status::Error if mentions_auth(&env.error) => Verdict::Failed(Failure::new(
            Outcome::Auth,
            PROVIDER_AUTH,
            format!("agy is not signed in: {}", env.error.trim()),
        )),
        other => Verdict::Failed(Failure::new(
            Outcome::Permanent,
            PROVIDER_PERMANENT,
            format!(
                "agy status {other} ({}): {}",
                exit_text(obs.exit_code),
                nonempty(&env.error, &obs.stderr)
            ),
        )),
    }
}

fn nonempty(error: &str, stderr: &str) -> String {
    if error.trim().is_empty() {
        stderr_note(stderr)
    } else {
        head(error.trim(), STDERR_TAIL)
    }
}

/// The row "subprocess exceeds timeout_s + 30 → ProviderTimeoutError (process killed)".
pub fn killed_failure(timeout_s: f64, grace_s: f64, stderr: &str) -> Failure {
    Failure::new(
        Outcome::Timeout,
        PROVIDER_TIMEOUT,
        format!(
            "agy still running {timeout_s}s + {grace_s}s after start; its process group was killed; {}",
            stderr_note(stderr)
        ),
    )
}

/// The row "binary not found → ProviderPermanentError with hint".
pub fn binary_missing_failure(bin: &Path) -> Failure {
    Failure::new(
        Outcome::Permanent,
        PROVIDER_PERMANENT,
        format!(
            "agy binary `{}` not found; install Antigravity CLI (or set AGY_BIN)",
            bin.display()
        ),
    )
}

#[cfg(test)]
mod tests;
