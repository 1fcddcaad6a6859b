//! The terminal report: one line per scenario as it finishes, the broken expectations
//! with expected in green and observed in red, and a summary. Colours follow
//! `--color` and `NO_COLOR` (anstream).

use super::model::{RunReport, ScenarioResult, Status};
use anstyle::{AnsiColor, Style};
use std::io::Write;

const GREEN: Style = AnsiColor::Green.on_default();
const RED: Style = AnsiColor::Red.on_default();
const YELLOW: Style = AnsiColor::Yellow.on_default();
const DIM: Style = Style::new().dimmed();
const BOLD: Style = Style::new().bold();

/// Writes one finished scenario (`done` of `total`).
pub fn write_progress(out: &mut dyn Write, r: &ScenarioResult, done: usize, total: usize) {
    // What the adapter said may hold terminal escapes, bidi overrides or zero-width
    // characters: shown escaped, never acted on.
    let mut shown = r.clone();
    super::escape_result(&mut shown);
    let r = &shown;
    let (mark, style) = match r.status {
        Status::Passed => ("✓", GREEN),
        Status::ExpectedFailure => ("✗", YELLOW),
        Status::Skipped => ("-", DIM),
        Status::NotApplicable => ("·", DIM),
        Status::Interrupted => ("!", YELLOW),
        _ => ("✗", RED),
    };
    let width = total.to_string().len();
    let _ = writeln!(
        out,
        "{DIM}[{done:>width$}/{total}]{DIM:#} {style}{mark}{style:#} {} {DIM}({} ms){DIM:#}{}",
        r.name,
        r.duration_ms,
        match r.status {
            Status::Passed | Status::Failed => String::new(),
            s => format!(" {style}{}{style:#}", s.word()),
        }
    );
    write_advice(out, r);
    write_unverified(out, r);
    write_unjudged(out, r);
    if matches!(
        r.status,
        Status::Skipped | Status::NotApplicable | Status::ExpectedFailure | Status::Passed
    ) {
        if let Some(n) = &r.note {
            let _ = writeln!(out, "    {DIM}{n}{DIM:#}");
        }
        write_kept_sandbox(out, r);
        return;
    }
    for f in &r.failures {
        let _ = writeln!(out, "    {BOLD}{}{BOLD:#}", f.headline());
        let _ = writeln!(out, "      expected: {GREEN}{}{GREEN:#}", f.expected);
        let _ = writeln!(out, "      observed: {RED}{}{RED:#}", f.observed);
        if let Some(c) = &f.closest {
            let _ = writeln!(out, "      closest:  {YELLOW}{c}{YELLOW:#}");
        }
        for (i, e) in f.evidence.iter().enumerate() {
            let label = if i == 0 { "evidence:" } else { "         " };
            let _ = writeln!(out, "      {label} {DIM}{e}{DIM:#}");
        }
    }
    if let Some(err) = &r.driver_stderr {
        let lines: Vec<&str> = err.lines().collect();
        let _ = writeln!(out, "    {DIM}driver stderr (last lines):{DIM:#}");
        for l in &lines[lines.len().saturating_sub(8)..] {
            let _ = writeln!(out, "    {DIM}| {l}{DIM:#}");
        }
    }
    write_kept_sandbox(out, r);
}

/// Where the scenario's sandbox was kept (`--keep-sandboxes`), whatever its verdict.
fn write_kept_sandbox(out: &mut dyn Write, r: &ScenarioResult) {
    if let Some(s) = &r.sandbox {
        let _ = writeln!(out, "    {DIM}sandbox kept at {s}{DIM:#}");
    }
}

/// Missed seed choices and probe costs, as advice with their evidence: not part of the
/// profile contract, so they do not fail the scenario unless the adapter config is strict.
fn write_advice(out: &mut dyn Write, r: &ScenarioResult) {
    for f in &r.advice {
        let _ = writeln!(
            out,
            "    {YELLOW}advice{YELLOW:#} {}: {} — expected {}, observed {}",
            f.headline(),
            f.seed_choice.as_deref().unwrap_or("a seed's choice"),
            f.expected,
            f.observed
        );
        for e in &f.evidence {
            let _ = writeln!(out, "      {DIM}{e}{DIM:#}");
        }
    }
}

