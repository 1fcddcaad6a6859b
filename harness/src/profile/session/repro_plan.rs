//! Session expectations (seed 000), found by following a correct adapter through the
//! reproduction: one process while turns succeed and the model stays; a turn's result
//! is the first one that is not a replay of the last counted result (same result, no
//! advance of `num_turns`); its steps are those at or beyond the turn's first index, so
//! a late step of an earlier turn gives it neither text nor usage; a failed turn
//! releases the process; close leaves no process, a SIGTERM-ignoring agy included.

use crate::profile::repro_kit::case::{Process, ReproCase};
use crate::profile::repro_kit::plan::{duration, mentions_auth, outcomes, quote, OpPlan, Plan};
use crate::profile::repro_kit::seen::{seen, ResultSeen, Seen, StepSeen, UsageSeen};
use crate::scenario::{HistoryExpect, JournalExpect, OpExpect, UsageExpect};
use agy_protocol::driver::Outcome;

/// What the process has shown so far, as the correct adapter keeps it.
#[derive(Default)]
struct Baseline {
    last: Option<ResultSeen>,
    max_step: Option<u64>,
}

/// What one turn came to.
struct TurnVerdict {
    expect: OpExpect,
    why: Vec<String>,
    failed: bool,
    text: Option<String>,
    unanswered: bool,
}

/// Features of the reproduction, for its name.
#[derive(Default)]
struct Features {
    replay: bool,
    late: bool,
    failure_then_turn: bool,
    model_change: bool,
    sigterm_ignored: bool,
}

/// The session plan of `case`.
pub fn session_plan(case: &ReproCase) -> Plan {
    let mut f = Features::default();
    let first_model = case.processes.iter().find_map(|p| p.model.clone());
    let mut ops = vec![open_op(first_model.as_deref())];
    let mut model = first_model;
    let mut base = Baseline::default();
    let mut pending: Vec<(usize, Seen)> = Vec::new();
    let (mut processes, mut released, mut any_failure) = (1u32, false, false);
    let mut answers: Vec<String> = Vec::new();
    let mut late_texts: Vec<String> = Vec::new();
    let total_turns: usize = case.processes.iter().map(|p| p.turns.len()).sum();
    let mut done = 0;
    let mut unanswered = 0;
    for p in &case.processes {
        if p.model.is_some() && p.model != model {
            model.clone_from(&p.model);
            f.model_change = true;
            ops.push(select_op(model.as_deref().unwrap_or_default(), &p.origin));
            released = true;
        }
        f.sigterm_ignored |= ignores_sigterm(p);
        for t in &p.turns {
            if released {
                processes += 1;
                base = Baseline::default();
                pending.clear();
                released = false;
            }
            pending.extend(t.steps.iter().map(|s| (s.line, seen(s))));
            let events = std::mem::take(&mut pending);
            let v = judge_turn(
                &events,
                &mut base,
                &mut pending,
                &answers,
                &mut late_texts,
                &mut f,
            );
            done += 1;
            unanswered += usize::from(v.unanswered);
            let mut expect = v.expect;
            if v.failed {
                any_failure = true;
                released = true;
                if done < total_turns {
                    expect.next_turn_on_new_process = Some(true);
                    f.failure_then_turn = true;
                }
            }
            answers.extend(v.text);
            ops.push(OpPlan {
                action: format!("turn = {{ text = {} }}", quote(&t.text)),
                reply_within: None,
                expect,
                why: v.why,
            });
        }
    }
    ops.push(close_op());
    let (slug, summary) = name(&f, total_turns);
    Plan {
        ops,
        journal: JournalExpect {
            invocations: (!any_failure).then_some(processes),
            invocations_at_least: any_failure.then_some(processes),
            none_left_running: Some(true),
            ..JournalExpect::default()
        },
        history: (!any_failure).then(|| HistoryExpect {
            turns: u32::try_from(total_turns).ok(),
            no_carryover: Some(true),
            ..HistoryExpect::default()
        }),
        acp: None,
        slug: slug.into(),
        summary: summary.into(),
        unanswered,
    }
}

/// The op that opens the session, with the first model the report shows.
fn open_op(model: Option<&str>) -> OpPlan {
    OpPlan {
        action: match model {
            Some(m) => format!("open = {{ model = {} }}", quote(m)),
            None => "open = {}".into(),
        },
        reply_within: None,
        expect: OpExpect::default(),
        why: Vec::new(),
    }
}

