//! Checks on the journal: invocation count, distinct pids, argv has / lacks, stdin
//! closed, signals and their order and timing, the concurrency high-water mark. Every
//! check speaks of turn invocations (print runs and persistent sessions); probes
//! (`--version`, `models`, slash commands, `update`) are bounded by `probe_check`.

use super::failure::Failure;
use super::op_check::join;
use crate::observation::Observation;
use crate::scenario::{InvocationExpect, JournalExpect};
use agy_protocol::command_line::{parse_args, same_flag, InvocationKind};
use agy_protocol::diag::closest;
use agy_protocol::journal::{now_us, JournalRecord};
use std::collections::BTreeSet;
use std::time::Duration;

/// True when argv (without `argv[0]`) has `pattern`: one token (`--flag` also matches
/// `--flag=value`), or `flag value` as two adjacent tokens (or `flag=value`). A flag
/// matches under any of its spellings, as agy's flag parser reads them: one or two
/// dashes, and its aliases (`-p` is `--print` and `--prompt`).
pub fn argv_has(argv: &[String], pattern: &str) -> bool {
    let args = argv.get(1..).unwrap_or(&[]);
    let words: Vec<&str> = pattern.split_whitespace().collect();
    match words.as_slice() {
        [] => true,
        [one] => args.iter().any(|a| {
            a == one
                || matches!((flag_name(one), flag_token(a)), (Some(p), Some((n, _))) if same_flag(p, n))
        }),
        [flag, rest @ ..] => {
            let value = rest.join(" ");
            let Some(want) = flag_name(flag) else {
                return args.windows(2).any(|w| w[0] == *flag && w[1] == value);
            };
            args.windows(2).any(|w| {
                matches!(flag_token(&w[0]), Some((n, None)) if same_flag(want, n)) && w[1] == value
            }) || args.iter().any(
                |a| matches!(flag_token(a), Some((n, Some(v))) if same_flag(want, n) && v == value),
            )
        }
    }
}

/// The name of a pattern's flag without its dashes (`--print` → `print`).
fn flag_name(pattern: &str) -> Option<&str> {
    let name = pattern
        .strip_prefix("--")
        .or_else(|| pattern.strip_prefix('-'))?;
    (!name.is_empty() && !name.contains('=')).then_some(name)
}

/// An argv token read as a flag: its name and its `=value`, if it has one.
fn flag_token(token: &str) -> Option<(&str, Option<&str>)> {
    let body = token
        .strip_prefix("--")
        .or_else(|| token.strip_prefix('-'))?;
    match body.split_once('=') {
        Some((n, v)) if !n.is_empty() => Some((n, Some(v))),
        Some(_) => None,
        None => (!body.is_empty()).then_some((body, None)),
    }
}

/// The nearest argv token to a missing pattern, for the closest-miss line.
fn nearest(argv: &[String], pattern: &str) -> Option<String> {
    let args = argv.get(1..).unwrap_or(&[]);
    let first = pattern.split_whitespace().next().unwrap_or(pattern);
    if let Some(i) = args.iter().position(|a| a == first) {
        return Some(format!(
            "`{first}` is there, followed by {:?}",
            args.get(i + 1).map(String::as_str).unwrap_or("nothing")
        ));
    }
    closest(first, args.iter().map(String::as_str)).map(|c| format!("`{c}`"))
}

/// `invocation 3 (pid 812): agy -p …`, the argv shortened for a report line.
pub fn show_argv(r: &JournalRecord) -> String {
    let mut shown: Vec<String> = r
        .argv
        .iter()
        .map(|a| {
            let a = if a.chars().count() > 60 {
                format!("{}…", a.chars().take(57).collect::<String>())
            } else {
                a.clone()
            };
            if a.contains(' ') || a.is_empty() {
                format!("{a:?}")
            } else {
                a
            }
        })
        .collect();
    if let Some(first) = shown.first_mut() {
        *first = "agy".into();
    }
    format!(
        "invocation {} (pid {}): {}",
        r.invocation,
        r.pid,
        shown.join(" ")
    )
}

