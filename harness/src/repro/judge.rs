//! Runs reproductions with the ordinary runner and says what each came to: passed,
//! failed (which expectations), or could not be judged. A failure is named by its
//! expectation, its expected value and its place without op numbers, so it is still
//! "the same failure" after the minimiser removed earlier ops.

use crate::check::Failure;
use crate::profile::repro_kit::case::ReproCase;
use crate::report::{ScenarioResult, Status};
use crate::repro::plan::plan;
use crate::repro::render::{render, Provenance};
use crate::runner::{run_all, RunSettings};
use crate::scenario::{parse_scenario, Scenario};
use agy_protocol::diag::SourceFile;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a run of one reproduction came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Every expectation held.
    Passed,
    /// These expectations broke (contract ones; seed-choice advice left out).
    Failed(Vec<Failure>),
    /// The run did not reach a verdict (the driver did not start, the scenario is
    /// invalid): the reason.
    Unjudged(String),
}

/// A failure's identity across shrinking: `op generate: outcome = timeout`,
/// `journal: invocations = 1` (the same check with the same expected value).
pub fn signature(f: &Failure) -> String {
    let place: String = f
        .place
        .split_whitespace()
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(" ");
    format!("{place}: {} = {}", f.expectation, f.expected)
}

impl Verdict {
    /// True when a failure has this signature.
    pub fn fails_with(&self, sig: &str) -> bool {
        matches!(self, Verdict::Failed(fs) if fs.iter().any(|f| signature(f) == sig))
    }
}

fn verdict(r: &ScenarioResult) -> Verdict {
    match r.status {
        Status::Passed | Status::ExpectedFailure => Verdict::Passed,
        Status::Failed | Status::UnexpectedPass => {
            let fs: Vec<Failure> = r
                .failures
                .iter()
                .filter(|f| f.seed_choice.is_none())
                .cloned()
                .collect();
            if fs.is_empty() {
                Verdict::Passed
            } else {
                Verdict::Failed(fs)
            }
        }
        _ => Verdict::Unjudged(
            r.note
                .clone()
                .unwrap_or_else(|| r.status.word().to_string()),
        ),
    }
}

/// The settings of the adapter under test, of the reference adapter and of its other
/// readings.
pub type Bounds = (
    Arc<RunSettings>,
    Option<Arc<RunSettings>>,
    Vec<Arc<RunSettings>>,
);

/// Runs reproductions: writes each candidate into a work folder, parses it as the
/// catalogue does, runs the batch on the runner.
pub struct Judge {
    /// The adapter under test.
    pub settings: Arc<RunSettings>,
    /// The correct reference adapter, to confirm an expectation is the contract's.
    pub reference: Option<Arc<RunSettings>>,
    /// Other correct readings of agy's output (the profile's `readings`) that pass the
    /// original: a cut must pass each of them too.
    pub readings: Vec<Arc<RunSettings>>,
    /// The minimiser's batch is twice this; a batch runs all at once.
    pub jobs: usize,
    /// Where candidates are written.
    pub dir: PathBuf,
    /// Runs so far (each candidate × adapter is one).
    pub runs: usize,
    /// The wall-clock limit written into candidates: a cut that leaves the adapter
    /// waiting (a turn without its result) ends there instead of at the adapter's own
    /// timeout, and counts as not failing the same way.
    pub candidate_timeout: Option<std::time::Duration>,
    /// The longest run of the last batch.
    pub slowest: std::time::Duration,
    counter: usize,
}

impl Judge {
    /// A judge writing under `dir`.
    pub fn new(
        settings: Arc<RunSettings>,
        reference: Option<Arc<RunSettings>>,
        jobs: usize,
        dir: &Path,
    ) -> Judge {
        Judge {
            settings,
            reference,
            readings: Vec::new(),
            jobs: jobs.max(1),
            dir: dir.to_path_buf(),
            runs: 0,
            candidate_timeout: None,
            slowest: std::time::Duration::ZERO,
            counter: 0,
        }
    }

    /// The scenario of `case`, parsed; `None` when it does not parse (a candidate the
    /// script format cannot say).
    pub fn scenario(&mut self, case: &ReproCase) -> Option<Scenario> {
        self.counter += 1;
        let stem = format!("candidate-{}", self.counter);
        let prov = Provenance {
            timeout: self.candidate_timeout,
            ..Provenance::default()
        };
        let text = render(case, &plan(case), &stem, &prov);
        let path = self.dir.join(format!("{stem}.toml"));
        std::fs::write(&path, &text).ok()?;
        parse_scenario(&SourceFile::new(path.display().to_string(), text), &path).ok()
    }

