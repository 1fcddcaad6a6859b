//! The runner: per scenario a sandbox, the driver in its own process group, the ops
//! sent, the journal read, every process killed at the end (also on a timeout or an
//! interrupt), and the verdict. `run_all` runs many scenarios `--jobs` at a time.

use crate::adapter_config::AdapterConfig;
use crate::check::{
    check_acp, check_history, check_invocation, check_journal, check_next_turn, check_op,
    check_probes, Failure,
};
use crate::driver_client::DriverClient;
use crate::observation::{classify, Observation, OpObservation};
use crate::report::{OpRecord, ScenarioResult, Status};
use crate::sandbox::Sandbox;
use crate::scenario::{AcpWait, OpAction, Scenario};
use agy_protocol::driver::{OpResult, Reply, RequestOp};
use agy_protocol::journal::now_us;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{watch, Semaphore};
use tokio::time::Instant;

/// How a run is set up.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// The adapter under test.
    pub config: AdapterConfig,
    /// The fake-agy binary installed as `agy`.
    pub fake_agy: PathBuf,
    /// The fake Antigravity ACP agent installed as `agy_acp_server` (acp scenarios).
    pub fake_agy_acp: Option<PathBuf>,
    /// Every scripted delay and adapter timeout is multiplied by this.
    pub time_scale: agy_protocol::TimeScale,
    /// Keep sandbox folders for inspection.
    pub keep_sandboxes: bool,
    /// Set for a live run: the real agy stands behind the live wrapper.
    pub live: Option<Arc<crate::live::LiveRun>>,
    /// The agy version fake-agy models (`FAKE_AGY_VERSION`); a script's own
    /// `[script] agy` still wins. None: fake-agy's default.
    pub agy_version: Option<agy_protocol::AgyVersion>,
}

impl RunSettings {
    /// These settings with at most `slack` added to each time-scaled bound (the
    /// adapter's `[timeouts] slack`, kept when already lower).
    pub fn with_slack_at_most(&self, slack: Duration) -> RunSettings {
        let mut s = self.clone();
        s.config.timeouts.slack = s.config.timeouts.slack.0.min(slack).into();
        s
    }
}

/// A cancellation signal shared by every scenario of a run (set on SIGINT).
pub type Cancel = watch::Receiver<bool>;

struct Ctx<'a> {
    s: &'a Scenario,
    settings: &'a RunSettings,
    sandbox: &'a Sandbox,
    env: Vec<(String, String)>,
    scale: f64,
}

impl Ctx<'_> {
    fn scaled(&self, d: Duration) -> Duration {
        d.mul_f64(self.scale) + self.settings.config.timeouts.slack.0
    }

    /// What an op's reply may take beyond its time-scaled bound because of timeouts
    /// the adapter declares it cannot scale (`[timeouts] kill_grace_s`,
    /// `scales_timeout_s = false`). Only ops that carry `timeout_s` wait that long.
    fn unscaled_extra(&self, req: &RequestOp) -> Duration {
        let t = &self.settings.config.timeouts;
        let RequestOp::Generate {
            timeout_s: Some(timeout_s),
            ..
        } = req
        else {
            return Duration::ZERO;
        };
        let mut extra = t.kill_grace_s.get();
        if !t.scales_timeout_s {
            extra += timeout_s.max(0.0) * (1.0 - self.scale).max(0.0);
        }
        Duration::try_from_secs_f64(extra).unwrap_or(Duration::ZERO)
    }

    async fn start_driver(&self) -> Result<DriverClient, String> {
        let t = &self.settings.config.timeouts;
        let mut d = DriverClient::start(
            &self.settings.config.adapter.command,
            &self.env,
            &self.sandbox.work(),
            &self.sandbox.driver_stderr(),
        )
        .map_err(|e| e.to_string())?;
        let hello = d
            .call(RequestOp::Hello {}, t.startup.0)
            .await
            .map_err(|e| format!("driver did not answer `hello`: {e}"))?;
        let profile = self.s.meta.profile;
        let offered = &hello.result.profiles;
        if !offered.is_empty() && !offered.contains(&profile) {
            let names: Vec<&str> = offered.iter().map(|p| p.as_str()).collect();
            return Err(format!(
                "driver says it implements {names:?}, not `{profile}`"
            ));
        }
        Ok(d)
    }
}

