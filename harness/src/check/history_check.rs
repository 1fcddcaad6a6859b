//! Checks on the adapter's conversation history: each turn exactly once, and no text
//! of an earlier turn inside a later one.

use super::failure::Failure;
use crate::observation::Observation;
use crate::scenario::{HistoryExpect, OpAction, OpSpec};
use agy_protocol::driver::{HistoryEntry, Outcome, RequestOp};

/// A turn as the harness sent it and the adapter answered it.
struct TurnSeen {
    op: usize,
    user: String,
    answer: Option<String>,
    /// The user text must be in the history (false: at most once, e.g. an ACP prompt
    /// whose response never came, which the client reports as a gap).
    required: bool,
}

/// Everything wrong with `[expect.history]`.
pub fn check_history(e: &HistoryExpect, ops: &[OpSpec], obs: &Observation) -> Vec<Failure> {
    let mut out = Vec::new();
    let turns: Vec<TurnSeen> = ops
        .iter()
        .zip(&obs.ops)
        .filter_map(|(spec, o)| match &spec.action {
            OpAction::Request(RequestOp::Turn { text, .. }) => Some(TurnSeen {
                op: o.index,
                user: text.clone(),
                answer: answer_of(o),
                required: true,
            }),
            // An ACP turn is committed once its response is consumed (a cancelled
            // turn too); one whose response never came becomes a gap.
            OpAction::Request(RequestOp::AcpPrompt { text, .. }) => Some(TurnSeen {
                op: o.index,
                user: text.clone(),
                answer: answer_of(o),
                required: o.outcome == Some(Outcome::Success),
            }),
            _ => None,
        })
        .collect();
    let history: Option<&Vec<HistoryEntry>> = obs
        .ops
        .iter()
        .rev()
        .filter_map(|o| o.reply.as_ref().ok())
        .find_map(|r| r.result.history.as_ref());
    if let Some(n) = e.turns {
        match history {
            None => out.push(Failure::new(
                "history",
                "turns",
                format!("{n} turns in the adapter's history"),
                "no reply carried `result.history`",
            )),
            Some(h) => check_each_once(n, &turns, h, &mut out),
        }
    }
    if let Some(n) = e.gaps {
        let gaps: Vec<&HistoryEntry> = history
            .map(|h| h.iter().filter(|x| x.role == "gap").collect())
            .unwrap_or_default();
        if gaps.len() != n as usize {
            out.push(
                Failure::new(
                    "history",
                    "gaps",
                    format!("{n} gap entr(ies)"),
                    format!("{}", gaps.len()),
                )
                .evidence(
                    history
                        .into_iter()
                        .flatten()
                        .map(|x| format!("{}: {:?}", x.role, shorten(&x.text))),
                ),
            );
        }
    }
    if !e.answers.is_empty() {
        check_answers(&e.answers, history.map(Vec::as_slice), &mut out);
    }
    if e.no_carryover == Some(true) {
        check_no_carryover(&turns, &mut out);
    }
    out
}

/// `no_carryover`: no turn's answer holds an earlier turn's answer.
fn check_no_carryover(turns: &[TurnSeen], out: &mut Vec<Failure>) {
    for (j, later) in turns.iter().enumerate() {
        for earlier in &turns[..j] {
            if let (Some(a), Some(b)) = (&earlier.answer, &later.answer) {
                if b.contains(a.trim()) {
                    out.push(
                        Failure::new(
                            format!("op {} turn", later.op),
                            "no_carryover",
                            format!("no text of op {}'s answer in this turn", earlier.op),
                            format!("{b:?}"),
                        )
                        .closest(format!("op {}'s answer was {a:?}", earlier.op)),
                    );
                }
            }
        }
    }
}

/// `answers`: the assistant entries are the scripted answers, in order — judged against
/// what agy said, not against the adapter's own replies (which may be wrong the same
/// way its history is).
fn check_answers(want: &[String], history: Option<&[HistoryEntry]>, out: &mut Vec<Failure>) {
    let got: Vec<&str> = history
        .unwrap_or_default()
        .iter()
        .filter(|x| x.role == "assistant")
        .map(|x| x.text.trim())
        .collect();
    let want_trimmed: Vec<&str> = want.iter().map(|w| w.trim()).collect();
    if got == want_trimmed {
        return;
    }
    let first_wrong = want_trimmed
        .iter()
        .zip(got.iter().chain(std::iter::repeat(&"")))
        .position(|(w, g)| w != g)
        .unwrap_or(want_trimmed.len());
    let mut f = Failure::new(
        "history",
        "answers",
        format!("assistant entries {want_trimmed:?}"),
        format!("{got:?}"),
    );
    if let (Some(g), Some(_)) = (got.get(first_wrong), want_trimmed.get(first_wrong)) {
        if let Some(earlier) = want_trimmed[..first_wrong].iter().position(|w| w == g) {
            f = f.closest(format!(
                "answer {} is answer {}'s text: an earlier turn's answer taken again",
                first_wrong + 1,
                earlier + 1
            ));
        }
    }
    out.push(f);
}