/// Broken expectations that rest on unverified agy behaviour: shown with the fact
/// they rest on, not failing the scenario unless the adapter config is strict.
fn write_unverified(out: &mut dyn Write, r: &ScenarioResult) {
    let Some(basis) = &r.unverified_basis else {
        return;
    };
    for f in &r.unverified {
        let _ = writeln!(
            out,
            "    {YELLOW}unverified{YELLOW:#} {}: expected {}, observed {} — rests on: {basis}",
            f.headline(),
            f.expected,
            f.observed
        );
    }
}

/// What the run could not judge, and ops that failed with no expectation on them: not
/// failures of the scenario, but not to pass unseen.
fn write_unjudged(out: &mut dyn Write, r: &ScenarioResult) {
    for n in &r.not_judged {
        let _ = writeln!(out, "    {YELLOW}not judged{YELLOW:#} {n}");
    }
    for op in r.ops.iter().filter(|o| !o.expected) {
        let what = match (&op.error, &op.no_reply) {
            (Some(e), _) => format!("replied with error `{e}`"),
            (None, Some(why)) => format!("had no reply: {why}"),
            (None, None) => continue,
        };
        let _ = writeln!(
            out,
            "    {YELLOW}op {} {}{YELLOW:#} {what} (the scenario has no expectation on it)",
            op.index, op.op
        );
    }
}

/// Writes the summary line.
pub fn write_summary(out: &mut dyn Write, report: &RunReport) {
    let failed: usize = report
        .results
        .iter()
        .filter(|r| r.status.fails_run())
        .count();
    let mut parts = vec![format!("{} passed", report.count(Status::Passed))];
    parts.push(format!("{failed} failed"));
    for s in [
        Status::ExpectedFailure,
        Status::NotApplicable,
        Status::Skipped,
        Status::Interrupted,
    ] {
        let n = report.count(s);
        if n > 0 {
            parts.push(format!("{n} {}", s.word()));
        }
    }
    let unverified = report
        .results
        .iter()
        .filter(|r| !r.unverified.is_empty())
        .count();
    if unverified > 0 {
        parts.push(format!("{unverified} with unverified failures"));
    }
    if !report.not_run.is_empty() {
        parts.push(format!("{} not run", report.not_run.len()));
    }
    let style = if failed > 0 || !report.complete {
        RED
    } else {
        GREEN
    };
    let _ = writeln!(
        out,
        "\n{style}{}{style:#} in {:.2} s against {}{}",
        parts.join(", "),
        report.duration_ms as f64 / 1000.0,
        shown(&report.adapter),
        if report.complete {
            ""
        } else {
            " (interrupted: partial report)"
        }
    );
    if let Some(line) = skipped_by_profile(report) {
        let _ = writeln!(out, "{DIM}{line}{DIM:#}");
    }
    if failed > 0 {
        let _ = writeln!(out, "failed:");
        for r in report.results.iter().filter(|r| r.status.fails_run()) {
            let first = r.failures.first().map(|f| f.headline()).unwrap_or_default();
            let _ = writeln!(out, "  {} — {}", shown(&r.name), shown(&first));
            let _ = writeln!(out, "    {DIM}{}{DIM:#}", shown(&r.path));
            if let Some(d) = r.description.as_deref().map(shown) {
                let d: Vec<&str> = d.split_whitespace().collect();
                let _ = writeln!(out, "    {DIM}{}{DIM:#}", d.join(" "));
            }
        }
        if let Some(line) = built_in_hint(report) {
            let _ = writeln!(out, "{DIM}{line}{DIM:#}");
        }
    }
}

/// One line summing up the skipped scenarios by profile, when there are any.
/// How to open a failing scenario of the built-in catalogue, when one failed.
pub fn built_in_hint(report: &RunReport) -> Option<String> {
    let built_in = crate::embedded::BUILT_IN;
    report
        .results
        .iter()
        .any(|r| r.status.fails_run() && r.path.starts_with(built_in))
        .then(|| format!("`{built_in}/<file>` is built into agy-harness: `agy-harness scenarios export DIR` writes it out as `DIR/<file>`"))
}

/// `text` with invisible characters shown escaped (see [`write_progress`]).
fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    crate::data_text::escape_invisible(text, true)
}

