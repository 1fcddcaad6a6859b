//! Delta debugging over a reproduction: first its turns (oneshot: invocations; session:
//! turns, i.e. stdin lines) and then its script steps (output lines, stderr lines,
//! delays) by ddmin (complements of halves, quarters, …), then the fields of each typed
//! step one at a time, each level
//! shrunk while the adapter keeps failing the same expectation and every correct reading
//! keeps passing: the reference adapter when it is at hand, and the profile's other
//! readings of agy's output that pass the original (session: answers read from the
//! streamed steps only). So the expectation is the contract's, not an artefact of the
//! cut, and the cut keeps what any correct adapter may read an answer from. Candidates are run in batches of twice `jobs`,
//! each batch at once.

use crate::profile::repro_kit::case::ReproCase;
use crate::repro::judge::{Judge, Verdict};
use std::collections::HashMap;
use std::time::Instant;

/// One removable part.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Unit {
    /// A turn (oneshot: its invocation): process, turn.
    Turn(usize, usize),
    /// A script step: process, turn, step.
    Step(usize, usize, usize),
    /// A field of a typed step: process, turn, step, key.
    Field(usize, usize, usize, String),
    /// acp: a step the agent sends after a restore response: process, step.
    Late(usize, usize),
}

/// What minimising did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shrunk {
    /// The smallest case found.
    pub case: Option<ReproCase>,
    /// What was removed, one line each.
    pub removed: Vec<String>,
    /// Runs spent (adapter under test and reference adapter).
    pub runs: usize,
    /// The budget ran out before the search finished.
    pub cut_short: bool,
}

/// Limits of the search.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Most runs.
    pub runs: usize,
    /// Stop starting runs at this instant.
    pub deadline: Option<Instant>,
}

struct Search<'a> {
    judge: &'a mut Judge,
    /// Turns of the original left without a result: a cut that leaves more would only
    /// make the adapter wait for its timeout.
    unanswered: usize,
    signature: String,
    budget: Budget,
    cache: HashMap<String, bool>,
    cut_short: bool,
}

/// Shrinks `case` while it fails with `signature`.
pub async fn minimise(
    case: &ReproCase,
    signature: &str,
    judge: &mut Judge,
    budget: Budget,
) -> Shrunk {
    let start_runs = judge.runs;
    let mut s = Search {
        judge,
        unanswered: crate::repro::plan::plan(case).unanswered,
        signature: signature.to_string(),
        budget,
        cache: HashMap::new(),
        cut_short: false,
    };
    let mut best = case.clone();
    let mut removed = Vec::new();
    for (level, by_halves) in [
        (turn_units as fn(&ReproCase) -> Vec<Unit>, true),
        (step_units, true),
        (field_units, false),
    ] {
        let units = level(&best);
        let before = s.judge.runs;
        let kept = if by_halves {
            s.ddmin(&best, units.clone()).await
        } else {
            s.one_by_one(&best, units.clone()).await
        };
        if std::env::var_os("REPRO_DEBUG").is_some() {
            eprintln!(
                "level: {} units, {} kept, {} runs",
                units.len(),
                kept.len(),
                s.judge.runs - before
            );
        }
        let gone: Vec<Unit> = units.into_iter().filter(|u| !kept.contains(u)).collect();
        removed.extend(gone.iter().map(|u| describe(&best, u)));
        best = without(&best, &gone);
    }
    Shrunk {
        case: Some(best),
        removed,
        runs: s.judge.runs - start_runs,
        cut_short: s.cut_short,
    }
}