fn once(n: usize) -> String {
    match n {
        1 => "exactly once".to_string(),
        n => format!("exactly {n} times (once per turn that said it)"),
    }
}

fn check_each_once(n: u32, turns: &[TurnSeen], h: &[HistoryEntry], out: &mut Vec<Failure>) {
    let users: Vec<&HistoryEntry> = h.iter().filter(|x| x.role == "user").collect();
    let answers: Vec<&HistoryEntry> = h.iter().filter(|x| x.role == "assistant").collect();
    let shown: Vec<String> = h
        .iter()
        .map(|x| format!("{}: {:?}", x.role, shorten(&x.text)))
        .collect();
    if users.len() != n as usize || answers.len() != n as usize {
        out.push(
            Failure::new(
                "history",
                "turns",
                format!("{n} user and {n} assistant entries"),
                format!(
                    "{} user and {} assistant entries",
                    users.len(),
                    answers.len()
                ),
            )
            .evidence(shown.clone()),
        );
    }
    // Each turn once: a text shows up as often as turns said it (two turns may send or
    // get the same words, a live agy especially).
    let times = |text: &str, of: &dyn Fn(&TurnSeen) -> Option<String>| {
        turns
            .iter()
            .filter(|t| of(t).is_some_and(|x| x.trim() == text.trim()))
            .count()
    };
    for t in turns {
        let want = times(&t.user, &|x: &TurnSeen| Some(x.user.clone()));
        let count = users.iter().filter(|u| u.text == t.user).count();
        if count != want && (t.required || count > want) {
            out.push(
                Failure::new(
                    "history",
                    "each turn once",
                    format!(
                        "op {}'s message {:?} {}",
                        t.op,
                        shorten(&t.user),
                        if t.required {
                            once(want)
                        } else {
                            format!("at most {}", once(want).replace("exactly ", ""))
                        }
                    ),
                    format!("{count} times"),
                )
                .evidence(shown.clone()),
            );
        }
        if let Some(a) = &t.answer {
            let want = times(a, &|x: &TurnSeen| x.answer.clone());
            let count = answers.iter().filter(|x| x.text.trim() == a.trim()).count();
            if count != want {
                let f = Failure::new(
                    "history",
                    "each turn once",
                    format!("op {}'s answer {:?} {}", t.op, shorten(a), once(want)),
                    format!("{count} times"),
                )
                .evidence(shown.clone());
                let near = answers.iter().find(|x| x.text.contains(a.trim()));
                out.push(match near {
                    Some(x) if count == 0 => {
                        f.closest(format!("an entry contains it: {:?}", shorten(&x.text)))
                    }
                    _ => f,
                });
            }
        }
    }
}

fn answer_of(o: &crate::observation::OpObservation) -> Option<String> {
    o.reply
        .as_ref()
        .ok()
        .filter(|_| o.outcome == Some(Outcome::Success))
        .and_then(|r| r.result.text.clone())
        .filter(|t| !t.trim().is_empty())
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(77).collect::<String>())
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(role: &str, text: &str) -> HistoryEntry {
        HistoryEntry {
            role: role.into(),
            text: text.into(),
            turn: None,
        }
    }

    #[test]
    fn answers_are_judged_against_the_script_and_a_repeat_is_named() {
        let want = vec!["one".to_string(), "two".to_string()];
        let right = [
            entry("user", "q1"),
            entry("assistant", "one"),
            entry("user", "q2"),
            entry("assistant", "two "),
        ];
        let mut out = Vec::new();
        check_answers(&want, Some(&right), &mut out);
        assert!(out.is_empty(), "{out:?}");
        let behind = [entry("assistant", "one"), entry("assistant", "one")];
        check_answers(&want, Some(&behind), &mut out);
        assert_eq!(out.len(), 1);
        assert!(
            out[0]
                .closest
                .as_deref()
                .unwrap_or("")
                .contains("answer 2 is answer 1's text"),
            "{}",
            out[0]
        );
    }
}