/// The turn invocations of the journal, in invocation order: probes left out.
pub fn turns(obs: &Observation) -> Vec<&JournalRecord> {
    let mut t: Vec<&JournalRecord> = obs
        .journal
        .iter()
        .filter(|r| r.kind() == InvocationKind::Turn)
        .collect();
    t.sort_by_key(|r| r.invocation);
    t
}

/// The model and effort an argv selects, by meaning: `--model X --effort e` is `(X, e)`,
/// and a tiered id alone, `--model X-e`, is `(X, e)` too.
pub fn selected_model(argv: &[String]) -> (Option<String>, Option<String>) {
    let Ok(args) = parse_args(argv.get(1..).unwrap_or_default()) else {
        return (None, None);
    };
    match (args.model, args.effort) {
        (Some(m), None) => split_tier(&m),
        (m, e) => (m, e),
    }
}

/// `gemini-3.8-flash-low` → (`gemini-3.8-flash`, `low`); an id without a tier stays whole.
fn split_tier(id: &str) -> (Option<String>, Option<String>) {
    for tier in ["low", "medium", "high"] {
        if let Some(base) = id.strip_suffix(&format!("-{tier}")) {
            return (Some(base.to_string()), Some(tier.to_string()));
        }
    }
    (Some(id.to_string()), None)
}

/// A model expectation against an argv: `model` alone may itself be tiered.
fn model_check(place: &str, e: &InvocationExpect, r: &JournalRecord, out: &mut Vec<Failure>) {
    if e.model.is_none() && e.effort.is_none() {
        return;
    }
    let (want_model, want_effort) = match (&e.model, &e.effort) {
        (Some(m), None) => split_tier(m),
        (m, eff) => (m.clone(), eff.clone()),
    };
    let (got_model, got_effort) = selected_model(&r.argv);
    let model_ok = want_model.is_none() || want_model == got_model;
    let effort_ok = want_effort.is_none() || want_effort == got_effort;
    if !(model_ok && effort_ok) {
        let show = |m: &Option<String>, e: &Option<String>| {
            format!(
                "model {}, effort {}",
                m.as_deref().unwrap_or("(agy's default)"),
                e.as_deref().unwrap_or("(agy's default)")
            )
        };
        out.push(
            Failure::new(
                place,
                "model",
                show(&want_model, &want_effort),
                show(&got_model, &got_effort),
            )
            .closest("`--model X-low` and `--model X --effort low` select the same")
            .evidence([show_argv(r)]),
        );
    }
}

/// Everything wrong with `[expect.journal]`.
pub fn check_journal(e: &JournalExpect, obs: &Observation) -> Vec<Failure> {
    let j = turns(obs);
    let mut out = Vec::new();
    let place = "journal";
    let pids: BTreeSet<u32> = j.iter().map(|r| r.pid).collect();
    let all_argv: Vec<String> = j.iter().map(|r| show_argv(r)).collect();
    if let Some(n) = e.invocations {
        if j.len() != n as usize {
            out.push(
                Failure::new(place, "invocations", n.to_string(), j.len().to_string())
                    .evidence(all_argv.clone()),
            );
        }
    }
    if let Some(n) = e.invocations_at_least {
        if j.len() < n as usize {
            out.push(
                Failure::new(
                    place,
                    "invocations_at_least",
                    format!("at least {n}"),
                    j.len().to_string(),
                )
                .evidence(all_argv.clone()),
            );
        }
    }
    if let Some(n) = e.distinct_pids {
        if pids.len() != n as usize {
            let list: Vec<u32> = pids.iter().copied().collect();
            out.push(
                Failure::new(
                    place,
                    "distinct_pids",
                    n.to_string(),
                    format!("{} (pid {})", pids.len(), join(&list)),
                )
                .evidence(all_argv.clone()),
            );
        }
    }
    if let Some(n) = e.conversations {
        out.extend(super::conversation_check::conversations_check(place, n, &j));
    }
    if !e.one_conversation.is_empty() {
        out.extend(super::conversation_check::one_conversation_check(
            place,
            &e.one_conversation,
            &j,
        ));
    }
    for r in &j {
        argv_checks(
            &format!("invocation {}", r.invocation),
            r,
            &e.argv_has,
            &e.argv_lacks,
            &mut out,
        );
        if let Some(want) = e.stdin_closed {
            stdin_check(&format!("invocation {}", r.invocation), r, want, &mut out);
        }
    }
    concurrency_checks(e, obs, &all_argv, &mut out);
    if let Some(want) = e.cwd_is {
        out.extend(super::cwd_check::cwd_check(want, obs, &j));
    }
    if e.none_left_running == Some(true) && !obs.running_at_end.is_empty() {
        out.push(Failure::new(
            place,
            "none_left_running",
            "no agy process running after the last reply",
            format!("still running: pid {}", name_pids(obs, &obs.running_at_end)),
        ));
    }
    out
}