struct Pending {
    index: usize,
    name: &'static str,
    id: u64,
    sent_us: u64,
    deadline: Instant,
}

async fn collect(
    ctx: &Ctx<'_>,
    driver: &mut DriverClient,
    pending: &mut Vec<Pending>,
    obs: &mut Observation,
) {
    for p in pending.drain(..) {
        let reply = driver.reply(p.id, p.deadline).await;
        let outcome = reply
            .as_ref()
            .ok()
            .and_then(|r| classify(r, &ctx.settings.config.errors));
        let mut o = OpObservation {
            index: p.index,
            name: p.name,
            sent_us: p.sent_us,
            replied_us: now_us(),
            reply,
            outcome,
            still_running: None,
        };
        let gone_within = ctx
            .s
            .ops
            .get(p.index - 1)
            .and_then(|spec| spec.expect.agy_gone_within);
        let mut running = obs.probe(&ctx.sandbox.journal(), ctx.sandbox.marker());
        if let Some(bound) = gone_within {
            let deadline = Instant::now() + ctx.scaled(bound.0);
            // Waiting on the kernel: the running agys' pidfds, until each has exited
            // or the bound runs out; then the journal is read again, for an agy
            // started meanwhile. A process that never ends (a fault the scenario
            // catches) costs one wait, not a probe every few milliseconds.
            while !running.is_empty() && Instant::now() < deadline {
                let left = agy_process::wait_gone_until(&running, deadline).await;
                let before = std::mem::take(&mut running);
                running = obs.probe(&ctx.sandbox.journal(), ctx.sandbox.marker());
                if left.is_empty() && running == before {
                    // No pidfd for a process `/proc` still shows running (none left
                    // to open): look again shortly rather than spin.
                    tokio::time::sleep_until(
                        (Instant::now() + Duration::from_millis(5)).min(deadline),
                    )
                    .await;
                }
            }
            o.still_running = Some(running);
        }
        obs.ops.push(o);
    }
}

