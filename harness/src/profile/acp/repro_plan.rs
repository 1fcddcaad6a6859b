//! The expectations of an ACP reproduction: what a correct client of the `acp` profile
//! reports for what the agent did, by seed 003's restore contract as the harness judges
//! it (docs/acp-profile.md): a turn the agent answered `end_turn` succeeds with the
//! text it streamed; a turn cut by the agent's death fails with `AcpAgentExitedError`
//! and is restored with an explicit gap; a failed restore is surfaced and the handle
//! stays `restorable`, never followed by `session/new`; no prompt is sent twice; the
//! load replay stays out of the history; late output (after a response or a restore)
//! joins no turn and late permission requests are answered `cancelled`.

use crate::profile::repro_kit::case::{Process, ReproCase, ScriptStep};
use crate::profile::repro_kit::plan::{outcomes, quote, OpPlan, Plan};
use crate::scenario::{AcpExpect, HistoryExpect, JournalExpect, OpExpect};
use agent_client_protocol::v1::schema::AGENT_METHOD_NAMES;
use agy_protocol::acp::script::StopReasonName;
use agy_protocol::acp::ClientMethod;
use agy_protocol::driver::{AcpRestoreState, Outcome};
use serde::Deserialize;

/// How a turn ended in the script.
#[derive(Debug, Clone, PartialEq)]
enum Ending {
    /// The agent answered with this stop reason (late steps may follow).
    Responded(StopReasonName),
    /// The agent died before answering.
    Died,
    /// The agent never answered.
    Hangs,
}

fn ending(steps: &[ScriptStep]) -> Ending {
    for s in steps {
        match s.key() {
            "respond" => return Ending::Responded(stop_reason(s)),
            "crash" | "exit" => return Ending::Died,
            _ => {}
        }
    }
    Ending::Hangs
}

/// The stop reason of a `respond` step. The converter writes only reasons fake-agy-acp
/// can send and `end_turn` for any other (`repro/acp_convert.rs`), so a step without a
/// reason it knows reads as `end_turn` here too.
fn stop_reason(step: &ScriptStep) -> StopReasonName {
    step.body()
        .and_then(|v| v.as_str())
        .and_then(|r| {
            StopReasonName::deserialize(
                serde::de::value::StrDeserializer::<serde::de::value::Error>::new(r),
            )
            .ok()
        })
        .unwrap_or(StopReasonName::EndTurn)
}

/// The text a turn streamed before its response.
fn streamed(steps: &[ScriptStep]) -> String {
    steps
        .iter()
        .take_while(|s| s.key() != "respond")
        .filter(|s| s.key() == "text")
        .filter_map(|s| s.body().and_then(|v| v.as_str()))
        .collect()
}

/// Steps after the response: late ones.
fn late(steps: &[ScriptStep]) -> &[ScriptStep] {
    let at = steps.iter().position(|s| s.key() == "respond");
    at.map_or(&[][..], |i| &steps[i + 1..])
}

/// What the ops of one process came to, for the scenario-wide expectations.
#[derive(Default)]
struct Tally {
    ops: Vec<OpPlan>,
    prompts: Vec<String>,
    succeeded: u32,
    gaps: u32,
    restored: bool,
    late_text: bool,
    late_permission: bool,
    unanswered: usize,
    /// The last turn ended without a response: the next agent restores with a gap.
    pending: bool,
    /// The last turn's agent died: the next prompt restores without a client restart.
    agent_gone: bool,
}

