//! Checks on ACP traffic (`[expect.acp]`): what the client called on the agent and in
//! which order, no `session/new` after a restore, no prompt sent twice, permission
//! requests outside a turn answered `cancelled`, late output of the old session kept
//! out of every turn, and a history gap for every prompt the agent never answered.
//! The facts come from fake-agy-acp's journal (docs/acp-fake-agent.md §3) and the
//! driver's replies; the restore contract is seed 003's (docs/acp-profile.md).

use super::failure::Failure;
use crate::observation::Observation;
use crate::scenario::{AcpExpect, Scenario};
use agy_protocol::acp::{AcpDirection, AcpJournalEntry, AcpKind};
use agy_protocol::driver::HistoryEntry;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const PLACE: &str = "acp";

/// A client → agent call (request or notification).
fn is_call(e: &AcpJournalEntry) -> bool {
    e.dir == AcpDirection::In && matches!(e.kind, AcpKind::Request | AcpKind::Notification)
}

/// The methods the client called, in journal order.
pub fn client_methods(journal: &[AcpJournalEntry]) -> Vec<String> {
    journal
        .iter()
        .filter(|e| is_call(e))
        .filter_map(|e| e.method.clone())
        .collect()
}

/// The text of each `session/prompt` the client sent, in order.
pub fn prompts_sent(journal: &[AcpJournalEntry]) -> Vec<String> {
    journal
        .iter()
        .filter(|e| is_call(e) && e.method.as_deref() == Some("session/prompt"))
        .map(|e| {
            e.message
                .as_ref()
                .and_then(|m| m.pointer("/params/prompt"))
                .and_then(Value::as_array)
                .map(|blocks| {
                    blocks
                        .iter()
                        .filter_map(|b| b.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join("")
                })
                .unwrap_or_default()
        })
        .collect()
}

/// Agent process ids, in the order they started.
fn agents(journal: &[AcpJournalEntry]) -> Vec<u32> {
    journal
        .iter()
        .filter(|e| e.kind == AcpKind::Start)
        .map(|e| e.pid)
        .collect()
}

/// `(pid, id)` of every `session/prompt` request and whether the client got its
/// answer: a response the agent wrote before its stdin was closed (one written after
/// that reached a client that had already let the agent go).
fn prompt_answers(journal: &[AcpJournalEntry]) -> Vec<((u32, String), bool)> {
    let mut closed: BTreeSet<u32> = BTreeSet::new();
    let mut answered: BTreeSet<(u32, String)> = BTreeSet::new();
    for e in journal {
        if e.kind == AcpKind::StdinClosed {
            closed.insert(e.pid);
        }
        if e.dir == AcpDirection::Out
            && matches!(e.kind, AcpKind::Response | AcpKind::Error)
            && e.method.as_deref() == Some("session/prompt")
            && !closed.contains(&e.pid)
        {
            if let Some(id) = &e.id {
                answered.insert((e.pid, id.to_string()));
            }
        }
    }
    journal
        .iter()
        .filter(|e| is_call(e) && e.method.as_deref() == Some("session/prompt"))
        .filter_map(|e| e.id.as_ref().map(|id| (e.pid, id.to_string())))
        .map(|k| {
            let done = answered.contains(&k);
            (k, done)
        })
        .collect()
}

/// A permission request the agent sent, and the client's answer.
struct PermissionSeen {
    seq: usize,
    in_turn: bool,
    answer: Option<String>,
}

fn permissions(journal: &[AcpJournalEntry]) -> Vec<PermissionSeen> {
    let mut open_prompts: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, e) in journal.iter().enumerate() {
        let id = e.id.as_ref().map(Value::to_string).unwrap_or_default();
        match (e.dir, e.kind, e.method.as_deref()) {
            (AcpDirection::In, AcpKind::Request, Some("session/prompt")) => {
                open_prompts.entry(e.pid).or_default().insert(id);
            }
            (AcpDirection::Out, AcpKind::Response | AcpKind::Error, Some("session/prompt")) => {
                if let Some(open) = open_prompts.get_mut(&e.pid) {
                    open.remove(&id);
                }
            }
            (AcpDirection::Out, AcpKind::Request, Some("session/request_permission")) => {
                let in_turn = open_prompts.get(&e.pid).is_some_and(|o| !o.is_empty());
                let answer = journal[i + 1..]
                    .iter()
                    .filter(|r| {
                        r.pid == e.pid
                            && r.dir == AcpDirection::In
                            && matches!(r.kind, AcpKind::Response | AcpKind::Error)
                            && r.id.as_ref().map(Value::to_string).as_deref() == Some(&id)
                    })
                    .find_map(|r| match r.kind {
                        AcpKind::Error => Some("an error response".to_string()),
                        _ => r.permission_outcome(),
                    });
                out.push(PermissionSeen {
                    seq: i,
                    in_turn,
                    answer,
                });
            }
            _ => {}
        }
    }
    out
}