    /// Runs `scenarios` against `settings`.
    pub async fn run(
        &mut self,
        scenarios: Vec<Scenario>,
        settings: &Arc<RunSettings>,
    ) -> Vec<Verdict> {
        self.runs += scenarios.len();
        let n = scenarios.len();
        let (_stop, cancel) = tokio::sync::watch::channel(false);
        let t0 = std::time::Instant::now();
        // The whole batch at once (the minimiser sends at most twice `jobs`): a
        // candidate that fails mostly waits (a reply or an exit that never comes, until
        // its bound), so waiting ones overlap instead of queueing behind each other.
        let (results, _) =
            run_all(scenarios, settings.clone(), n.max(1), cancel, |_, _, _| {}).await;
        self.slowest = results
            .iter()
            .map(|r| std::time::Duration::from_millis(r.duration_ms))
            .max()
            .unwrap_or_default();
        if std::env::var_os("REPRO_DEBUG").is_some() {
            eprintln!(
                "batch {n}: wall {:?}, each {:?}",
                t0.elapsed(),
                results.iter().map(|r| r.duration_ms).collect::<Vec<_>>()
            );
        }
        let mut verdicts: Vec<Verdict> = results.iter().map(verdict).collect();
        verdicts.resize(n, Verdict::Unjudged("the run was interrupted".into()));
        verdicts
    }

    /// The adapter under test on each case (an unparsable case is unjudged).
    pub async fn judge(&mut self, cases: &[ReproCase]) -> Vec<Verdict> {
        let parsed: Vec<Option<Scenario>> = cases.iter().map(|c| self.scenario(c)).collect();
        let runnable: Vec<Scenario> = parsed.iter().flatten().cloned().collect();
        let settings = self.settings.clone();
        let mut ran = self.run(runnable, &settings).await.into_iter();
        parsed
            .iter()
            .map(|p| match p {
                Some(_) => ran.next().unwrap_or(Verdict::Unjudged("not run".into())),
                None => Verdict::Unjudged("the candidate is not a valid scenario".into()),
            })
            .collect()
    }

    /// From now on candidates get at most `slack` beyond each time-scaled bound;
    /// returns the settings in force before, for [`Judge::restore`].
    pub fn tighten(&mut self, slack: std::time::Duration) -> Bounds {
        let before = (
            self.settings.clone(),
            self.reference.clone(),
            self.readings.clone(),
        );
        self.settings = Arc::new(self.settings.with_slack_at_most(slack));
        self.reference = self
            .reference
            .as_ref()
            .map(|r| Arc::new(r.with_slack_at_most(slack)));
        self.readings = self
            .readings
            .iter()
            .map(|r| Arc::new(r.with_slack_at_most(slack)))
            .collect();
        before
    }

    /// Puts back the settings [`Judge::tighten`] returned.
    pub fn restore(&mut self, (settings, reference, readings): Bounds) {
        self.settings = settings;
        self.reference = reference;
        self.readings = readings;
    }

    /// The adapter under test still fails `case` with `sig`, and every correct reading
    /// passes it.
    pub async fn confirms(&mut self, case: &ReproCase, sig: &str) -> bool {
        let fails = self
            .judge(std::slice::from_ref(case))
            .await
            .first()
            .is_some_and(|v| v.fails_with(sig));
        fails && self.correct_readings_pass(case).await
    }

    /// The reference adapter (when there is one) and every other correct reading pass
    /// `case`; stops at the first that does not.
    pub async fn correct_readings_pass(&mut self, case: &ReproCase) -> bool {
        if !matches!(
            self.reference_verdict(case).await,
            None | Some(Verdict::Passed)
        ) {
            return false;
        }
        for settings in self.readings.clone() {
            if !matches!(self.verdict_of(case, &settings).await, Verdict::Passed) {
                return false;
            }
        }
        true
    }

    /// Keeps the readings (`candidates`) that pass `case`, the original: a reading that
    /// fails it cannot say anything about a cut.
    pub async fn keep_readings_passing(
        &mut self,
        case: &ReproCase,
        candidates: Vec<Arc<RunSettings>>,
    ) {
        let mut kept = Vec::new();
        for settings in candidates {
            if matches!(self.verdict_of(case, &settings).await, Verdict::Passed) {
                kept.push(settings);
            }
        }
        self.readings = kept;
    }

    /// `settings` on `case` (an unparsable case is unjudged).
    async fn verdict_of(&mut self, case: &ReproCase, settings: &Arc<RunSettings>) -> Verdict {
        let Some(s) = self.scenario(case) else {
            return Verdict::Unjudged("the candidate is not a valid scenario".into());
        };
        self.run(vec![s], settings)
            .await
            .into_iter()
            .next()
            .unwrap_or(Verdict::Unjudged("not run".into()))
    }

    /// The correct reference adapter on `case`: `None` when there is none to ask.
    pub async fn reference_verdict(&mut self, case: &ReproCase) -> Option<Verdict> {
        let settings = self.reference.clone()?;
        Some(self.verdict_of(case, &settings).await)
    }
}