/// The op that selects `model` before the turns of `origin`.
fn select_op(model: &str, origin: &str) -> OpPlan {
    OpPlan {
        action: format!("select = {{ model = {} }}", quote(model)),
        reply_within: None,
        expect: OpExpect::default(),
        why: vec![format!("{origin} runs with another model: the session releases its process and the next turn starts a new one")],
    }
}

/// The op that closes the session, and what must be gone after it.
fn close_op() -> OpPlan {
    OpPlan {
        action: "close = {}".into(),
        reply_within: None,
        expect: OpExpect {
            agy_gone_within: duration("20s"),
            ..OpExpect::default()
        },
        why: vec!["close ends the session: every agy process gone, one that ignores SIGTERM included (seed 000: SIGTERM, then SIGKILL)".into()],
    }
}

fn ignores_sigterm(p: &Process) -> bool {
    p.turns.iter().flat_map(|t| &t.steps).any(|s| {
        s.key() == "on_sigterm" && s.body().and_then(toml::Value::as_str) == Some("ignore")
    })
}

fn name(f: &Features, turns: usize) -> (&'static str, &'static str) {
    if f.replay {
        ("replayed-result-is-not-a-new-turn", "agy re-emits an earlier result when a new stdin line arrives; it is not the new turn's answer")
    } else if f.late {
        ("late-step-stays-with-its-turn", "a step of an earlier turn arrives during a later one; its text and usage stay with the earlier turn")
    } else if f.failure_then_turn {
        (
            "failed-turn-releases-the-process",
            "a turn fails; its process is released and the next turn runs on a new one",
        )
    } else if f.model_change {
        (
            "model-change-starts-a-new-process",
            "the model changes between turns; the next turn runs on a new agy process",
        )
    } else if f.sigterm_ignored {
        (
            "sigterm-ignoring-agy-is-killed-on-close",
            "agy ignores SIGTERM after answering; closing the session still ends it",
        )
    } else if turns > 1 {
        (
            "turns-share-one-process",
            "several turns run on one persistent agy process, each answered once",
        )
    } else {
        (
            "one-turn-is-answered",
            "one turn on a persistent agy process",
        )
    }
}

/// Follows the correct adapter through one turn's events; events after the counted
/// result stay in the pipe for the next turn (`rest`).
fn judge_turn(
    events: &[(usize, Seen)],
    base: &mut Baseline,
    rest: &mut Vec<(usize, Seen)>,
    answers: &[String],
    late_texts: &mut Vec<String>,
    f: &mut Features,
) -> TurnVerdict {
    let mut floor = base.max_step.map_or(0, |m| m + 1);
    let mut own: Vec<StepSeen> = Vec::new();
    let mut why = Vec::new();
    let mut max_seen = base.max_step;
    for (i, (line, ev)) in events.iter().enumerate() {
        match ev {
            Seen::Step(s) => {
                if let Some(ix) = s.index {
                    max_seen = Some(max_seen.map_or(ix, |m| m.max(ix)));
                    if ix < floor {
                        note_late(s, *line, late_texts, &mut why, f);
                        continue;
                    }
                    if s.step_type == "user_input" && ix > floor {
                        floor = ix;
                        let (late, keep): (Vec<StepSeen>, Vec<StepSeen>) = own
                            .into_iter()
                            .partition(|o| o.index.is_some_and(|x| x < ix));
                        own = keep;
                        late.iter()
                            .for_each(|s| note_late(s, *line, late_texts, &mut why, f));
                    }
                }
                own.push(s.clone());
            }
            Seen::Result(r) => {
                if let Some(prev) = &base.last {
                    let advanced = match (r.num_turns, prev.num_turns) {
                        (Some(a), Some(b)) => a > b,
                        _ => true,
                    };
                    if !advanced && r.identity == prev.identity {
                        f.replay = true;
                        why.push(format!("report line {line}: the previous result again (a replay): not this turn's result"));
                        continue;
                    }
                }
                rest.extend(events[i + 1..].iter().cloned());
                let v = counted(r, *line, &own, base, answers, late_texts, why);
                base.max_step = max_seen;
                return v;
            }
            Seen::Exit(_) | Seen::Crash | Seen::Hang => {
                why.push("agy ends or stalls before a result: the turn fails and its process is released".into());
                return TurnVerdict {
                    unanswered: true,
                    ..failed(
                        &[Outcome::Timeout, Outcome::Permanent, Outcome::Transient],
                        None,
                        why,
                    )
                };
            }
            _ => {}
        }
    }
    why.push("the turn shows no result: agy ends the turn's output without one, so the turn cannot succeed".into());
    TurnVerdict {
        unanswered: true,
        ..failed(
            &[Outcome::Timeout, Outcome::Permanent, Outcome::Transient],
            None,
            why,
        )
    }
}

