//! Running spikes: detect the target's version, run each probe, judge each fact.

use super::judge::{judge_spike, FactReport};
use super::model::{Probe, Spike};
use super::observation::Observation;
use super::probe::run_probe;
use super::record::Recorder;
use super::report::SpikeReport;
use super::target::Target;
use crate::live::{not_signed_out, SignIn};
use agy_protocol::AgyVersion;
use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

/// What to run and how.
pub struct SpikeRun<'a> {
    /// The spikes to run, in order.
    pub spikes: &'a [Spike],
    /// The binary under probe.
    pub target: &'a Target,
    /// The record facts are judged against.
    pub baseline: AgyVersion,
    /// Where traces go, with `--record`.
    pub recorder: Option<&'a Recorder>,
    /// Called after each probe run with the number of runs done.
    pub on_run: Option<&'a (dyn Fn(u64) + Sync)>,
    /// The target's version when already asked (a live run asks before anything else).
    pub known_version: Option<String>,
    /// What the sign-in check of a live run saw (`None`: no check ran). A probe with an
    /// isolated profile asks for a signed-out agy: live, it runs only when the check
    /// saw agy signed out.
    pub sign_in: Option<SignIn>,
}

/// Runs every probe of every spike and judges every fact.
pub async fn run_spikes(run: &SpikeRun<'_>) -> SpikeReport {
    let version = match &run.known_version {
        Some(v) => Some(v.clone()),
        None => detect_version(run.target).await,
    };
    let recorder = run.recorder.map(|r| {
        r.clone()
            .with_version(version.clone().unwrap_or_else(|| "unknown".into()))
    });
    let mut facts: Vec<FactReport> = Vec::new();
    for spike in run.spikes {
        let mut runs = BTreeMap::new();
        for probe in &spike.probes {
            // Facts that are checked by hand do not spend a live invocation.
            let needed = spike
                .facts
                .iter()
                .any(|f| f.probe == probe.name && f.manual.is_none());
            if !needed {
                continue;
            }
            let obs = match not_run_reason(probe, run) {
                Some(why) => not_run(probe, &why),
                None => run_probe(&spike.id, probe, run.target, recorder.as_ref()).await,
            };
            if let Some(cb) = run.on_run {
                cb(obs.len() as u64);
            }
            runs.insert(probe.name.clone(), obs);
        }
        facts.extend(judge_spike(spike, &runs, run.baseline));
    }
    let mut report = SpikeReport::new(
        run.target.bin.display().to_string(),
        run.target.live,
        version,
        run.baseline.to_string(),
        facts,
    );
    if let (true, Some(b)) = (run.target.live, &run.target.budget) {
        report.invocations_used = Some(run.target.budget_start.saturating_sub(b.left()));
    }
    report
}

/// Why `probe` does not run in `run`: on a live target, a probe with an isolated
/// profile (a signed-out agy, S6a) runs only when the sign-in check saw agy signed out.
fn not_run_reason(probe: &Probe, run: &SpikeRun<'_>) -> Option<String> {
    if !(run.target.live && probe.isolated_profile) {
        return None;
    }
    match &run.sign_in {
        Some(seen) => not_signed_out(seen),
        None => Some("not judged: the sign-in of the live agy was not checked".into()),
    }
}

/// Every run of `probe` as not run, for `why`.
fn not_run(probe: &Probe, why: &str) -> Vec<Observation> {
    (1..=probe.repeat)
        .map(|run| Observation {
            run,
            not_run: Some(why.to_string()),
            ..Default::default()
        })
        .collect()
}

/// Runs `<bin> --version` (one live invocation) and reads the version from its output.
pub async fn detect_version(target: &Target) -> Option<String> {
    probe_version(target).await.ok()
}

/// Runs `<bin> --version` (one live invocation): the version it names, or what it did
/// instead, in words.
pub async fn probe_version(target: &Target) -> Result<String, NoVersion> {
    if !target.take_invocation() {
        return Err(NoVersion::Budget);
    }
    version_in(&target.bin, &target.env).await
}

/// Runs `<bin> --version` in a sandbox: the version it names, or what it did instead,
/// in words (the caller charges the invocation).
pub async fn version_of(bin: &std::path::Path) -> Result<String, NoVersion> {
    version_in(bin, &[]).await
}

/// Why a binary gave no agy version for `--version`.
#[derive(Debug, thiserror::Error)]
pub enum NoVersion {
    /// The live budget had no run left for it.
    #[error("the budget allows no `--version` run")]
    Budget,
    /// The sandbox it runs in could not be made.
    #[error("failed to create a sandbox: {0}")]
    Sandbox(#[source] std::io::Error),
    /// The launcher refused to start it.
    #[error(transparent)]
    Launch(crate::launch::LaunchError),
    /// It ran past the limit.
    #[error("it did not answer within 10 s")]
    Silent,
    /// It could not be started.
    #[error("it could not be started: {0}")]
    NoStart(#[source] std::io::Error),
    /// It ended without printing a version.
    #[error(
        "it ended with {status} and printed no version (stdout: {stdout:?}, stderr: {stderr:?})"
    )]
    NotAVersion {
        /// How it ended.
        status: std::process::ExitStatus,
        /// The first line of its stdout, at most 120 characters.
        stdout: String,
        /// The first line of its stderr, at most 120 characters.
        stderr: String,
    },
}

async fn version_in(bin: &std::path::Path, env: &[(String, String)]) -> Result<String, NoVersion> {
    // Sandboxed like every probe run: the user's environment and real `HOME` stay out.
    let sandbox = crate::sandbox::Sandbox::create(None).map_err(NoVersion::Sandbox)?;
    let command = [bin.display().to_string(), "--version".to_string()];
    let (mut cmd, _) = crate::launch::Launch::in_sandbox(&sandbox, &command)
        .map(|l| l.envs(env.iter().cloned()).unreaped())
        .and_then(|l| l.command())
        .map_err(NoVersion::Launch)?;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = match tokio::time::timeout(Duration::from_secs(10), cmd.output()).await {
        Err(_) => return Err(NoVersion::Silent),
        Ok(Err(e)) => return Err(NoVersion::NoStart(e)),
        Ok(Ok(out)) => out,
    };
    let text = String::from_utf8_lossy(&out.stdout);
    parse_version_output(&text).ok_or_else(|| {
        let first = |b: &[u8]| {
            let t = String::from_utf8_lossy(b);
            t.lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(120)
                .collect::<String>()
        };
        NoVersion::NotAVersion {
            status: out.status,
            stdout: first(&out.stdout),
            stderr: first(&out.stderr),
        }
    })
}

/// Finds a version in `--version` output (`1.2.6`, `agy 1.2.6`, `v1.2.6`).
pub fn parse_version_output(text: &str) -> Option<String> {
    let t = text.trim();
    if let Ok(v) = t.parse::<AgyVersion>() {
        return Some(v.to_string());
    }
    t.split_whitespace()
        .find_map(|w| w.parse::<AgyVersion>().ok())
        .map(|v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_output_forms_are_read() {
        assert_eq!(parse_version_output("1.2.6\n").as_deref(), Some("1.2.6"));
        assert_eq!(
            parse_version_output("agy 1.2.17").as_deref(),
            Some("1.2.17")
        );
        assert_eq!(
            parse_version_output("Antigravity CLI v1.3.1 (abc)").as_deref(),
            Some("1.3.1")
        );
        assert_eq!(parse_version_output("dev build"), None);
    }
}
