//! The live side of `agy-harness run --agy PATH --live`: the real binary, the budget
//! shared by every scenario of the run, and the credentials choice.

use super::credentials::Credentials;
use super::record::{LiveRecorder, PARTS_DIR};
use super::wrapper::{read_used, take_invocation};
use agy_protocol::env::{
    AGY_HARNESS_LIVE_AGY, AGY_HARNESS_LIVE_BUDGET, AGY_HARNESS_LIVE_BUDGET_FILE,
    AGY_HARNESS_LIVE_RECORD,
};
use agy_protocol::redact::Redactor;
use std::path::{Path, PathBuf};

/// A live run's settings.
#[derive(Debug)]
pub struct LiveRun {
    /// The real agy.
    pub agy: PathBuf,
    /// At most this many agy invocations over the whole run.
    pub budget: u32,
    /// How each scenario gets credentials.
    pub credentials: Credentials,
    /// With `--record`: where each scenario's trace goes.
    pub recorder: Option<LiveRecorder>,
    redactor: Redactor,
    dir: tempfile::TempDir,
}

impl LiveRun {
    /// A live run of `agy` with a fresh budget counter.
    pub fn new(agy: PathBuf, budget: u32, credentials: Credentials) -> std::io::Result<LiveRun> {
        let dir = tempfile::Builder::new()
            .prefix("agy-harness-live-")
            .tempdir()?;
        Ok(LiveRun {
            agy: std::fs::canonicalize(&agy).unwrap_or(agy),
            budget,
            redactor: credentials.redactor(),
            credentials,
            recorder: None,
            dir,
        })
    }

    /// The same run, recording every scenario's agy invocations with `recorder`.
    pub fn recording(mut self, recorder: LiveRecorder) -> LiveRun {
        self.recorder = Some(recorder);
        self
    }

    /// The redactor of everything this run shows: the user's own facts, the account's
    /// when the run can see the user's credentials, and the secret formats.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Takes one invocation from the budget outside a scenario (the `--version` run of
    /// a recording); false when it is spent.
    pub fn charge_one(&self) -> bool {
        take_invocation(&self.budget_file(), self.budget).unwrap_or(false)
    }

    /// The wrapper's recording setting for a scenario whose fake state folder is
    /// `state`, when the run records.
    pub fn record_env(&self, state: &Path) -> Option<(String, String)> {
        self.recorder.as_ref().map(|_| {
            (
                AGY_HARNESS_LIVE_RECORD.to_string(),
                state.join(PARTS_DIR).display().to_string(),
            )
        })
    }

    /// Writes the trace of `scenario` from what the wrapper recorded under `state`;
    /// `Some` says what went wrong.
    pub fn record_scenario(&self, scenario: &str, adapter: &str, state: &Path) -> Option<String> {
        let recorder = self.recorder.as_ref()?;
        recorder
            .record(scenario, adapter, &state.join(PARTS_DIR))
            .err()
            .map(|e| format!("the live run was not recorded: {e}"))
    }

    /// The file counting invocations.
    pub fn budget_file(&self) -> PathBuf {
        self.dir.path().join("invocations")
    }

    /// Invocations spent so far.
    pub fn used(&self) -> u32 {
        read_used(&self.budget_file())
    }

    /// True when no invocation is left.
    pub fn spent(&self) -> bool {
        self.used() >= self.budget
    }

    /// The environment the wrapper installed as `agy` needs; with a sandbox `HOME`,
    /// also the `HOME` the credentials choice gives.
    pub fn env(&self, sandbox_home: &Path) -> Vec<(String, String)> {
        let home = self
            .credentials
            .home_for(sandbox_home)
            .display()
            .to_string();
        vec![
            (AGY_HARNESS_LIVE_AGY.into(), self.agy.display().to_string()),
            (AGY_HARNESS_LIVE_BUDGET.into(), self.budget.to_string()),
            (
                AGY_HARNESS_LIVE_BUDGET_FILE.into(),
                self.budget_file().display().to_string(),
            ),
            ("HOME".into(), home.clone()),
            ("USERPROFILE".into(), home),
        ]
    }
}