fn note_late(
    s: &StepSeen,
    line: usize,
    late: &mut Vec<String>,
    why: &mut Vec<String>,
    f: &mut Features,
) {
    f.late = true;
    why.push(format!(
        "report line {line}: a step of an earlier turn (index {}) arrives late: not this turn's",
        s.index.unwrap_or_default()
    ));
    if let Some(t) = s.text.clone().filter(|t| !t.trim().is_empty()) {
        late.push(t);
    }
}

fn failed(classes: &[Outcome], retryable: Option<bool>, why: Vec<String>) -> TurnVerdict {
    TurnVerdict {
        expect: OpExpect {
            outcome: outcomes(classes),
            retryable,
            agy_gone_within: duration("10s"),
            ..OpExpect::default()
        },
        why,
        failed: true,
        text: None,
        unanswered: false,
    }
}

/// The turn's counted result, judged (seed 000: a native failure, including a
/// `num_turns` that did not advance, fails the turn).
fn counted(
    r: &ResultSeen,
    line: usize,
    own: &[StepSeen],
    base: &mut Baseline,
    answers: &[String],
    late_texts: &[String],
    mut why: Vec<String>,
) -> TurnVerdict {
    let prev = base.last.replace(r.clone());
    let stalled = match (prev.as_ref().and_then(|p| p.num_turns), r.num_turns) {
        (Some(b), Some(a)) => a <= b,
        _ => false,
    };
    match r.status.as_str() {
        "SUCCESS" if stalled => {
            why.push(format!("report line {line}: SUCCESS, but num_turns did not advance: the turn fails (seed 000)"));
            failed(&[Outcome::Permanent, Outcome::Transient], None, why)
        }
        "SUCCESS" => success(r, line, own, answers, late_texts, why),
        "ERROR" if mentions_auth(&r.error) => {
            why.push(format!(
                "report line {line}: an ERROR naming authentication: an auth error, not retryable"
            ));
            failed(&[Outcome::Auth], Some(false), why)
        }
        s => {
            why.push(format!(
                "report line {line}: status {s}: the turn fails and its process is released"
            ));
            failed(&[Outcome::Permanent, Outcome::Transient], None, why)
        }
    }
}

fn success(
    r: &ResultSeen,
    line: usize,
    own: &[StepSeen],
    answers: &[String],
    late_texts: &[String],
    mut why: Vec<String>,
) -> TurnVerdict {
    let streamed: String = own
        .iter()
        .filter(|s| s.step_type == "agent_response")
        .filter_map(|s| s.text.as_deref())
        .collect();
    let text = if streamed.is_empty() {
        r.response.clone()
    } else {
        Some(streamed)
    };
    why.push(format!("report line {line}: SUCCESS: this turn's result; its text is what its own steps streamed (else the response)"));
    let lacks: Vec<String> = answers
        .iter()
        .chain(late_texts)
        .filter(|t| !t.trim().is_empty())
        .filter(|t| !text.as_deref().is_some_and(|x| x.contains(t.as_str())))
        .cloned()
        .fold(Vec::new(), |mut v, t| {
            if !v.contains(&t) {
                v.push(t);
            }
            v
        });
    let usage = own_usage(own);
    if usage.is_some() {
        why.push("its usage is the sum of its own steps' usage (a late step's tokens were an earlier turn's cost)".into());
    }
    TurnVerdict {
        expect: OpExpect {
            outcome: outcomes(&[Outcome::Success]),
            text: text.clone(),
            text_lacks: lacks,
            usage,
            ..OpExpect::default()
        },
        why,
        failed: false,
        text,
        unanswered: false,
    }
}

/// The sum of the turn's own steps' usage, when every one that has usage gives counts.
fn own_usage(own: &[StepSeen]) -> Option<UsageExpect> {
    let mut sum = (0, 0, 0);
    let mut any = false;
    for u in own.iter().filter_map(|s| s.usage) {
        match u {
            UsageSeen::Counts(i, o, t) => {
                sum = (sum.0 + i, sum.1 + o, sum.2 + t);
                any = true;
            }
            UsageSeen::Zero => any = true,
            UsageSeen::Default => return None,
        }
    }
    any.then_some(UsageExpect {
        input_tokens: Some(sum.0),
        output_tokens: Some(sum.1),
        total_tokens: Some(sum.2),
    })
}