fn skipped_by_profile(report: &RunReport) -> Option<String> {
    let mut by_profile: std::collections::BTreeMap<&str, usize> = Default::default();
    for r in report
        .results
        .iter()
        .filter(|r| r.status == Status::Skipped)
    {
        *by_profile.entry(r.profile.as_str()).or_default() += 1;
    }
    if by_profile.is_empty() {
        return None;
    }
    let counts: Vec<String> = by_profile
        .iter()
        .map(|(profile, n)| format!("{n} {profile}"))
        .collect();
    Some(format!(
        "skipped: {} (`-v` lists them with the reason)",
        counts.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::OpRecord;

    fn op(index: usize, error: Option<&str>, expected: bool) -> OpRecord {
        OpRecord {
            index,
            op: "turn".into(),
            outcome: None,
            error: error.map(String::from),
            no_reply: None,
            expected,
            duration_ms: 1,
        }
    }

    fn shown(r: &ScenarioResult) -> String {
        let mut out = Vec::new();
        write_progress(&mut out, r, 1, 1);
        String::from_utf8(out).expect("utf-8")
    }

    fn result(ops: Vec<OpRecord>, not_judged: Vec<String>) -> ScenarioResult {
        ScenarioResult {
            ops,
            not_judged,
            ..ScenarioResult::bare("s", "", "session", Status::Passed)
        }
    }

    #[test]
    fn a_failed_op_without_expectations_is_shown_and_one_with_them_is_not() {
        let text = shown(&result(
            vec![
                op(1, Some("AgyAuthError"), false),
                op(2, Some("Quota"), true),
            ],
            vec![],
        ));
        assert!(text.contains("op 1 turn"), "{text}");
        assert!(text.contains("AgyAuthError"), "{text}");
        assert!(!text.contains("Quota"), "{text}");
        let quiet = shown(&result(vec![op(1, None, false)], vec![]));
        assert_eq!(quiet.lines().count(), 1, "{quiet}");
    }

    #[test]
    fn a_kept_sandbox_is_named_for_a_passed_scenario_too() {
        let mut r = result(vec![], vec![]);
        r.sandbox = Some("/tmp/agy-harness-x/oneshot-y".into());
        let text = shown(&r);
        assert!(
            text.contains("sandbox kept at /tmp/agy-harness-x/oneshot-y"),
            "{text}"
        );
    }

    #[test]
    fn an_unverified_failure_is_shown_with_what_it_rests_on() {
        let mut r = result(vec![], vec![]);
        r.unverified = vec![crate::check::Failure::new(
            "op 2 turn",
            "outcome",
            "timeout",
            "success",
        )];
        r.unverified_basis = Some("agy's print timeout in persistent mode".into());
        let text = shown(&r);
        assert!(text.contains("unverified"), "{text}");
        assert!(text.contains("op 2 turn: outcome"), "{text}");
        assert!(
            text.contains("rests on: agy's print timeout in persistent mode"),
            "{text}"
        );
    }

    #[test]
    fn what_was_not_judged_is_said() {
        let text = shown(&result(vec![], vec!["op 2 turn: usage — none".into()]));
        let line = text.lines().nth(1).unwrap_or_default();
        assert!(line.contains("not judged"), "{text}");
        assert!(line.contains("op 2 turn: usage"), "{text}");
    }

    /// The terminal showed an adapter's bidi overrides, zero-width characters and
    /// escape sequences raw (a failure could read backwards or clear the screen).
    #[test]
    fn invisible_characters_from_the_adapter_are_shown_escaped() {
        let mut r = result(Vec::new(), Vec::new());
        r.status = Status::Failed;
        r.failures = vec![crate::check::Failure::new(
            "op 1",
            "text",
            "a cat",
            "photo\u{202e}gpj.exe\u{200b}\u{1b}[2J",
        )];
        let text = shown(&r);
        // The report's own colours are escape sequences; the adapter's are not.
        assert!(!text.contains(['\u{202e}', '\u{200b}']), "{text}");
        assert!(!text.contains("\u{1b}[2J"), "{text}");
        assert!(
            text.contains("photo\\u{202e}gpj.exe\\u{200b}\\u{001b}[2J"),
            "{text}"
        );
    }

    #[test]
    fn a_failing_built_in_scenario_says_how_to_open_it() {
        let mut r = result(Vec::new(), Vec::new());
        r.status = Status::Failed;
        r.path = format!("{}/oneshot/x.toml", crate::embedded::BUILT_IN);
        let report = RunReport {
            adapter: "a".into(),
            started: String::new(),
            duration_ms: 1,
            time_scale: 1.0,
            complete: true,
            results: vec![r],
            not_run: vec![],
        };
        let mut out = Vec::new();
        write_summary(&mut out, &report);
        let text = String::from_utf8(out).expect("utf-8");
        assert!(text.contains("agy-harness scenarios export DIR"), "{text}");
    }
}
