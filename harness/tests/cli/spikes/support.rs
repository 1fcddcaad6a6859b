//! Shared helpers: locating binaries, running spikes through the library.

use agy_harness::spike::{
    load_spikes, run_spikes, FactReport, SpikeReport, SpikeRun, Target, Verdict,
};
use agy_protocol::env::AGY_HARNESS_FAKE_AGY;
use agy_protocol::AgyVersion;
use std::path::{Path, PathBuf};

/// The workspace root.
pub fn workspace() -> PathBuf {
    agy_test_support::workspace().to_path_buf()
}

/// The fake-agy binary: `AGY_HARNESS_FAKE_AGY`, else the one the build put beside this
/// test's target folder.
pub fn fake_agy() -> PathBuf {
    agy_test_support::workspace_bin("fake-agy", AGY_HARNESS_FAKE_AGY)
}

/// The time scale spike tests run fake-agy at.
pub const TIME_SCALE: f64 = 0.002;

/// Runs the shipped spikes (or `only` of them) against fake-agy with extra env.
pub fn run_fake(only: &[&str], env: &[(&str, &str)]) -> SpikeReport {
    let mut spikes = load_spikes(&workspace().join("spikes")).unwrap_or_else(|d| panic!("{d}"));
    if !only.is_empty() {
        spikes.retain(|s| only.contains(&s.id.as_str()));
    }
    let scale = agy_protocol::TimeScale::positive(TIME_SCALE).expect("in range");
    let mut target = Target::fake(fake_agy(), scale);
    target.env.extend(
        env.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<Vec<_>>(),
    );
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(run_spikes(&SpikeRun {
        spikes: &spikes,
        target: &target,
        baseline: AgyVersion::DEFAULT,
        recorder: None,
        on_run: None,
        known_version: None,
        sign_in: None,
    }))
}

/// Fact ids with this verdict.
pub fn ids(report: &SpikeReport, verdict: Verdict) -> Vec<String> {
    report
        .facts
        .iter()
        .filter(|f| f.verdict == verdict)
        .map(|f| f.fact.clone())
        .collect()
}

/// A readable dump of facts that are not `holds`, for assertion messages.
pub fn explain(report: &SpikeReport) -> String {
    report
        .facts
        .iter()
        .filter(|f| f.verdict != Verdict::Holds)
        .map(|f: &FactReport| {
            format!(
                "{} {:?}: expected {}; observed {:?}; {}",
                f.fact,
                f.verdict,
                f.expected,
                f.observed
                    .iter()
                    .map(|r| r.value.to_string())
                    .collect::<Vec<_>>(),
                f.reason.clone().unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Writes a script file into `dir` and returns its path.
pub fn script(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("script.toml");
    std::fs::write(&p, text).expect("write script");
    p
}
