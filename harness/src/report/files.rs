//! File reports: JSON (the [`RunReport`] as is), JUnit XML (quick-junit), Markdown and
//! HTML (one self-contained page, see [`render_html`](super::render_html)).

use super::model::{RunReport, ScenarioResult, Status};
use crate::data_text::escape_invisible;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A report file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// `json=PATH`.
    Json,
    /// `junit=PATH`.
    Junit,
    /// `markdown=PATH`.
    Markdown,
    /// `html=PATH`: one self-contained page.
    Html,
}

/// One `--report FORMAT=PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportTarget {
    /// Format.
    pub format: ReportFormat,
    /// Where to write it.
    pub path: PathBuf,
}

/// Parses `json=PATH`, `junit=PATH`, `markdown=PATH`, `html=PATH`.
pub fn parse_report_target(s: &str) -> Result<ReportTarget, String> {
    let (kind, path) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not FORMAT=PATH; write e.g. `json=report.json`"))?;
    let format = match kind {
        "json" => ReportFormat::Json,
        "junit" => ReportFormat::Junit,
        "markdown" | "md" => ReportFormat::Markdown,
        "html" => ReportFormat::Html,
        other => {
            return Err(format!(
                "unknown report format `{other}`; use `json`, `junit`, `markdown` or `html`"
            ))
        }
    };
    if path.is_empty() {
        return Err(format!("`{s}` names no file"));
    }
    Ok(ReportTarget {
        format,
        path: PathBuf::from(path),
    })
}