/// The last history a reply carried.
fn last_history(obs: &Observation) -> Option<&Vec<HistoryEntry>> {
    obs.ops
        .iter()
        .rev()
        .filter_map(|o| o.reply.as_ref().ok())
        .find_map(|r| r.result.history.as_ref())
}

fn turn_label(turn: Option<u64>) -> String {
    turn.map(|t| format!("turn {t}"))
        .unwrap_or_else(|| "an unnumbered turn".into())
}

fn shown_history(h: &[HistoryEntry]) -> Vec<String> {
    h.iter()
        .map(|x| format!("{} ({}): {:?}", x.role, turn_label(x.turn), x.text))
        .collect()
}

/// Everything wrong with `[expect.acp]`.
pub fn check_acp(e: &AcpExpect, s: &Scenario, obs: &Observation) -> Vec<Failure> {
    let mut out = Vec::new();
    if let Some(err) = &obs.acp_journal_error {
        out.push(Failure::new(
            "acp journal",
            "readable",
            "fake-agy-acp's journal",
            err.clone(),
        ));
        return out;
    }
    let journal = &obs.acp_journal;
    check_agents(e, journal, &mut out);
    check_methods(e, &client_methods(journal), &mut out);
    check_prompts(e, &prompts_sent(journal), &mut out);
    check_permissions(e, journal, &mut out);
    if e.no_late_text == Some(true) {
        check_no_late_text(s, obs, &mut out);
    }
    if e.none_left_running == Some(true) && !obs.acp_running_at_end.is_empty() {
        out.push(Failure::new(
            PLACE,
            "none_left_running",
            "no agent process running after the last reply",
            format!("still running: pid {:?}", obs.acp_running_at_end),
        ));
    }
    if e.gap_when_pending == Some(true) {
        check_gap_when_pending(journal, obs, &mut out);
    }
    out
}

/// `agents`: how many agent processes were started.
fn check_agents(e: &AcpExpect, journal: &[AcpJournalEntry], out: &mut Vec<Failure>) {
    let Some(n) = e.agents else { return };
    let pids = agents(journal);
    if pids.len() != n as usize {
        out.push(Failure::new(
            PLACE,
            "agents",
            format!("{n} agent process(es)"),
            format!("{} started (pids {pids:?})", pids.len()),
        ));
    }
}

/// `methods_in_order`, `method_counts`, `methods_never` and `no_new_after_restore`:
/// what the client called, in which order.
fn check_methods(e: &AcpExpect, methods: &[String], out: &mut Vec<Failure>) {
    let methods_evidence = || vec![format!("client calls: {}", methods.join(", "))];
    if !e.methods_in_order.is_empty() {
        let want: Vec<String> = e.methods_in_order.iter().map(|m| m.to_string()).collect();
        check_subsequence(&want, methods, out);
    }
    for (method, want) in &e.method_counts {
        let got = methods.iter().filter(|m| method == *m).count();
        if got != *want as usize {
            out.push(
                Failure::new(
                    PLACE,
                    "method_counts",
                    format!("`{method}` called {want} time(s)"),
                    format!("{got} time(s)"),
                )
                .evidence(methods_evidence()),
            );
        }
    }
    for method in &e.methods_never {
        let got = methods.iter().filter(|m| method == *m).count();
        if got > 0 {
            out.push(
                Failure::new(
                    PLACE,
                    "methods_never",
                    format!("no `{method}`"),
                    format!("{got} call(s)"),
                )
                .evidence(methods_evidence()),
            );
        }
    }
    if e.no_new_after_restore == Some(true) {
        check_no_new_after_restore(methods, out);
    }
}

