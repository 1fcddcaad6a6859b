//! Judging a run: every expectation of the scenario against what was observed, the
//! evidence a failure carries, and the scenario's status.

use super::context::{Ctx, Ended};
use super::settings::RunSettings;
use crate::check::{
    check_acp, check_history, check_invocation, check_journal, check_next_turn, check_op,
    check_probes, unjudged, unmet_condition, Failure,
};
use crate::observation::{Observation, OpObservation};
use crate::report::{build_timeline, OpRecord, ScenarioResult, Status, TimelineEntry};
use crate::scenario::{OpAction, OpExpect, Scenario};
use std::time::Duration;

/// The scenario's result from what was observed and how the run ended.
pub(super) fn verdict(ctx: &Ctx<'_>, obs: &Observation, ended: Ended) -> ScenarioResult {
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
        if let Some(basis) = &s.meta.unverified {
            result.unverified = std::mem::take(&mut failures);
            result.unverified_basis = Some(basis.clone());
        }
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
    let unmodelled: Vec<String> = (obs.ops.iter())
        .filter_map(|o| {
            s.ops
                .get(o.index.wrapping_sub(1))
                .and_then(|spec| unmet(spec, obs, o))
        })
        .collect();
    super::applicable::not_applicable_when_unjudged(&mut result, &unmodelled);
    result.failures = std::mem::take(&mut failures);
    super::applicable::not_applicable_when_unadvertised(&mut result, obs);
    failures = std::mem::take(&mut result.failures);
    apply_expected_failure(s, settings, &mut result, &mut failures);
    if result.status != Status::Passed && !obs.driver_stderr_tail.is_empty() {
        result.driver_stderr = Some(crate::data_text::redacted(&obs.driver_stderr_tail));
    }
    if !matches!(result.status, Status::Passed | Status::NotApplicable) {
        result.timeline = timeline(ctx, obs);
    }
    result.failures = failures;
    result.not_judged = obs
        .ops
        .iter()
        .flat_map(|o| {
            match s
                .ops
                .get(o.index.wrapping_sub(1))
                .and_then(|spec| unmet(spec, obs, o))
            {
                Some(why) => vec![why],
                None => unjudged(&op_expect(s, o), o),
            }
        })
        .collect();
    result.ops = obs
        .ops
        .iter()
        .map(|o| op_record(o, op_expect(s, o) != OpExpect::default()))
        .collect();
    result
}

/// What happened, for reports: each op's request as the scenario writes it, with the
/// observation's replies and agy invocations.
fn timeline(ctx: &Ctx<'_>, obs: &Observation) -> Vec<TimelineEntry> {
    let requests: Vec<String> = (ctx.s.ops.iter())
        .map(|op| match &op.action {
            OpAction::Request(r) => serde_json::to_string(r).unwrap_or_else(|e| e.to_string()),
            OpAction::Restart => "restart the driver (same state dir)".to_string(),
        })
        .collect();
    build_timeline(obs, &requests, &ctx.sandbox.work())
}