/// Why a report file was not written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The JSON serialiser failed.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// The JUnit serialiser failed.
    #[error("{0}")]
    Junit(#[from] quick_junit::SerializeError),
    /// The report's folder could not be made.
    #[error("failed to create `{}`: {source}", path.display())]
    CreateFolder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file could not be written.
    #[error("failed to write `{}`: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Renders `report` in `format`.
pub fn render_report(report: &RunReport, format: ReportFormat) -> Result<String, ReportError> {
    match format {
        ReportFormat::Json => Ok(serde_json::to_string_pretty(report)?),
        ReportFormat::Junit => render_junit(report),
        ReportFormat::Markdown => Ok(render_markdown(report)),
        ReportFormat::Html => Ok(super::html::render_html(report)),
    }
}

/// Writes `report` to `target`.
pub fn write_report(report: &RunReport, target: &ReportTarget) -> Result<(), ReportError> {
    let text = render_report(report, target.format)?;
    write_file(&target.path, &text)
}

fn write_file(path: &Path, text: &str) -> Result<(), ReportError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| ReportError::CreateFolder {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    crate::keep::write_kept(path, text).map_err(|source| ReportError::Write {
        path: path.to_path_buf(),
        source,
    })
}

fn render_junit(report: &RunReport) -> Result<String, ReportError> {
    let mut junit = Report::new("agy-harness");
    let mut suite = TestSuite::new(report.adapter.clone());
    for r in report.results.iter().filter(|r| !r.skipped_for_profile()) {
        let status = junit_status(r);
        let mut case = TestCase::new(r.name.clone(), status);
        let basis = r.unverified_basis.as_deref().unwrap_or_default();
        let aside: Vec<String> = r
            .advice
            .iter()
            .map(|f| format!("advice (not the contract):\n{f}"))
            .chain(
                r.unverified
                    .iter()
                    .map(|f| format!("unverified (rests on: {basis}):\n{f}")),
            )
            .collect();
        if !aside.is_empty() {
            case.set_system_out(aside.join("\n\n"));
        }
        if let Some(err) = &r.driver_stderr {
            case.set_system_err(err.clone());
        }
        case.set_classname(r.profile.clone());
        case.set_time(Duration::from_millis(r.duration_ms));
        suite.add_test_case(case);
    }
    junit.add_test_suite(suite);
    Ok(junit.to_string()?)
}

/// A result's JUnit status. An expected failure is a skip of type `expected_failure`
/// with the config's reason, as pytest writes an xfail (`<skipped type="pytest.xfail">`),
/// so CI pages show it apart from passes; its broken expectations are the skip's text.
fn junit_status(r: &ScenarioResult) -> TestCaseStatus {
    match r.status {
        Status::Passed => TestCaseStatus::success(),
        Status::ExpectedFailure => {
            let mut s = TestCaseStatus::skipped();
            s.set_type("expected_failure");
            s.set_message(format!(
                "expected failure: {}",
                r.note.as_deref().unwrap_or("listed in the adapter config")
            ));
            s.set_description(junit_body(r));
            s
        }
        Status::Skipped | Status::NotApplicable | Status::Interrupted => {
            let mut s = TestCaseStatus::skipped();
            if let Some(n) = &r.note {
                s.set_message(n.clone());
            }
            s
        }
        _ => {
            let kind = if matches!(r.status, Status::Error | Status::TimedOut) {
                NonSuccessKind::Error
            } else {
                NonSuccessKind::Failure
            };
            let mut s = TestCaseStatus::non_success(kind);
            let first = r
                .failures
                .first()
                .map(|f| f.headline())
                .unwrap_or_else(|| r.status.word().into());
            s.set_message(first);
            s.set_description(junit_body(r));
            s
        }
    }
}

/// The explanation and every broken expectation.
fn junit_body(r: &ScenarioResult) -> String {
    let body: Vec<String> = std::iter::once(r.explanation())
        .chain(r.failures.iter().map(|f| f.to_string()))
        .collect();
    body.join("\n\n")
}

fn render_markdown(report: &RunReport) -> String {
    let mut out = String::new();
    out.push_str(&format!("# agy-harness: {}\n\n", md_text(&report.adapter)));
    let failed = report
        .results
        .iter()
        .filter(|r| r.status.fails_run())
        .count();
    out.push_str(&format!(
        "{} passed, {failed} failed, {} expected failures, {} not applicable, {} skipped — {:.2} s, time scale {}{}\n\n",
        report.count(Status::Passed),
        report.count(Status::ExpectedFailure),
        report.count(Status::NotApplicable),
        report.count(Status::Skipped),
        report.duration_ms as f64 / 1000.0,
        report.time_scale,
        if report.complete { "" } else { " — **interrupted: partial report**" }
    ));
    out.push_str("| Scenario | Result | Covers | First broken expectation |\n|---|---|---|---|\n");
    for r in report.results.iter().filter(|r| !r.skipped_for_profile()) {
        let first = match r.status {
            // Why it does not apply stands where a broken expectation would.
            Status::NotApplicable => r.note.clone().unwrap_or_default(),
            _ => r.failures.first().map(|f| f.headline()).unwrap_or_default(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            md_code(&r.name),
            r.status.word(),
            md_text(&r.covers.join("; ")),
            md_text(&first)
        ));
    }
    let other_profiles = report
        .results
        .iter()
        .filter(|r| r.skipped_for_profile())
        .count();
    if other_profiles > 0 {
        out.push_str(&format!(
            "\n{other_profiles} scenario(s) of profiles the adapter does not implement are not listed.\n"
        ));
    }
    markdown_failure_blocks(report, &mut out);
    markdown_advice_blocks(report, &mut out);
    if let Some(line) = super::terminal::built_in_hint(report) {
        // Ours, and its `<file>` is inside code spans: written as is.
        out.push_str(&format!("\n{line}\n"));
    }
    if !report.not_run.is_empty() {
        out.push_str("\nNot run: ");
        out.push_str(
            &report
                .not_run
                .iter()
                .map(|n| md_code(n))
                .collect::<Vec<_>>()
                .join(", "),
        );
        out.push('\n');
    }
    out
}

/// Each failed scenario's section: why, its broken expectations in a fence no adapter
/// text can close, and the end of the adapter's stderr.
fn markdown_failure_blocks(report: &RunReport, out: &mut String) {
    for r in report.results.iter().filter(|r| !r.failures.is_empty()) {
        let block: String = r.failures.iter().map(|f| format!("{f}\n\n")).collect();
        let block = escape_invisible(&block, true);
        let fence = md_fence(&block);
        out.push_str(&format!(
            "\n## {}\n\n{}\n\n{fence}text\n{block}{fence}\n",
            md_code(&r.name),
            r.explanation()
                .lines()
                .map(md_text)
                .collect::<Vec<_>>()
                .join("\n"),
        ));
        if let Some(err) = &r.driver_stderr {
            let err = escape_invisible(err, true);
            let fence = md_fence(&err);
            out.push_str(&format!(
                "\nThe adapter's stderr (its end):\n\n{fence}text\n{err}\n{fence}\n"
            ));
        }
    }
}

/// Each scenario's advice (missed seed choices, probe costs) in a fence: not the
/// contract, so apart from the broken expectations, with the count and the evidence.
fn markdown_advice_blocks(report: &RunReport, out: &mut String) {
    for r in report.results.iter().filter(|r| !r.advice.is_empty()) {
        let block: String = r.advice.iter().map(|f| format!("{f}\n\n")).collect();
        let block = escape_invisible(&block, true);
        let fence = md_fence(&block);
        out.push_str(&format!(
            "\n## Advice: {}\n\nNot the contract: fails only when the adapter config is strict.\n\n{fence}text\n{block}{fence}\n",
            md_code(&r.name),
        ));
    }
}

/// `text` inline in Markdown (a table cell, a line): HTML is shown, not rendered (an
/// adapter's output may hold `<img onerror=…>`), `|` cannot end a cell, a line break
/// cannot end the row, and invisible characters are shown escaped.
fn md_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in escape_invisible(text, true).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("\\|"),
            '\n' => out.push_str("<br>"),
            c => out.push(c),
        }
    }
    out
}