/// `no_new_after_restore`: a `session/new` after `session/load` or `session/resume`
/// forks the conversation.
fn check_no_new_after_restore(methods: &[String], out: &mut Vec<Failure>) {
    let Some(first) = methods
        .iter()
        .position(|m| m == "session/load" || m == "session/resume")
    else {
        return;
    };
    if let Some(k) = methods[first..].iter().position(|m| m == "session/new") {
        out.push(
            Failure::new(
                PLACE,
                "no_new_after_restore",
                format!(
                    "no `session/new` after the restore (`{}`, call {})",
                    methods[first],
                    first + 1
                ),
                format!(
                    "`session/new` at call {}: the conversation forked",
                    first + k + 1
                ),
            )
            .evidence([format!("client calls: {}", methods.join(", "))]),
        );
    }
}

/// `prompts` and `prompts_sent_once`: the prompt texts the client sent.
fn check_prompts(e: &AcpExpect, prompts: &[String], out: &mut Vec<Failure>) {
    if let Some(want) = &e.prompts {
        if prompts != want.as_slice() {
            out.push(Failure::new(
                PLACE,
                "prompts",
                format!("{want:?}"),
                format!("{prompts:?}"),
            ));
        }
    }
    if e.prompts_sent_once == Some(true) {
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for p in prompts {
            *seen.entry(p.as_str()).or_default() += 1;
        }
        for (p, n) in seen.into_iter().filter(|(_, n)| *n > 1) {
            out.push(
                Failure::new(
                    PLACE,
                    "prompts_sent_once",
                    format!("{p:?} sent once"),
                    format!("sent {n} times: an earlier prompt was resent"),
                )
                .evidence([format!("prompts sent: {prompts:?}")]),
            );
        }
    }
}

/// `permission_outcomes` and `late_permissions_cancelled`: how the client answered the
/// agent's permission requests.
fn check_permissions(e: &AcpExpect, journal: &[AcpJournalEntry], out: &mut Vec<Failure>) {
    let perms = permissions(journal);
    if let Some(want) = &e.permission_outcomes {
        let want: Vec<String> = want.iter().map(|o| o.to_string()).collect();
        let got: Vec<String> = perms
            .iter()
            .map(|p| p.answer.clone().unwrap_or_else(|| "unanswered".into()))
            .collect();
        if got != want {
            out.push(Failure::new(
                PLACE,
                "permission_outcomes",
                format!("{want:?}"),
                format!("{got:?}"),
            ));
        }
    }
    if e.late_permissions_cancelled != Some(true) {
        return;
    }
    for p in perms.iter().filter(|p| !p.in_turn) {
        if p.answer.as_deref() == Some("cancelled") {
            continue;
        }
        let entry = &journal[p.seq];
        out.push(
            Failure::new(
                PLACE,
                "late_permissions_cancelled",
                "a permission request outside a turn (during or after a restore, after a response) answered `cancelled`",
                match &p.answer {
                    Some(a) => format!("answered `{a}`"),
                    None => "never answered".to_string(),
                },
            )
            .evidence([format!(
                "agent pid {} sent it (journal entry {}) while none of its prompts was outstanding",
                entry.pid, entry.seq
            )]),
        );
    }
}