/// The plan of an ACP case.
pub fn acp_plan(case: &ReproCase) -> Plan {
    let mut t = Tally::default();
    let new = match &case.permission {
        Some(p) => format!("acp_new = {{ permission = {} }}", quote(p.as_str())),
        None => "acp_new = {}".to_string(),
    };
    t.ops.push(OpPlan {
        action: new,
        reply_within: None,
        expect: OpExpect::default(),
        why: vec!["The client opens its session (`session/new`).".into()],
    });
    for (i, p) in case.processes.iter().enumerate() {
        process_ops(&mut t, i, p);
    }
    let history = (t.succeeded > 0 || t.gaps > 0).then(|| HistoryExpect {
        turns: Some(t.succeeded),
        no_carryover: (t.succeeded > 1).then_some(true),
        gaps: (t.gaps > 0).then_some(t.gaps),
        answers: Vec::new(),
    });
    let acp = AcpExpect {
        method_counts: if t.restored {
            [(ClientMethod::from_schema(AGENT_METHOD_NAMES.session_new), 1)]
                .into_iter()
                .collect()
        } else {
            Default::default()
        },
        no_new_after_restore: t.restored.then_some(true),
        prompts: Some(t.prompts.clone()),
        prompts_sent_once: Some(true),
        late_permissions_cancelled: t.late_permission.then_some(true),
        no_late_text: t.late_text.then_some(true),
        gap_when_pending: (t.gaps > 0).then_some(true),
        ..AcpExpect::default()
    };
    let (slug, summary) = behaviour(case, &t);
    Plan {
        ops: t.ops,
        journal: JournalExpect::default(),
        history,
        acp: Some(acp),
        slug,
        summary,
        unanswered: t.unanswered,
    }
}

fn process_ops(t: &mut Tally, i: usize, p: &Process) {
    if i > 0 && !t.agent_gone {
        t.ops.push(OpPlan {
            action: "restart = {}".into(),
            reply_within: None,
            expect: OpExpect::default(),
            why: vec![format!(
                "{}: a new agent process while the old one was alive: the client restarted.",
                p.origin
            )],
        });
    }
    t.agent_gone = false;
    let gap = i > 0 && t.pending;
    let failed = p.restore.as_ref().is_some_and(|r| r.error.is_some());
    if let Some(r) = &p.restore {
        t.restored = true;
        t.late_text |= r.late.iter().any(|s| s.key() == "text");
        t.late_permission |= r.late.iter().any(|s| s.key() == "permission");
        if p.turns.is_empty() {
            t.ops
                .push(restore_op("acp_restore = {}".into(), p, gap, failed));
        }
    }
    if gap && !failed && p.restore.is_some() {
        t.gaps += 1;
    }
    for (k, turn) in p.turns.iter().enumerate() {
        let action = format!("acp_prompt = {{ text = {} }}", quote(&turn.text));
        if failed {
            // The restore fails before any prompt is sent: none of these reach the agent.
            t.ops.push(restore_op(action, p, gap, true));
            continue;
        }
        t.prompts.push(turn.text.clone());
        let mut op = match ending(&turn.steps) {
            Ending::Responded(reason) => responded(t, &turn.steps, reason),
            Ending::Died => OpPlan {
                action: String::new(),
                reply_within: None,
                expect: OpExpect {
                    error_name: Some("AcpAgentExitedError".into()),
                    ..OpExpect::default()
                },
                why: vec!["The agent died before answering: the turn fails as `AcpAgentExitedError`; its prompt stays pending for the restore.".into()],
            },
            Ending::Hangs => {
                t.unanswered += 1;
                OpPlan {
                    action: String::new(),
                    reply_within: None,
                    expect: OpExpect::default(),
                    why: vec!["The agent never answers: the client gives up at its own timeout.".into()],
                }
            }
        };
        op.action = action;
        if k == 0 && p.restore.is_some() {
            op.expect.restore_state = Some(if gap {
                AcpRestoreState::HistoryGap
            } else {
                AcpRestoreState::Restored
            });
            op.why.push(format!(
                "{}: this prompt restores the session first ({}), {}.",
                p.origin,
                p.restore.as_ref().map_or("", |r| r.method.as_str()),
                if gap {
                    "with an explicit gap for the prompt that was never answered"
                } else {
                    "continuing the committed conversation"
                }
            ));
        }
        t.ops.push(op);
        t.pending = matches!(ending(&turn.steps), Ending::Died | Ending::Hangs);
        t.agent_gone = matches!(ending(&turn.steps), Ending::Died);
    }
}