/// A passing result for `s` with nothing observed yet.
pub(super) fn passed_result(s: &Scenario) -> ScenarioResult {
    ScenarioResult {
        covers: s.meta.covers.clone(),
        description: s.meta.description.clone(),
        ..ScenarioResult::bare(
            &s.meta.name,
            &crate::locate::shown_path(&s.path),
            s.meta.profile.as_str(),
            Status::Passed,
        )
    }
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
            if let Some(other) = failed_otherwise(xf, failures) {
                failures.push(other);
                return;
            }
            result.status = Status::ExpectedFailure;
            result.note = Some(xf.reason.clone());
        }
        Status::Passed if xf.intermittent => {
            result.note = Some(format!(
                "passed this time; listed as an intermittent failure: {}",
                xf.reason
            ));
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

/// The failure to add when a scenario listed with `fails_on` fails in a way the list
/// does not name: the reason the list gives is then not why it failed.
fn failed_otherwise(
    xf: &crate::adapter_config::ExpectedFailure,
    failures: &[Failure],
) -> Option<Failure> {
    if xf.fails_on.is_empty() {
        return None;
    }
    let mut other: Vec<String> = Vec::new();
    for f in failures.iter().filter(|f| !listed(&xf.fails_on, f)) {
        let shown = format!(
            "`{}: {}`",
            f.expectation,
            crate::data_text::cut(&f.observed, 80)
        );
        if !other.contains(&shown) {
            other.push(shown);
        }
    }
    if other.is_empty() {
        return None;
    }
    let listed = xf
        .fails_on
        .iter()
        .map(|e| format!("`{e}`"))
        .collect::<Vec<_>>();
    Some(Failure::new(
        "adapter config",
        "expected_failure",
        format!("fails on {} only ({})", listed.join(", "), xf.reason),
        format!(
            "fails on {} as well: not the listed failure (a new bug, or the adapter could not run)",
            other.join(", ")
        ),
    ))
}

/// Whether a `fails_on` entry names failure `f`: `expectation` names every failure of
/// that expectation, `expectation: observed` one whose observed text starts so.
fn listed(fails_on: &[String], f: &Failure) -> bool {
    fails_on.iter().any(|entry| match entry.split_once(": ") {
        Some((expectation, observed)) => {
            expectation == f.expectation && f.observed.starts_with(observed)
        }
        None => entry == &f.expectation,
    })
}

/// Why op `o`'s expectations are not judged (its `only_if` does not hold), if so.
fn unmet(spec: &crate::scenario::OpSpec, obs: &Observation, o: &OpObservation) -> Option<String> {
    spec.expect
        .only_if
        .as_ref()
        .and_then(|c| unmet_condition(c, obs, o))
}

/// The expectations of op `o` in scenario `s` (none for an op the file does not hold).
fn op_expect(s: &Scenario, o: &OpObservation) -> OpExpect {
    s.ops
        .get(o.index.wrapping_sub(1))
        .map(|spec| spec.expect.clone())
        .unwrap_or_default()
}

/// One op as the report lists it.
fn op_record(o: &OpObservation, expected: bool) -> OpRecord {
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
        expected,
        duration_ms: o.replied_us.saturating_sub(o.sent_us) / 1000,
    }
}