/// The pids, each tool child named by its label and the agy that started it (the
/// journal's `children`).
fn name_pids(obs: &Observation, pids: &[u32]) -> String {
    let named: Vec<String> = pids
        .iter()
        .map(|pid| {
            let parent = obs.journal.iter().find_map(|r| {
                r.children
                    .iter()
                    .find(|c| c.pid == *pid)
                    .map(|c| (r.pid, c.label.as_str()))
            });
            match parent {
                Some((agy, label)) => format!("{pid} (tool child `{label}` of agy pid {agy})"),
                None => pid.to_string(),
            }
        })
        .collect();
    named.join(", ")
}

/// `max_concurrency` and `min_concurrency`: the most agy processes at once.
fn concurrency_checks(
    e: &JournalExpect,
    obs: &Observation,
    all_argv: &[String],
    out: &mut Vec<Failure>,
) {
    let place = "journal";
    let (high, at) = concurrency_high_water(obs);
    if let Some(max) = e.max_concurrency {
        if high > max {
            out.push(
                Failure::new(
                    place,
                    "max_concurrency",
                    format!("at most {max} agy processes at once"),
                    format!("{high} at once"),
                )
                .evidence(at.clone()),
            );
        }
    }
    if let Some(min) = e.min_concurrency {
        if high < min {
            out.push(
                Failure::new(
                    place,
                    "min_concurrency",
                    format!("at least {min} agy processes at once"),
                    format!("at most {high} at once"),
                )
                .closest(if high <= 1 {
                    "one agy at a time: a driver that reads its next request only after answering the last serves concurrent requests in turn (the `init` skeletons do); answer each request on its own thread or task"
                } else {
                    "fewer agy processes at once than the requests allow"
                })
                .evidence(all_argv.to_vec()),
            );
        }
    }
}

fn argv_checks(
    place: &str,
    r: &JournalRecord,
    has: &[String],
    lacks: &[String],
    out: &mut Vec<Failure>,
) {
    for p in has {
        if !argv_has(&r.argv, p) {
            let f = Failure::new(place, "argv_has", format!("argv has `{p}`"), "it does not")
                .evidence([show_argv(r)]);
            out.push(match nearest(&r.argv, p) {
                Some(c) => f.closest(c),
                None => f,
            });
        }
    }
    for p in lacks {
        if argv_has(&r.argv, p) {
            out.push(
                Failure::new(
                    place,
                    "argv_lacks",
                    format!("argv without `{p}`"),
                    format!("`{p}` is there"),
                )
                .evidence([show_argv(r)]),
            );
        }
    }
}

fn stdin_check(place: &str, r: &JournalRecord, want: bool, out: &mut Vec<Failure>) {
    let closed = r.stdin.closed_us.is_some();
    if closed != want {
        out.push(
            Failure::new(
                place,
                "stdin_closed",
                if want {
                    "stdin closed by the adapter"
                } else {
                    "stdin left open"
                },
                if closed {
                    "closed".to_string()
                } else {
                    format!("never closed ({} lines received)", r.stdin.lines.len())
                },
            )
            .evidence([show_argv(r)]),
        );
    }
}