/// `gap_when_pending`: the last history carries one gap per prompt the agent never
/// answered.
fn check_gap_when_pending(journal: &[AcpJournalEntry], obs: &Observation, out: &mut Vec<Failure>) {
    let pending = prompt_answers(journal)
        .into_iter()
        .filter(|(_, done)| !done)
        .count();
    let Some(h) = last_history(obs) else {
        out.push(Failure::new(
            "history",
            "gap_when_pending",
            format!("{pending} gap entr(ies)"),
            "no reply carried `result.history`",
        ));
        return;
    };
    let gaps = h.iter().filter(|x| x.role == "gap").count();
    if gaps != pending {
        out.push(
            Failure::new(
                "history",
                "gap_when_pending",
                format!("{pending} gap entr(ies): one per prompt the agent never answered"),
                format!("{gaps} gap entr(ies)"),
            )
            .evidence(shown_history(h)),
        );
    }
}

fn check_subsequence(want: &[String], got: &[String], out: &mut Vec<Failure>) {
    let mut at = 0;
    for (i, m) in want.iter().enumerate() {
        match got[at..].iter().position(|g| g == m) {
            Some(k) => at += k + 1,
            None => {
                let closest = if i == 0 {
                    format!("the calls: {}", got.join(", "))
                } else {
                    format!(
                        "{} matched up to call {at}; after it: {}",
                        want[..i].join(", "),
                        got[at..].join(", ")
                    )
                };
                out.push(
                    Failure::new(
                        PLACE,
                        "methods_in_order",
                        want.join(" → "),
                        format!("no `{m}` after {}", want[..i].join(" → ")),
                    )
                    .closest(closest),
                );
                return;
            }
        }
    }
}