impl Search<'_> {
    fn out_of_budget(&mut self) -> bool {
        let over = self.judge.runs >= self.budget.runs
            || self.budget.deadline.is_some_and(|d| Instant::now() >= d);
        self.cut_short |= over;
        over
    }

    async fn ddmin(&mut self, base: &ReproCase, units: Vec<Unit>) -> Vec<Unit> {
        let mut kept = units.clone();
        let mut n = 2usize;
        while !kept.is_empty() && !self.out_of_budget() {
            let size = kept.len().div_ceil(n.min(kept.len()));
            let candidates: Vec<Vec<Unit>> = kept
                .chunks(size)
                .map(|chunk| {
                    kept.iter()
                        .filter(|u| !chunk.contains(u))
                        .cloned()
                        .collect()
                })
                .collect();
            match self.first_interesting(base, &units, &candidates).await {
                Some(i) => {
                    kept.clone_from(&candidates[i]);
                    n = (n - 1).max(2);
                }
                None if n >= kept.len() => break,
                None => n = (n * 2).min(kept.len()),
            }
        }
        kept
    }

    /// Removes units one at a time (a batch of single removals per run of the
    /// adapter): fields mostly all matter or none does, where halving only adds runs.
    async fn one_by_one(&mut self, base: &ReproCase, units: Vec<Unit>) -> Vec<Unit> {
        // All of them at once first: one run when none matters.
        if !units.is_empty()
            && self
                .first_interesting(base, &units, &[Vec::new()])
                .await
                .is_some()
        {
            return Vec::new();
        }
        let mut kept = units.clone();
        let mut i = 0;
        while i < kept.len() && !self.out_of_budget() {
            let end = (i + self.judge.jobs * 2).min(kept.len());
            let candidates: Vec<Vec<Unit>> = (i..end)
                .map(|j| {
                    let mut k = kept.clone();
                    k.remove(j);
                    k
                })
                .collect();
            match self.first_interesting(base, &units, &candidates).await {
                Some(b) => {
                    kept.remove(i + b);
                    i += b;
                }
                None => i = end,
            }
        }
        kept
    }

    /// The first candidate (units kept) that still fails the same way.
    async fn first_interesting(
        &mut self,
        base: &ReproCase,
        units: &[Unit],
        candidates: &[Vec<Unit>],
    ) -> Option<usize> {
        // Twice the jobs per batch, run at once: a candidate that ends at its timeout
        // overlaps others.
        let per_batch = self.judge.jobs * 2;
        for (start, batch) in candidates.chunks(per_batch).enumerate() {
            if self.out_of_budget() {
                return None;
            }
            let cases: Vec<(String, ReproCase)> = batch
                .iter()
                .map(|kept| {
                    let gone: Vec<Unit> = units
                        .iter()
                        .filter(|u| !kept.contains(u))
                        .cloned()
                        .collect();
                    let c = without(base, &gone);
                    (format!("{c:?}"), c)
                })
                .collect();
            let mut fresh: Vec<(String, ReproCase)> = Vec::new();
            for (k, c) in &cases {
                if self.cache.contains_key(k) || fresh.iter().any(|(f, _)| f == k) {
                    continue;
                }
                if crate::repro::plan::plan(c).unanswered > self.unanswered {
                    self.cache.insert(k.clone(), false);
                } else {
                    fresh.push((k.clone(), c.clone()));
                }
            }
            let runnable: Vec<ReproCase> = fresh.iter().map(|(_, c)| c.clone()).collect();
            let verdicts = self.judge.judge(&runnable).await;
            let mut by_key: HashMap<String, Verdict> =
                fresh.into_iter().map(|(k, _)| k).zip(verdicts).collect();
            for (i, (k, c)) in cases.iter().enumerate() {
                let fails = match self.cache.get(k) {
                    Some(known) => *known,
                    None => {
                        let v = by_key.remove(k).unwrap_or(Verdict::Passed);
                        let ok = v.fails_with(&self.signature)
                            && self.judge.correct_readings_pass(c).await;
                        self.cache.insert(k.clone(), ok);
                        ok
                    }
                };
                if fails {
                    return Some(start * per_batch + i);
                }
            }
        }
        None
    }
}

fn turn_units(case: &ReproCase) -> Vec<Unit> {
    case.processes
        .iter()
        .enumerate()
        .flat_map(|(p, proc)| (0..proc.turns.len()).map(move |t| Unit::Turn(p, t)))
        .collect()
}