/// Everything wrong with one `[[expect.invocation]]`; `scaled` turns a scenario
/// duration into a wall-clock bound.
pub fn check_invocation(
    e: &InvocationExpect,
    obs: &Observation,
    scaled: &dyn Fn(Duration) -> Duration,
    marker_running: &dyn Fn(u32) -> bool,
) -> Vec<Failure> {
    let place = format!("invocation {}", e.nth);
    let turns = turns(obs);
    let Some(r) = turns.get(e.nth.saturating_sub(1) as usize).copied() else {
        let seen: Vec<String> = obs.journal.iter().map(show_argv).collect();
        return vec![Failure::new(
            place,
            "exists",
            format!("turn invocation {} in the journal", e.nth),
            format!("{} turn invocation(s)", turns.len()),
        )
        .evidence(seen)];
    };
    let mut out = Vec::new();
    model_check(&place, e, r, &mut out);
    argv_checks(&place, r, &e.argv_has, &e.argv_lacks, &mut out);
    if let Some(want) = e.stdin_closed {
        stdin_check(&place, r, want, &mut out);
    }
    if let Some(n) = e.stdin_lines {
        if r.stdin.lines.len() != n as usize {
            let texts: Vec<String> = r.stdin.lines.iter().map(|l| l.text.clone()).collect();
            out.push(
                Failure::new(
                    &place,
                    "stdin_lines",
                    n.to_string(),
                    r.stdin.lines.len().to_string(),
                )
                .evidence(texts),
            );
        }
    }
    signal_checks(&place, e, r, marker_running, &mut out);
    if let Some(n) = e.continues {
        let earlier = n
            .checked_sub(1)
            .and_then(|i| turns.get(i as usize))
            .copied();
        if let Some(f) = super::conversation_check::continues_check(&place, n, earlier, r) {
            let argv = earlier.into_iter().chain([r]).map(show_argv);
            out.push(f.evidence(argv.collect::<Vec<_>>()));
        }
    }
    if let Some(bound) = &e.gone_within_after_signal {
        gone_after_signal_check(&place, obs, r, scaled(bound.0), &mut out);
    }
    out
}

/// `signals` and `killed`: what reached the invocation, and whether SIGKILL ended it.
fn signal_checks(
    place: &str,
    e: &InvocationExpect,
    r: &JournalRecord,
    marker_running: &dyn Fn(u32) -> bool,
    out: &mut Vec<Failure>,
) {
    let got: Vec<String> = r.signals.iter().map(|s| s.signal.clone()).collect();
    if let Some(want) = &e.signals {
        let want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
        if got != want {
            out.push(Failure::new(
                place,
                "signals",
                format!("{want:?}"),
                format!("{got:?}"),
            ));
        }
    }
    let Some(want) = e.killed else { return };
    let running = !r.complete && marker_running(r.pid);
    let killed = !r.complete && !running;
    if killed != want {
        let observed = if running {
            "still running".to_string()
        } else if r.complete {
            format!("ended by itself ({})", exit_text(r))
        } else {
            "killed".to_string()
        };
        out.push(
            Failure::new(
                place,
                "killed",
                if want {
                    "ended by SIGKILL"
                } else {
                    "not killed"
                },
                observed,
            )
            .evidence([format!("signals received: {got:?}")]),
        );
    }
}