/// Every broken expectation of the scenario, the fake's and the driver's own failures
/// first.
fn judge(ctx: &Ctx<'_>, obs: &Observation) -> Vec<Failure> {
    let s = ctx.s;
    let mut out = broken_fake(obs);
    for o in &obs.ops {
        out.extend(op_failures(ctx, obs, o));
    }
    out.extend(run_failures(obs));
    if let Some(j) = &s.expect.journal {
        out.extend(
            check_journal(j, obs)
                .into_iter()
                .map(|f| f.seed_choice(j.strict.as_ref())),
        );
    }
    let unit = crate::profile::unit(s.meta.profile);
    if unit.judged_by_agy_journal() {
        let ops: Vec<&str> = obs.ops.iter().map(|o| o.name).collect();
        let (starts, sessions) = unit.probe_scopes.count(&ops);
        let bounds = s.expect.probes.unwrap_or_default().per(starts, sessions);
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

/// A broken fake explains everything after it: said first.
fn broken_fake(obs: &Observation) -> Vec<Failure> {
    let mut out = Vec::new();
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
    out
}

/// The broken expectations of op `o`, with what agy did meanwhile as evidence.
fn op_failures(ctx: &Ctx<'_>, obs: &Observation, o: &OpObservation) -> Vec<Failure> {
    let s = ctx.s;
    let Some(spec) = s.ops.get(o.index - 1) else {
        return Vec::new();
    };
    if unmet(spec, obs, o).is_some() {
        return Vec::new();
    }
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
        let seen = agy_during(obs, o.sent_us, o.replied_us, op_prompt(spec).as_deref());
        for f in failures.iter_mut() {
            if matches!(f.expectation.as_str(), "outcome" | "retryable" | "output") {
                f.evidence.extend(seen.iter().cloned());
            }
        }
    }
    failures
}

/// The driver's protocol violations and an unreadable journal.
fn run_failures(obs: &Observation) -> Vec<Failure> {
    let mut out = Vec::new();
    for v in &obs.violations {
        let f = Failure::new(
            "driver",
            "protocol",
            "JSON lines of driver protocol v1 on stdout",
            format!("{:?}: {}", v.line, v.problem),
        );
        out.push(if v.line.trim_start().starts_with('{') {
            f
        } else {
            f.closest("this looks like a log line: a driver writes its logs to stderr (the harness keeps its tail for the report); stdout carries only protocol lines")
        });
    }
    if let Some(e) = &obs.journal_error {
        out.push(Failure::new(
            "journal",
            "readable",
            "a readable journal",
            e.clone(),
        ));
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

/// The prompt an op sends, whatever its profile calls it (`prompt`, `text`).
fn op_prompt(spec: &crate::scenario::OpSpec) -> Option<String> {
    let crate::scenario::OpAction::Request(op) = &spec.action else {
        return None;
    };
    let v = serde_json::to_value(op).ok()?;
    ["prompt", "text"]
        .iter()
        .find_map(|k| v.get(k).and_then(|t| t.as_str()))
        .filter(|t| !t.trim().is_empty())
        .map(str::to_string)
}

/// The agy invocations that served an op: the ones started while it was in flight;
/// when ops ran concurrently and several did, the ones whose argv or stdin carries the
/// op's own prompt (all of them when none does: an adapter may rewrite prompts).
fn served_by<'a>(
    obs: &'a Observation,
    from_us: u64,
    to_us: u64,
    prompt: Option<&str>,
) -> Vec<&'a agy_protocol::journal::JournalRecord> {
    let during: Vec<_> = obs
        .journal
        .iter()
        .filter(|r| r.started_us >= from_us && r.started_us <= to_us)
        .collect();
    let Some(p) = prompt.filter(|_| during.len() > 1) else {
        return during;
    };
    let carries = |r: &&agy_protocol::journal::JournalRecord| {
        r.argv.iter().any(|a| a.contains(p)) || r.stdin.lines.iter().any(|l| l.text.contains(p))
    };
    let own: Vec<_> = during.iter().copied().filter(carries).collect();
    if own.is_empty() {
        during
    } else {
        own
    }
}

/// What agy did for an op, one line per invocation that served it, as evidence.
fn agy_during(obs: &Observation, from_us: u64, to_us: u64, prompt: Option<&str>) -> Vec<String> {
    served_by(obs, from_us, to_us, prompt)
        .into_iter()
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
            // What it printed, quoted: stderr always (agy's notices), stdout of a probe
            // (a turn's stdout is the reply the adapter read).
            let quote = |head: &str, wanted: bool| match wanted && !head.is_empty() {
                true => format!(" ({})", crate::data_text::excerpt(head, 200)),
                false => String::new(),
            };
            format!(
                "agy invocation {} ({probe}pid {}, rule {}): {end}{}, stdout {} B{}, stderr {} B{}, files [{}]",
                r.invocation,
                r.pid,
                r.rule.as_deref().unwrap_or("-"),
                if signals.is_empty() {
                    String::new()
                } else {
                    format!(", signals {}", signals.join(" "))
                },
                r.stdout_bytes,
                quote(&r.stdout_head, !probe.is_empty()),
                r.stderr_bytes,
                quote(&r.stderr_head, true),
                files.join(", ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_record as record;

    #[test]
    fn a_log_line_on_stdout_gets_the_stderr_hint_and_a_bad_json_line_does_not() {
        let violation = |line: &str| crate::driver_client::ProtocolViolation {
            line: line.into(),
            problem: "not JSON".into(),
        };
        let obs = Observation {
            violations: vec![violation("INFO starting driver"), violation("{\"id\": }")],
            ..Observation::default()
        };
        let f = run_failures(&obs);
        assert_eq!(f.len(), 2);
        assert!(
            f[0].closest.as_deref().unwrap_or("").contains("stderr"),
            "{}",
            f[0]
        );
        assert_eq!(f[1].closest, None);
    }

    #[test]
    fn concurrent_ops_each_name_the_invocation_that_carried_their_prompt() {
        let obs = Observation {
            journal: vec![
                record(1, 10, &["agy", "-p", "a red fox"], 100, Some(900)),
                record(2, 11, &["agy", "-p", "a blue whale"], 120, Some(950)),
            ],
            ..Observation::default()
        };
        let pids = |p: Option<&str>| -> Vec<u32> {
            served_by(&obs, 50, 1000, p).iter().map(|r| r.pid).collect()
        };
        assert_eq!(pids(Some("a blue whale")), [11]);
        assert_eq!(pids(Some("a red fox")), [10]);
        assert_eq!(pids(Some("rewritten by the adapter")), [10, 11]);
        assert_eq!(pids(None), [10, 11]);
        let evidence = agy_during(&obs, 50, 1000, Some("a red fox"));
        assert_eq!(evidence.len(), 1, "{evidence:?}");
        assert!(evidence[0].starts_with("agy invocation 1 "), "{evidence:?}");
    }
}