fn step_units(case: &ReproCase) -> Vec<Unit> {
    let mut out = Vec::new();
    for (p, proc) in case.processes.iter().enumerate() {
        for (t, turn) in proc.turns.iter().enumerate() {
            out.extend((0..turn.steps.len()).map(|s| Unit::Step(p, t, s)));
        }
        if let Some(r) = &proc.restore {
            out.extend((0..r.late.len()).map(|s| Unit::Late(p, s)));
        }
    }
    out
}

fn field_units(case: &ReproCase) -> Vec<Unit> {
    let mut out = Vec::new();
    for (p, proc) in case.processes.iter().enumerate() {
        for (t, turn) in proc.turns.iter().enumerate() {
            for (s, step) in turn.steps.iter().enumerate() {
                if let Some(toml::Value::Table(fields)) = step.body() {
                    out.extend(fields.keys().map(|k| Unit::Field(p, t, s, k.clone())));
                }
            }
        }
    }
    out
}

/// `case` without the `gone` units (indices refer to `case`).
fn without(case: &ReproCase, gone: &[Unit]) -> ReproCase {
    let mut out = case.clone();
    for u in gone {
        if let Unit::Field(p, t, s, k) = u {
            if let Some(toml::Value::Table(fields)) =
                out.processes[*p].turns[*t].steps[*s].body_mut()
            {
                fields.remove(k);
            }
        }
    }
    for (p, proc) in out.processes.iter_mut().enumerate() {
        for (t, turn) in proc.turns.iter_mut().enumerate() {
            let mut s = 0;
            turn.steps.retain(|_| {
                s += 1;
                !gone.contains(&Unit::Step(p, t, s - 1))
            });
        }
        let mut t = 0;
        proc.turns.retain(|_| {
            t += 1;
            !gone.contains(&Unit::Turn(p, t - 1))
        });
        if let Some(r) = proc.restore.as_mut() {
            let mut s = 0;
            r.late.retain(|_| {
                s += 1;
                !gone.contains(&Unit::Late(p, s - 1))
            });
        }
    }
    // An acp restore without prompts is still an op (`acp_restore`).
    out.processes
        .retain(|p| !p.turns.is_empty() || p.restore.is_some());
    out
}

/// One line on a removed unit.
fn describe(case: &ReproCase, u: &Unit) -> String {
    let at = |line: usize| {
        if line > 0 {
            format!(" (report line {line})")
        } else {
            String::new()
        }
    };
    match u {
        Unit::Turn(p, t) => {
            let proc = &case.processes[*p];
            match crate::profile::unit(case.profile).agy() {
                crate::profile::AgyRun::PrintPerRequest => format!("invocation: {}", proc.origin),
                _ => format!(
                    "turn: {} turn {} ({:?})",
                    proc.origin,
                    t + 1,
                    proc.turns[*t].text
                ),
            }
        }
        Unit::Step(p, t, s) => {
            let step = &case.processes[*p].turns[*t].steps[*s];
            let kind = if step.key() == "sleep" {
                "delay"
            } else {
                "step"
            };
            format!("{kind}: `{}`{}", step.key(), at(step.line))
        }
        Unit::Late(p, s) => {
            let step = case.processes[*p]
                .restore
                .as_ref()
                .and_then(|r| r.late.get(*s));
            step.map_or_else(String::new, |step| {
                format!(
                    "step: late `{}` after the restore{}",
                    step.key(),
                    at(step.line)
                )
            })
        }
        Unit::Field(p, t, s, k) => {
            let step = &case.processes[*p].turns[*t].steps[*s];
            format!("field: `{k}` of `{}`{}", step.key(), at(step.line))
        }
    }
}

/// Turns and script steps of `case`: the fewest candidates the search runs.
pub fn unit_count(case: &ReproCase) -> usize {
    turn_units(case).len() + step_units(case).len()
}

/// Script steps in `case` (the size the minimiser is judged by).
pub fn step_count(case: &ReproCase) -> usize {
    case.processes
        .iter()
        .flat_map(|p| &p.turns)
        .map(|t| t.steps.len())
        .sum()
}