/// `gone_within_after_signal`: the invocation ended within `bound` (wall clock) of its
/// first signal.
fn gone_after_signal_check(
    place: &str,
    obs: &Observation,
    r: &JournalRecord,
    bound: Duration,
    out: &mut Vec<Failure>,
) {
    let Some(first) = r.signals.first() else {
        out.push(Failure::new(
            place,
            "gone_within_after_signal",
            format!("gone within {} of its first signal", secs(bound)),
            "it received no signal",
        ));
        return;
    };
    let expected = format!("gone within {} of {}", secs(bound), first.signal);
    match obs.ended_us.get(&r.pid).copied().or(r.ended_us) {
        Some(end) => {
            let took = Duration::from_micros(end.saturating_sub(first.at_us));
            if took > bound {
                out.push(Failure::new(
                    place,
                    "gone_within_after_signal",
                    expected,
                    format!("gone after {}", secs(took)),
                ));
            }
        }
        None => out.push(Failure::new(
            place,
            "gone_within_after_signal",
            expected,
            format!(
                "still running {} after it",
                secs(Duration::from_micros(now_us().saturating_sub(first.at_us)))
            ),
        )),
    }
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

fn exit_text(r: &JournalRecord) -> String {
    match &r.exit {
        Some(x) => match (&x.code, &x.signal) {
            (Some(c), _) => format!("exit {c}"),
            (None, Some(s)) => format!("signal {s}"),
            _ => "unknown".into(),
        },
        None => "unknown".into(),
    }
}

/// The most agy processes alive at one moment, and the invocations involved then.
pub fn concurrency_high_water(obs: &Observation) -> (u32, Vec<String>) {
    let now = now_us();
    let turns = turns(obs);
    let mut edges: Vec<(u64, i32, usize)> = Vec::new();
    for (i, r) in turns.iter().enumerate() {
        let end = r
            .ended_us
            .or_else(|| obs.ended_us.get(&r.pid).copied())
            .unwrap_or(now);
        edges.push((r.started_us, 1, i));
        edges.push((end, -1, i));
    }
    // Ends sort before starts at the same instant: touching intervals do not overlap.
    edges.sort_by_key(|(t, d, _)| (*t, *d));
    let mut live: BTreeSet<usize> = BTreeSet::new();
    let mut best = 0u32;
    let mut at = Vec::new();
    for (_, d, i) in edges {
        if d > 0 {
            live.insert(i);
        } else {
            live.remove(&i);
        }
        if live.len() as u32 > best {
            best = live.len() as u32;
            at = live.iter().map(|i| show_argv(turns[*i])).collect();
        }
    }
    (best, at)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use agy_protocol::journal::{StdinLog, JOURNAL_VERSION};

    pub(crate) fn record(
        n: u32,
        pid: u32,
        argv: &[&str],
        start: u64,
        end: Option<u64>,
    ) -> JournalRecord {
        JournalRecord {
            v: JOURNAL_VERSION,
            complete: end.is_some(),
            invocation: n,
            pid,
            ppid: 1,
            argv: argv.iter().map(|s| s.to_string()).collect(),
            cwd: "/".into(),
            env: Default::default(),
            mode: None,
            rule: None,
            conversation_id: None,
            continued_conversation: None,
            conversation_turn: None,
            children: Vec::new(),
            started_us: start,
            ended_us: end,
            stdin: StdinLog::default(),
            signals: vec![],
            exit: None,
            files: vec![],
            stdout_bytes: 0,
            stderr_bytes: 0,
            stdout_head: String::new(),
            stderr_head: String::new(),
        }
    }

    #[test]
    fn a_leftover_tool_child_is_named_with_the_agy_that_started_it() {
        let mut agy = record(1, 40, &["agy", "-p", "x"], 1, Some(2));
        agy.children.push(agy_protocol::journal::ChildRecord {
            pid: 41,
            label: "mcp_server".into(),
            started_us: 1,
            outlives: true,
        });
        let obs = Observation {
            journal: vec![agy],
            running_at_end: vec![41, 7],
            ..Observation::default()
        };
        let e = JournalExpect {
            none_left_running: Some(true),
            ..JournalExpect::default()
        };
        let failures = check_journal(&e, &obs);
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert_eq!(
            failures[0].observed,
            "still running: pid 41 (tool child `mcp_server` of agy pid 40), 7"
        );
    }

    #[test]
    fn argv_patterns_match_tokens_pairs_and_equals_forms() {
        let argv: Vec<String> = [
            "agy",
            "-p",
            "x y",
            "--output-format",
            "json",
            "--print-timeout=10s",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert!(argv_has(&argv, "--output-format json"));
        assert!(argv_has(&argv, "--print-timeout"));
        assert!(argv_has(&argv, "--print-timeout 10s"));
        assert!(!argv_has(&argv, "--output-format stream-json"));
        assert!(!argv_has(&argv, "agy"));
    }

    #[test]
    fn a_flag_matches_under_every_spelling_agy_reads() {
        let argv = |tokens: &[&str]| -> Vec<String> {
            std::iter::once("agy")
                .chain(tokens.iter().copied())
                .map(String::from)
                .collect()
        };
        for tokens in [
            &["-p", "hi"][..],
            &["--print", "hi"],
            &["--print=hi"],
            &["-prompt", "hi"],
            &["--p=hi"],
        ] {
            let a = argv(tokens);
            assert!(argv_has(&a, "-p"), "{tokens:?}");
            assert!(argv_has(&a, "--print"), "{tokens:?}");
            assert!(argv_has(&a, "-p hi"), "{tokens:?}");
            assert!(!argv_has(&a, "-p bye"), "{tokens:?}");
            assert!(!argv_has(&a, "-c"), "{tokens:?}");
        }
        assert!(argv_has(&argv(&["--continue"]), "-c"));
        assert!(!argv_has(&argv(&["--print-timeout", "5s"]), "-p"));
        assert!(!argv_has(&argv(&["-", "x"]), "-p"));
    }

    #[test]
    fn missing_flag_reports_the_nearest_token() {
        let obs = Observation {
            journal: vec![record(
                1,
                10,
                &["agy", "-p", "x", "--output-format", "stream-json"],
                0,
                Some(5),
            )],
            ..Observation::default()
        };
        let e = JournalExpect {
            argv_has: vec!["--output-format json".into()],
            ..JournalExpect::default()
        };
        let f = check_journal(&e, &obs);
        assert_eq!(f.len(), 1);
        assert!(
            f[0].closest
                .as_deref()
                .unwrap_or("")
                .contains("stream-json"),
            "{}",
            f[0]
        );
    }

    #[test]
    fn high_water_counts_overlaps_only() {
        let obs = Observation {
            journal: vec![
                record(1, 1, &["agy"], 0, Some(10)),
                record(2, 2, &["agy"], 5, Some(15)),
                record(3, 3, &["agy"], 10, Some(20)),
                record(4, 4, &["agy"], 12, Some(13)),
            ],
            ..Observation::default()
        };
        assert_eq!(concurrency_high_water(&obs).0, 3);
        let e = JournalExpect {
            max_concurrency: Some(2),
            distinct_pids: Some(4),
            invocations: Some(4),
            ..JournalExpect::default()
        };
        let f = check_journal(&e, &obs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].observed, "3 at once");
    }

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_tiered_id_and_an_id_with_effort_select_the_same() {
        let tiered = selected_model(&argv(&["agy", "--model", "gemini-3.8-flash-low"]));
        let split = selected_model(&argv(&[
            "agy",
            "--model",
            "gemini-3.8-flash",
            "--effort",
            "low",
        ]));
        assert_eq!(tiered, split);
        assert_eq!(tiered.1.as_deref(), Some("low"));
        let e = InvocationExpect {
            nth: 1,
            model: Some("gemini-3.8-flash".into()),
            effort: Some("high".into()),
            ..InvocationExpect::default()
        };
        let obs = Observation {
            journal: vec![record(
                1,
                1,
                &["agy", "--model", "gemini-3.8-flash-low"],
                0,
                Some(1),
            )],
            ..Observation::default()
        };
        let f = check_invocation(&e, &obs, &|d| d, &|_| false);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].observed, "model gemini-3.8-flash, effort low");
    }

    #[test]
    fn probes_are_neither_counted_nor_numbered_as_turns() {
        let obs = Observation {
            journal: vec![
                record(1, 1, &["agy", "--version"], 0, Some(1)),
                record(
                    2,
                    2,
                    &["agy", "-p", "x", "--output-format", "json"],
                    2,
                    Some(3),
                ),
                record(3, 3, &["agy", "models"], 4, Some(5)),
            ],
            ..Observation::default()
        };
        let e = JournalExpect {
            invocations: Some(1),
            distinct_pids: Some(1),
            argv_has: vec!["--output-format json".into()],
            max_concurrency: Some(1),
            ..JournalExpect::default()
        };
        assert!(check_journal(&e, &obs).is_empty());
        let first = InvocationExpect {
            nth: 1,
            argv_has: vec!["-p".into()],
            ..InvocationExpect::default()
        };
        assert!(check_invocation(&first, &obs, &|d| d, &|_| false).is_empty());
    }
}