/// Waits until the ACP journal holds `wait.count` requests or notifications of
/// `wait.method`, polling the file until `within` runs out.
async fn wait_for_acp(ctx: &Ctx<'_>, wait: &AcpWait, within: Duration) -> Result<(), String> {
    let deadline = Instant::now() + within;
    let path = ctx.sandbox.acp_journal();
    loop {
        let seen = agy_protocol::acp::read_acp_journal(&path)
            .map(|j| {
                j.iter()
                    .filter(|e| {
                        matches!(
                            e.kind,
                            agy_protocol::acp::AcpKind::Request
                                | agy_protocol::acp::AcpKind::Notification
                        ) && e.method.as_deref() == Some(wait.method.as_str())
                    })
                    .count()
            })
            .unwrap_or(0);
        if seen >= wait.count as usize {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "waited {within:?} for {} `{}` message(s) in the ACP journal; saw {seen}",
                wait.count, wait.method
            ));
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn run_ops(
    ctx: &Ctx<'_>,
    driver: &mut Option<DriverClient>,
    obs: &mut Observation,
) -> Result<(), String> {
    let t = &ctx.settings.config.timeouts;
    *driver = Some(ctx.start_driver().await?);
    let mut pending: Vec<Pending> = Vec::new();
    for (i, spec) in ctx.s.ops.iter().enumerate() {
        let Some(d) = driver.as_mut() else {
            return Err("driver is gone".into());
        };
        if let Some(wait) = &spec.wait_for_acp {
            wait_for_acp(ctx, wait, t.reply.0)
                .await
                .map_err(|e| format!("op {}: {e}", i + 1))?;
        }
        match &spec.action {
            OpAction::Restart => {
                collect(ctx, d, &mut pending, obs).await;
                let sent_us = now_us();
                d.stop(t.grace.0).await;
                obs.violations.append(&mut d.violations);
                *driver = None;
                let started = ctx.start_driver().await;
                let reply = match started {
                    Ok(nd) => {
                        *driver = Some(nd);
                        Ok(Reply {
                            id: 0,
                            ok: true,
                            outcome: None,
                            retryable: None,
                            error: None,
                            result: OpResult::default(),
                        })
                    }
                    Err(e) => return Err(format!("op {} restart: {e}", i + 1)),
                };
                obs.ops.push(OpObservation {
                    index: i + 1,
                    name: "restart",
                    sent_us,
                    replied_us: now_us(),
                    outcome: reply
                        .as_ref()
                        .ok()
                        .and_then(|r| classify(r, &ctx.settings.config.errors)),
                    reply,
                    still_running: None,
                });
            }
            OpAction::Request(req) => {
                let within = spec
                    .reply_within
                    .as_ref()
                    .map(|w| ctx.scaled(w.0))
                    .unwrap_or(t.reply.0)
                    + ctx.unscaled_extra(req);
                let sent_us = now_us();
                match d.send(req.clone()).await {
                    Ok(id) => pending.push(Pending {
                        index: i + 1,
                        name: req.name(),
                        id,
                        sent_us,
                        deadline: Instant::now() + within,
                    }),
                    Err(e) => {
                        collect(ctx, d, &mut pending, obs).await;
                        obs.ops.push(OpObservation {
                            index: i + 1,
                            name: req.name(),
                            sent_us,
                            replied_us: now_us(),
                            reply: Err(e),
                            outcome: None,
                            still_running: None,
                        });
                        continue;
                    }
                }
                if !spec.concurrent {
                    collect(ctx, d, &mut pending, obs).await;
                }
            }
        }
    }
    if let Some(d) = driver.as_mut() {
        collect(ctx, d, &mut pending, obs).await;
    }
    Ok(())
}

/// Runs one scenario to its verdict: prepare the sandbox, execute the ops, tear every
/// process down, judge. Every process it started is gone when this returns.
pub async fn run_scenario(s: &Scenario, settings: &RunSettings, cancel: Cancel) -> ScenarioResult {
    let started = std::time::Instant::now();
    if let Some(note) = skip_reason(s, settings) {
        return early_result(s, Status::Skipped, note);
    }
    let (mut sandbox, env, scale) = match prepare(s, settings) {
        Ok(prepared) => prepared,
        Err(note) => return early_result(s, Status::Error, note),
    };
    let ctx = Ctx {
        s,
        settings,
        sandbox: &sandbox,
        env,
        scale,
    };
    let (mut obs, driver, ended) = execute(&ctx, cancel).await;
    tear_down(&ctx, driver, &mut obs, ended.is_ok()).await;
    let mut result = verdict(&ctx, &obs, ended);
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

/// How a run of the ops ended: `Ok`, or the status and note that cut it short.
type Ended = Result<(), (Status, String)>;

/// The environment the driver is started with.
type Env = Vec<(String, String)>;

/// The result of a scenario that never ran, with its status and why.
fn early_result(s: &Scenario, status: Status, note: String) -> ScenarioResult {
    ScenarioResult {
        status,
        note: Some(note),
        ..passed_result(s)
    }
}

/// A passing result for `s` with nothing observed yet.
fn passed_result(s: &Scenario) -> ScenarioResult {
    ScenarioResult {
        name: s.meta.name.clone(),
        path: crate::locate::shown_path(&s.path),
        profile: s.meta.profile.to_string(),
        covers: s.meta.covers.clone(),
        description: s.meta.description.clone(),
        status: Status::Passed,
        failures: Vec::new(),
        advice: Vec::new(),
        duration_ms: 0,
        note: None,
        ops: Vec::new(),
        sandbox: None,
        driver_stderr: None,
    }
}

/// Why `s` is skipped in this run, if it is.
fn skip_reason(s: &Scenario, settings: &RunSettings) -> Option<String> {
    if !settings.config.adapter.profiles.contains(&s.meta.profile) {
        return Some(format!(
            "the adapter does not implement the `{}` profile",
            s.meta.profile
        ));
    }
    if settings.live.as_ref().is_some_and(|l| l.spent()) {
        return Some("skipped for budget: the live budget of agy invocations is spent".into());
    }
    None
}

/// The sandbox, the driver's environment and the time scale of one run (of a scenario,
/// or of the bench's driver alone).
pub(crate) fn prepare(s: &Scenario, settings: &RunSettings) -> Result<(Sandbox, Env, f64), String> {
    // A live run installs agy-harness itself as `agy`: the wrapper in front of the
    // real binary (crate::live).
    let installed = match &settings.live {
        Some(_) => std::env::current_exe().unwrap_or_else(|_| settings.fake_agy.clone()),
        None => settings.fake_agy.clone(),
    };
    let sandbox = Sandbox::create(Some(&installed))
        .map_err(|e| format!("failed to create the sandbox: {e}"))?;
    let scale = s.meta.time_scale.unwrap_or(settings.time_scale).get();
    let fake = s.fake_script();
    let mut env = sandbox.env(fake.as_ref().map(|(f, t)| (f.as_path(), *t)), scale);
    // The sandbox's own variables win: a config file setting one is refused when read
    // (adapter_config), and one built in code cannot replace them either.
    env.extend(
        settings
            .config
            .adapter
            .env
            .iter()
            .filter(|(k, _)| !agy_protocol::env::is_sandbox_owned(k))
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    if let Some(live) = &settings.live {
        let mut extra = live.env(&sandbox.home());
        extra.extend(live.record_env(&sandbox.fake_state()));
        env.retain(|(k, _)| !extra.iter().any(|(e, _)| e == k));
        env.extend(extra);
    }
    // The run's version (a matrix column) wins over the version the scenario models.
    if let Some(v) = settings.agy_version.or(s.meta.agy) {
        env.push((
            agy_protocol::env::FAKE_AGY_VERSION.to_string(),
            v.to_string(),
        ));
    }
    if s.meta.agy_installed == Some(false) {
        sandbox.without_agy(&mut env);
    }
    if s.meta.profile == crate::scenario::Profile::Acp {
        match &settings.fake_agy_acp {
            Some(fake) => sandbox
                .install_acp_agent(fake, s.fake_acp_script().as_deref(), &mut env)
                .map_err(|e| format!("failed to install fake-agy-acp in the sandbox: {e}"))?,
            None => {
                return Err(format!(
                "no fake-agy-acp binary: build it with `cargo build -p fake-agy-acp`, or set `{}`",
                agy_protocol::env::AGY_HARNESS_FAKE_AGY_ACP
            ))
            }
        }
    }
    Ok((sandbox, env, scale))
}

/// Sends the ops within the scenario's time limit, or until `cancel`; returns what was
/// observed, the driver if one was started, and how the run ended.
async fn execute(ctx: &Ctx<'_>, mut cancel: Cancel) -> (Observation, Option<DriverClient>, Ended) {
    let s = ctx.s;
    let limit = s
        .meta
        .timeout
        .as_ref()
        .map(|t| t.0)
        .unwrap_or(ctx.settings.config.timeouts.scenario.0)
        + s.ops
            .iter()
            .filter_map(|op| match &op.action {
                OpAction::Request(req) => Some(ctx.unscaled_extra(req)),
                OpAction::Restart => None,
            })
            .sum::<Duration>();
    let mut obs = Observation::default();
    let mut driver: Option<DriverClient> = None;
    let mut ended: Ended = Ok(());
    tokio::select! {
        r = tokio::time::timeout(limit, run_ops(ctx, &mut driver, &mut obs)) => match r {
            Ok(Ok(())) => {}
            Ok(Err(msg)) => ended = Err((Status::Error, msg)),
            Err(_) => ended = Err((Status::TimedOut, format!("the scenario did not finish within {limit:?}"))),
        },
        _ = cancel.wait_for(|c| *c) => ended = Err((Status::Interrupted, "interrupted".into())),
    }
    (obs, driver, ended)
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
    if s.meta.profile == crate::scenario::Profile::Acp {
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
    if s.meta.profile == crate::scenario::Profile::Acp {
        obs.read_acp(&sandbox.acp_journal());
    }
    obs.driver_stderr_tail = tail(&sandbox.driver_stderr(), 2000);
}

/// The scenario's result from what was observed and how the run ended.
fn verdict(ctx: &Ctx<'_>, obs: &Observation, ended: Ended) -> ScenarioResult {
    let (s, settings) = (ctx.s, ctx.settings);
    let mut result = passed_result(s);
    // A driver that never got going leaves nothing worth judging beyond that.
    let mut failures = match &ended {
        Err((Status::Error, _)) if obs.ops.is_empty() => Vec::new(),
        _ => judge(ctx, obs),
    };
    if !settings.config.adapter.strict {
        let (advice, contract): (Vec<Failure>, Vec<Failure>) =
            failures.into_iter().partition(|f| f.seed_choice.is_some());
        failures = contract;
        result.advice = advice;
    }
    match ended {
        Ok(()) => {}
        Err((Status::Interrupted, msg)) => {
            result.status = Status::Interrupted;
            result.note = Some(msg);
        }
        Err((status, msg)) => {
            failures.insert(0, run_cut_short(obs, status, &msg));
            result.status = status;
            result.note = Some(msg);
        }
    }
    if result.status == Status::Passed && !failures.is_empty() {
        result.status = Status::Failed;
    }
    apply_expected_failure(s, settings, &mut result, &mut failures);
    if result.status != Status::Passed && !obs.driver_stderr_tail.is_empty() {
        result.driver_stderr = Some(obs.driver_stderr_tail.clone());
    }
    result.failures = failures;
    result.ops = obs.ops.iter().map(op_record).collect();
    result
}

/// The failure that says the run did not reach its end, placed at the next op.
fn run_cut_short(obs: &Observation, status: Status, msg: &str) -> Failure {
    let place = obs.ops.len() + 1;
    Failure::new(
        format!("op {place}").as_str(),
        if status == Status::TimedOut {
            "scenario timeout"
        } else {
            "driver"
        },
        "the scenario runs to its end",
        msg.to_string(),
    )
}

/// Turns a failure the adapter config expects into an expected failure, and a pass of
/// such a scenario into an unexpected pass.
fn apply_expected_failure(
    s: &Scenario,
    settings: &RunSettings,
    result: &mut ScenarioResult,
    failures: &mut Vec<Failure>,
) {
    let Some(xf) = settings.config.expects_failure(&s.meta.name) else {
        return;
    };
    match result.status {
        Status::Failed | Status::TimedOut | Status::Error => {
            result.status = Status::ExpectedFailure;
            result.note = Some(xf.reason.clone());
        }
        Status::Passed => {
            result.status = Status::UnexpectedPass;
            failures.push(Failure::new(
                "adapter config",
                "expected_failure",
                format!("`{}` fails ({})", s.meta.name, xf.reason),
                "it passes now: remove it from the expected-failure list",
            ));
        }
        _ => {}
    }
}

/// One op as the report lists it.
fn op_record(o: &OpObservation) -> OpRecord {
    OpRecord {
        index: o.index,
        op: o.name.to_string(),
        outcome: o.outcome.map(|c| c.to_string()),
        error: o
            .reply
            .as_ref()
            .ok()
            .and_then(|r| r.error.as_ref().map(|e| e.name.clone())),
        no_reply: o.reply.as_ref().err().map(|e| e.to_string()),
        duration_ms: o.replied_us.saturating_sub(o.sent_us) / 1000,
    }
}

fn judge(ctx: &Ctx<'_>, obs: &Observation) -> Vec<Failure> {
    let s = ctx.s;
    let mut out = Vec::new();
    // A broken fake explains everything after it: say so first.
    for r in &obs.journal {
        let code = r.exit.as_ref().and_then(|x| x.code);
        if code == Some(agy_protocol::script::FAKE_BROKEN_EXIT) {
            out.push(Failure::new(
                format!("invocation {}", r.invocation),
                "fake-agy works",
                "agy exits as the script says",
                format!(
                    "exit {}: fake-agy itself is broken (a bad script, trace or knob), not the adapter",
                    agy_protocol::script::FAKE_BROKEN_EXIT
                ),
            ));
        }
    }
    for o in &obs.ops {
        if let Some(spec) = s.ops.get(o.index - 1) {
            let mut failures: Vec<Failure> = check_op(&spec.expect, o, &ctx.sandbox.work())
                .into_iter()
                .chain(check_next_turn(&spec.expect, o, obs))
                .map(|f| f.seed_choice(spec.expect.strict.as_ref()))
                .collect();
            for f in failures.iter_mut().filter(|f| f.expectation == "text") {
                if let Some(n) = earlier_answer(s, o.index, &f.observed) {
                    *f = f.clone().closest(format!(
                        "this is op {n}'s answer: an earlier turn's result (a replay?) taken as this turn's"
                    ));
                }
            }
            if !failures.is_empty() {
                let seen = agy_during(obs, o.sent_us, o.replied_us);
                for f in failures.iter_mut() {
                    if matches!(f.expectation.as_str(), "outcome" | "retryable" | "output") {
                        f.evidence.extend(seen.iter().cloned());
                    }
                }
            }
            out.extend(failures);
        }
    }
    for v in &obs.violations {
        out.push(Failure::new(
            "driver",
            "protocol",
            "JSON lines of driver protocol v1 on stdout",
            format!("{:?}: {}", v.line, v.problem),
        ));
    }
    if let Some(e) = &obs.journal_error {
        out.push(Failure::new(
            "journal",
            "readable",
            "a readable journal",
            e.clone(),
        ));
    }
    if let Some(j) = &s.expect.journal {
        out.extend(
            check_journal(j, obs)
                .into_iter()
                .map(|f| f.seed_choice(j.strict.as_ref())),
        );
    }
    if s.meta.profile != crate::scenario::Profile::Acp {
        let bounds = s.expect.probes.unwrap_or_default();
        out.extend(check_probes(&bounds, obs));
    }
    let running = |pid: u32| obs.running_at_end.contains(&pid);
    let scaled = |d: Duration| ctx.scaled(d);
    for inv in &s.expect.invocations {
        out.extend(
            check_invocation(inv, obs, &scaled, &running)
                .into_iter()
                .map(|f| f.seed_choice(inv.strict.as_ref())),
        );
    }
    if let Some(h) = &s.expect.history {
        out.extend(check_history(h, &s.ops, obs));
    }
    if let Some(a) = &s.expect.acp {
        out.extend(check_acp(a, s, obs));
    }
    out
}

/// The earlier op whose expected `text` the observed text (as a failure shows it,
/// quoted) is.
fn earlier_answer(s: &Scenario, index: usize, observed: &str) -> Option<usize> {
    let text: String = serde_json::from_str(observed).ok()?;
    s.ops
        .iter()
        .take(index.saturating_sub(1))
        .enumerate()
        .find(|(_, op)| {
            op.expect
                .text
                .as_deref()
                .is_some_and(|t| t.trim() == text.trim())
        })
        .map(|(i, _)| i + 1)
}

/// What agy did while an op was in flight, one line per invocation, as evidence.
fn agy_during(obs: &Observation, from_us: u64, to_us: u64) -> Vec<String> {
    obs.journal
        .iter()
        .filter(|r| r.started_us >= from_us && r.started_us <= to_us)
        .map(|r| {
            let end = match &r.exit {
                Some(x) => match (x.code, &x.signal) {
                    (Some(c), _) => format!("exit {c}"),
                    (None, Some(sig)) => format!("died by {sig}"),
                    _ => "ended".to_string(),
                },
                None if r.complete => "ended".to_string(),
                None => "no final record (killed or still running)".to_string(),
            };
            let signals: Vec<&str> = r.signals.iter().map(|x| x.signal.as_str()).collect();
            let files: Vec<String> = r
                .files
                .iter()
                .map(|f| {
                    let name = std::path::Path::new(&f.path)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    format!("{name} ({} B)", f.bytes)
                })
                .collect();
            let probe = if r.kind() == agy_protocol::command_line::InvocationKind::Probe {
                "probe, not a turn; "
            } else {
                ""
            };
            format!(
                "agy invocation {} ({probe}pid {}, rule {}): {end}{}, stdout {} B, stderr {} B, files [{}]",
                r.invocation,
                r.pid,
                r.rule.as_deref().unwrap_or("-"),
                if signals.is_empty() {
                    String::new()
                } else {
                    format!(", signals {}", signals.join(" "))
                },
                r.stdout_bytes,
                r.stderr_bytes,
                files.join(", ")
            )
        })
        .collect()
}

fn tail(path: &std::path::Path, max: usize) -> String {
    let Ok(bytes) = std::fs::read(path) else {
        return String::new();
    };
    let start = bytes.len().saturating_sub(max);
    String::from_utf8_lossy(&bytes[start..])
        .trim_end()
        .to_string()
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
                        name,
                        path,
                        profile,
                        covers: Vec::new(),
                        description: None,
                        status: Status::Error,
                        failures: vec![Failure::new(
                            "harness",
                            "no internal error",
                            "the scenario runs",
                            format!("agy-harness failed: {e}"),
                        )],
                        advice: Vec::new(),
                        duration_ms: 0,
                        note: Some("internal error in agy-harness; please report it".into()),
                        ops: Vec::new(),
                        sandbox: None,
                        driver_stderr: None,
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
            Ok((i, Ok(r))) => {
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