fn check_no_late_text(s: &Scenario, obs: &Observation, out: &mut Vec<Failure>) {
    let late = s.acp_late_texts();
    for o in &obs.ops {
        let Ok(reply) = &o.reply else { continue };
        if o.name == "acp_prompt" {
            if let Some(text) = &reply.result.text {
                for l in late.iter().filter(|l| text.contains(l.trim())) {
                    out.push(
                        Failure::new(
                            format!("op {} {}", o.index, o.name),
                            "no_late_text",
                            "no late output of the old session in this turn",
                            format!("the turn's text {text:?}"),
                        )
                        .closest(format!("the script sends {l:?} late")),
                    );
                }
            }
        }
        if let Some(h) = &reply.result.history {
            for x in h.iter().filter(|x| x.role == "assistant") {
                for l in late.iter().filter(|l| x.text.contains(l.trim())) {
                    out.push(
                        Failure::new(
                            format!("op {} {}", o.index, o.name),
                            "no_late_text",
                            "no late output of the old session in the history",
                            format!("{} answered {:?}", turn_label(x.turn), x.text),
                        )
                        .closest(format!("the script sends {l:?} late")),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::acp::ClientMethod;
    use serde_json::json;

    fn method(name: &str) -> ClientMethod {
        ClientMethod::parse(name).expect("a client method")
    }

    fn entry(pid: u32, dir: AcpDirection, kind: AcpKind, method: &str, id: i64) -> AcpJournalEntry {
        AcpJournalEntry {
            v: 1,
            pid,
            seq: 0,
            at_us: 0,
            dir,
            kind,
            method: Some(method.into()),
            id: Some(json!(id)),
            session_id: None,
            update: None,
            message: None,
            text: None,
        }
    }

    #[test]
    fn a_permission_between_prompts_is_outside_a_turn() {
        use AcpDirection::*;
        let mut answer = entry(1, In, AcpKind::Response, "session/request_permission", 0);
        answer.message =
            Some(json!({"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}));
        let journal = vec![
            entry(1, In, AcpKind::Request, "session/prompt", 5),
            entry(1, Out, AcpKind::Response, "session/prompt", 5),
            entry(1, Out, AcpKind::Request, "session/request_permission", 0),
            answer,
        ];
        let p = permissions(&journal);
        assert_eq!(p.len(), 1);
        assert!(!p[0].in_turn);
        assert_eq!(p[0].answer.as_deref(), Some("allow"));
    }

    #[test]
    fn an_unanswered_prompt_or_one_answered_after_stdin_closed_is_pending() {
        use AcpDirection::*;
        let journal = vec![
            entry(1, In, AcpKind::Request, "session/prompt", 2),
            entry(1, Out, AcpKind::Response, "session/prompt", 2),
            entry(1, In, AcpKind::Request, "session/prompt", 3),
            entry(2, In, AcpKind::Request, "session/prompt", 3),
            entry(2, Out, AcpKind::Response, "session/prompt", 3),
        ];
        let pending: Vec<bool> = prompt_answers(&journal)
            .into_iter()
            .map(|(_, d)| d)
            .collect();
        assert_eq!(pending, [true, false, true]);
    }

    fn call(pid: u32, method: &str, id: i64, prompt: Option<&str>) -> AcpJournalEntry {
        let mut e = entry(pid, AcpDirection::In, AcpKind::Request, method, id);
        e.message = prompt.map(|p| json!({"params":{"prompt":[{"type":"text","text":p}]}}));
        e
    }

    #[test]
    fn a_forked_and_resent_restore_breaks_each_rule_it_breaks() {
        let s = crate::scenario::parse_scenario(
            &agy_protocol::diag::SourceFile::new(
                "s.toml",
                "[scenario]\nname = \"acp/x\"\nprofile = \"acp\"\n[acp.load]\nlate = [{ text = \"OLD\" }]\n[[op]]\nacp_new = {}\n",
            ),
            std::path::Path::new("s.toml"),
        )
        .expect("parses");
        let obs = Observation {
            acp_journal: vec![
                call(1, "session/new", 1, None),
                call(1, "session/prompt", 2, Some("one")),
                call(2, "session/load", 1, None),
                call(2, "session/new", 2, None),
                call(2, "session/prompt", 3, Some("one")),
            ],
            ops: vec![crate::observation::OpObservation {
                index: 1,
                name: "acp_prompt",
                sent_us: 0,
                replied_us: 0,
                reply: Ok(agy_protocol::driver::Reply {
                    id: 1,
                    ok: true,
                    outcome: None,
                    retryable: None,
                    error: None,
                    result: agy_protocol::driver::OpResult {
                        text: Some("OLDReceived: one".into()),
                        history: Some(Vec::new()),
                        ..Default::default()
                    },
                }),
                outcome: None,
                still_running: None,
            }],
            ..Observation::default()
        };
        let e = AcpExpect {
            no_new_after_restore: Some(true),
            prompts_sent_once: Some(true),
            no_late_text: Some(true),
            gap_when_pending: Some(true),
            method_counts: [(method("session/new"), 1)].into(),
            ..AcpExpect::default()
        };
        let broken: Vec<String> = check_acp(&e, &s, &obs)
            .into_iter()
            .map(|f| f.expectation)
            .collect();
        assert_eq!(
            broken,
            [
                "method_counts",
                "no_new_after_restore",
                "prompts_sent_once",
                "no_late_text",
                "gap_when_pending"
            ]
        );
        let kept = AcpExpect {
            methods_in_order: vec![method("session/new"), method("session/load")],
            prompts: Some(vec!["one".into(), "one".into()]),
            ..AcpExpect::default()
        };
        assert!(check_acp(&kept, &s, &obs).is_empty());
    }

    #[test]
    fn the_first_missing_method_is_named_with_the_closest_miss() {
        let mut out = Vec::new();
        let got: Vec<String> = ["initialize", "session/new", "session/prompt"]
            .map(String::from)
            .to_vec();
        check_subsequence(
            &["initialize".into(), "session/resume".into()],
            &got,
            &mut out,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].observed, "no `session/resume` after initialize");
        assert!(out[0]
            .closest
            .as_deref()
            .unwrap_or_default()
            .contains("session/new, session/prompt"));
        let mut ok = Vec::new();
        check_subsequence(
            &["initialize".into(), "session/prompt".into()],
            &got,
            &mut ok,
        );
        assert!(ok.is_empty());
    }
}