/// `text` as inline code: its delimiter is a run of backticks longer than any in it, so
/// the text cannot end the span early (HTML inside a code span is not rendered).
fn md_code(text: &str) -> String {
    let text = escape_invisible(text, false).replace('|', "\\|");
    let ticks = "`".repeat(longest_backtick_run(&text) + 1);
    // A span that starts or ends with a backtick needs a space inside its delimiters.
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// A code fence for `block`: longer than any backtick run in it, so no line of it
/// closes the fence and lets the rest render as Markdown.
fn md_fence(block: &str) -> String {
    "`".repeat((longest_backtick_run(block) + 1).max(3))
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Failure;
    use crate::report::{ScenarioResult, PROFILE_SKIP};

    fn result(name: &str, status: Status, note: Option<String>) -> ScenarioResult {
        ScenarioResult {
            description: Some("The second turn fails and is released.".into()),
            duration_ms: 1,
            note,
            ..ScenarioResult::bare(name, &format!("scenarios/{name}.toml"), "session", status)
        }
    }

    fn report() -> RunReport {
        let mut failed = result("session/x", Status::Failed, None);
        failed.failures = vec![Failure::new("op 2 turn", "outcome", "transient", "success")
            .evidence(["agy invocation 1 (pid 7): exit 0".to_string()])];
        let skipped = result(
            "acp/y",
            Status::Skipped,
            Some(format!("{PROFILE_SKIP} `acp` profile")),
        );
        let budget = result(
            "oneshot/z",
            Status::Skipped,
            Some("skipped for budget".into()),
        );
        RunReport {
            adapter: "a".into(),
            started: String::new(),
            duration_ms: 1,
            time_scale: 1.0,
            complete: true,
            results: vec![failed, skipped, budget],
            not_run: vec![],
        }
    }

    #[test]
    fn junit_explains_a_failure_and_leaves_out_skips_of_other_profiles() {
        let xml = render_junit(&report()).expect("renders");
        assert!(xml.contains("scenarios/session/x.toml"), "{xml}");
        assert!(
            xml.contains("The second turn fails and is released."),
            "{xml}"
        );
        assert!(xml.contains("agy invocation 1 (pid 7)"), "{xml}");
        assert!(!xml.contains("acp/y"), "{xml}");
        assert!(
            xml.contains("oneshot/z"),
            "a skip for another reason stays: {xml}"
        );
    }

    #[test]
    fn junit_shows_an_expected_failure_as_a_skip_with_its_reason_not_as_a_pass() {
        let mut xfail = result(
            "session/known",
            Status::ExpectedFailure,
            Some("drops the second turn (tracker 12)".into()),
        );
        xfail.failures = vec![Failure::new("op 2 turn", "outcome", "success", "transient")];
        let mut report = report();
        report.results = vec![xfail];
        let xml = render_junit(&report).expect("renders");
        assert!(
            xml.contains(r#"<skipped message="expected failure: drops the second turn (tracker 12)" type="expected_failure">"#),
            "{xml}"
        );
        assert!(xml.contains("op 2 turn"), "the broken expectation: {xml}");
    }

    #[test]
    fn markdown_counts_skips_of_other_profiles_instead_of_listing_them() {
        let md = render_markdown(&report());
        assert!(!md.contains("acp/y"), "{md}");
        assert!(
            md.contains("1 scenario(s) of profiles the adapter does not implement"),
            "{md}"
        );
        assert!(
            md.contains("The second turn fails and is released."),
            "{md}"
        );
    }

    #[test]
    fn markdown_shows_advice_with_its_count_and_evidence() {
        let mut r = report();
        r.results[1] = result("mcp/p", Status::Passed, None);
        r.results[1].advice = vec![Failure::new("probes", "version", "at most 1", "3")
            .evidence(["agy invocation 2 (pid 9): agy --version".to_string()])
            .seed_choice(Some(&"probe cost: no bound in the record".to_string()))];
        let md = render_markdown(&r);
        let advice = md
            .split("## Advice: `mcp/p`")
            .nth(1)
            .expect("advice section");
        assert!(advice.contains("probes: version"), "{md}");
        assert!(advice.contains("observed: 3"), "{md}");
        assert!(advice.contains("agy --version"), "{md}");
        assert!(
            advice.contains("probe cost: no bound in the record"),
            "{md}"
        );
    }

    /// Markdown reports kept raw HTML from adapter output: a reply text closing the
    /// code fence let an `<img onerror=…>` after it render.
    #[test]
    fn markdown_shows_html_and_invisible_characters_from_adapter_output_as_text() {
        let hostile = "```\n<img src=x onerror=alert(1)> | \u{202e}gpj.exe";
        let mut r = report();
        r.results[0].failures = vec![Failure::new("op 1", "text", "a cat", hostile)];
        r.results[0].covers = vec![hostile.into()];
        let md = render_markdown(&r);
        // Raw only inside the fence, where Markdown shows it as code.
        let outside: String = md.split("````").step_by(2).collect();
        assert!(!outside.contains("<img"), "{md}");
        assert!(md.contains("&lt;img"), "{md}");
        assert!(!md.contains('\u{202e}'), "{md}");
        assert!(md.contains("\\u{202e}gpj.exe"), "{md}");
        // The failure block's fence is longer than any backtick run inside it.
        assert!(md.contains("````text\n"), "{md}");
        let row = md
            .lines()
            .find(|l| l.starts_with("| `session/x`"))
            .expect("row");
        assert_eq!(row.matches(" | ").count(), 3, "{row}");
    }
}