/// A turn the agent answered.
fn responded(t: &mut Tally, steps: &[ScriptStep], reason: StopReasonName) -> OpPlan {
    let after = late(steps);
    t.late_text |= after.iter().any(|s| s.key() == "text");
    t.late_permission |= after.iter().any(|s| s.key() == "permission");
    let mut why = Vec::new();
    let mut expect = OpExpect {
        text: Some(streamed(steps)),
        ..OpExpect::default()
    };
    if reason == StopReasonName::EndTurn {
        t.succeeded += 1;
        expect.outcome = outcomes(&[Outcome::Success]);
        why.push("The agent answered `end_turn`: a successful turn whose text is what it streamed before the response.".into());
    } else {
        why.push(format!(
            "The agent answered `{}`: the turn ends with the text it streamed, nothing invented.",
            reason.as_str()
        ));
    }
    if !after.is_empty() {
        why.push(
            "What the agent sent after the response belongs to no turn (docs/acp-profile.md)."
                .into(),
        );
    }
    OpPlan {
        action: String::new(),
        reply_within: None,
        expect,
        why,
    }
}

/// An op whose restore the agent refuses: surfaced, the handle stays restorable.
fn restore_op(action: String, p: &Process, gap: bool, failed: bool) -> OpPlan {
    let method = p
        .restore
        .as_ref()
        .map_or("session/load", |r| r.method.as_str());
    if failed {
        return OpPlan {
            action,
            reply_within: None,
            expect: OpExpect {
                outcome: outcomes(&[Outcome::Permanent, Outcome::Auth]),
                error_name: Some("AcpRestoreFailedError".into()),
                restore_state: Some(AcpRestoreState::Restorable),
                ..OpExpect::default()
            },
            why: vec![format!("{}: the agent refuses `{method}`: the client reports it and keeps the handle restorable, never starting a new session (seed 003).", p.origin)],
        };
    }
    OpPlan {
        action,
        reply_within: None,
        expect: OpExpect {
            restore_state: Some(if gap {
                AcpRestoreState::HistoryGap
            } else {
                AcpRestoreState::Restored
            }),
            ..OpExpect::default()
        },
        why: vec![format!(
            "{}: the session is restored with `{method}` without prompting.",
            p.origin
        )],
    }
}

/// The behaviour's name and one sentence on it.
fn behaviour(case: &ReproCase, t: &Tally) -> (String, String) {
    let restores: Vec<_> = case
        .processes
        .iter()
        .filter_map(|p| p.restore.as_ref())
        .collect();
    if restores.iter().any(|r| r.error.is_some()) {
        return ("acp-failed-restore-is-surfaced-without-session-new".into(),
            "The agent refuses the restore: the client surfaces the failure, keeps the handle restorable and never starts a new session or resends a prompt.".into());
    }
    if restores.iter().any(|r| !r.late.is_empty()) {
        return ("acp-late-output-after-a-restore-stays-quarantined".into(),
            "The agent sends output after the restore response: none of it reaches the next turn or the history, and late permission requests are answered `cancelled`.".into());
    }
    if restores.iter().any(|r| r.replay != "none") {
        return ("acp-restore-replay-stays-out-of-history".into(),
            "The agent replays the history on restore: the replay stays out of the client's history, and no earlier prompt is sent again.".into());
    }
    if !restores.is_empty() {
        return ("acp-restore-sends-no-prompt-again".into(),
            "The session is restored on a new agent: the client continues it without sending an earlier prompt again.".into());
    }
    if t.late_text || t.late_permission {
        return ("acp-late-output-after-a-response-is-no-turn".into(),
            "The agent sends output after a prompt response: it joins neither that turn nor the next.".into());
    }
    (
        "acp-prompt-turns".into(),
        "Prompt turns as the agent answered them.".into(),
    )
}
