//! The result of a run: one entry per scenario, and the exit code it comes to.

use super::timeline::TimelineEntry;
use crate::check::Failure;
use crate::exit_code;
use serde::Serialize;

/// How one scenario went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every expectation held.
    Passed,
    /// At least one expectation broke.
    Failed,
    /// Failed, and the adapter config lists it as an expected failure.
    ExpectedFailure,
    /// Passed, but the adapter config lists it as an expected failure: fails the run.
    UnexpectedPass,
    /// Not run (a profile the adapter does not implement).
    Skipped,
    /// The scenario's premise does not hold for the adapter (it requires what the
    /// adapter does not offer, or the adapter ran agy in a way the scenario does not
    /// model): neither failed nor passed; the note says why.
    NotApplicable,
    /// Could not be run to the end: the driver did not start or answer `hello`.
    Error,
    /// Hit the scenario's wall-clock limit.
    TimedOut,
    /// The run was interrupted while this scenario ran.
    Interrupted,
}

impl Status {
    /// True when the status fails the run.
    pub fn fails_run(self) -> bool {
        matches!(
            self,
            Status::Failed | Status::UnexpectedPass | Status::Error | Status::TimedOut
        )
    }

    /// A short word for reports.
    pub fn word(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::ExpectedFailure => "expected failure",
            Status::UnexpectedPass => "unexpected pass",
            Status::Skipped => "skipped",
            Status::NotApplicable => "not applicable",
            Status::Error => "error",
            Status::TimedOut => "timed out",
            Status::Interrupted => "interrupted",
        }
    }
}

/// One scenario's result.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioResult {
    /// Scenario name.
    pub name: String,
    /// Scenario file.
    pub path: String,
    /// Profile.
    pub profile: String,
    /// What it covers.
    pub covers: Vec<String>,
    /// The scenario's description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The verdict.
    pub status: Status,
    /// Broken expectations.
    pub failures: Vec<Failure>,
    /// Missed seed choices (`strict = "…"` expectations) when the adapter config is not
    /// strict: shown as advice, not failing the scenario.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub advice: Vec<Failure>,
    /// Broken expectations of a scenario whose basis is unverified agy behaviour, when
    /// the adapter config is not strict: reported apart, not failing the scenario.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unverified: Vec<Failure>,
    /// The unverified agy behaviour those rest on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unverified_basis: Option<String>,
    /// Expectations the run gave nothing to judge against (a `usage` expectation of a
    /// reply without usage): neither held nor broken.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_judged: Vec<String>,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// Why it was skipped, errored, or is expected to fail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Each op as it went.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ops: Vec<OpRecord>,
    /// The sandbox folder, when kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// The end of the driver's stderr, when the scenario did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub driver_stderr: Option<String>,
    /// What happened, in time order (driver requests and replies, agy invocations),
    /// when the scenario did not pass.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<TimelineEntry>,
}

/// The start of the note of a scenario skipped because the adapter does not implement
/// its profile: such skips are summed up, not listed case by case.
pub const PROFILE_SKIP: &str = "the adapter does not implement the";

/// The start of the note of a scenario whose sandbox could not be set up or could not
/// hold the kit's own files (a full disk): a setup failure, not the adapter's, so the
/// run comes to [`exit_code::COULD_NOT_RUN`].
pub const SETUP_FAILURE: &str = "setup failure:";

impl ScenarioResult {
    /// Whether the scenario ended in a setup failure ([`SETUP_FAILURE`]).
    pub fn is_setup_failure(&self) -> bool {
        self.status == Status::Error
            && self
                .note
                .as_deref()
                .is_some_and(|n| n.starts_with(SETUP_FAILURE))
    }

    /// A result of `status` with nothing observed yet: no failures, ops, notes.
    pub fn bare(name: &str, path: &str, profile: &str, status: Status) -> ScenarioResult {
        ScenarioResult {
            name: name.to_string(),
            path: path.to_string(),
            profile: profile.to_string(),
            covers: Vec::new(),
            description: None,
            status,
            failures: Vec::new(),
            advice: Vec::new(),
            unverified: Vec::new(),
            unverified_basis: None,
            not_judged: Vec::new(),
            duration_ms: 0,
            note: None,
            ops: Vec::new(),
            sandbox: None,
            driver_stderr: None,
            timeline: Vec::new(),
        }
    }

    /// Whether it was skipped only because the adapter does not implement its profile.
    pub fn skipped_for_profile(&self) -> bool {
        self.status == Status::Skipped
            && self
                .note
                .as_deref()
                .is_some_and(|n| n.starts_with(PROFILE_SKIP))
    }

    /// Where the scenario is and what it is about, for a failure's explanation.
    pub fn explanation(&self) -> String {
        match &self.description {
            Some(d) => format!("{}\n{}", self.path, d.trim()),
            None => self.path.clone(),
        }
    }
}

/// One op in a report.
#[derive(Debug, Clone, Serialize)]
pub struct OpRecord {
    /// 1-based op index.
    pub index: usize,
    /// The op's name.
    pub op: String,
    /// The outcome class, when the reply had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// The adapter's error name, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why there was no reply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_reply: Option<String>,
    /// Whether the scenario has an expectation on this op.
    pub expected: bool,
    /// Time from request to reply, in milliseconds.
    pub duration_ms: u64,
}

/// A whole run.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// The adapter's name.
    pub adapter: String,
    /// Start time, RFC 3339.
    pub started: String,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// The run's time scale.
    pub time_scale: f64,
    /// False when the run was interrupted: `results` is partial.
    pub complete: bool,
    /// Results, in catalogue order.
    pub results: Vec<ScenarioResult>,
    /// Selected scenarios that never started (interrupted run).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<String>,
}

impl RunReport {
    /// Count of results with `status`.
    pub fn count(&self, status: Status) -> usize {
        self.results.iter().filter(|r| r.status == status).count()
    }

    /// The process exit code this run comes to.
    pub fn exit_code(&self) -> i32 {
        if !self.complete || self.results.iter().any(ScenarioResult::is_setup_failure) {
            exit_code::COULD_NOT_RUN
        } else if self.results.iter().any(|r| r.status.fails_run()) {
            exit_code::SCENARIO_FAILED
        } else {
            exit_code::ALL_CONFORM
        }
    }
}
