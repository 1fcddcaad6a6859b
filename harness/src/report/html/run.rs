//! The HTML page of a run: the summary (adapter, start, time, counts), then every
//! scenario, the ones that fail the run first, with a switch that hides the others.

use super::escape::escape;
use super::page::page;
use super::scenario::scenario_html;
use crate::report::model::{RunReport, Status};

/// The run as one self-contained HTML page.
pub fn render_html(report: &RunReport) -> String {
    let mut body = summary_html(report);
    let mut order: Vec<(usize, _)> = report.results.iter().enumerate().collect();
    // Failing first; otherwise catalogue order (a stable sort).
    order.sort_by_key(|(_, r)| !r.status.fails_run());
    body.push_str("<main id=\"scenarios\">\n");
    for (i, r) in order {
        body.push_str(&scenario_html(i, r));
    }
    body.push_str("</main>\n");
    if !report.not_run.is_empty() {
        let names: Vec<String> = (report.not_run.iter())
            .map(|n| format!("<code>{}</code>", escape(n)))
            .collect();
        body.push_str(&format!(
            "<p class=\"not-run\">Not run (the run was interrupted): {}</p>\n",
            names.join(", ")
        ));
    }
    page(&format!("agy-harness: {}", report.adapter), &body)
}

/// The header: adapter, start, wall time, time scale and a count per status.
fn summary_html(report: &RunReport) -> String {
    const ALL: [Status; 9] = [
        Status::Passed,
        Status::Failed,
        Status::ExpectedFailure,
        Status::UnexpectedPass,
        Status::NotApplicable,
        Status::Skipped,
        Status::Error,
        Status::TimedOut,
        Status::Interrupted,
    ];
    let counts: Vec<String> = (ALL.iter())
        .map(|s| (s, report.count(*s)))
        .filter(|(s, n)| *n > 0 || **s == Status::Passed || **s == Status::Failed)
        .map(|(s, n)| format!("<span class=\"count\">{n} {}</span>", s.word()))
        .collect();
    let failing = report
        .results
        .iter()
        .filter(|r| r.status.fails_run())
        .count();
    format!(
        "<header>\n<h1>agy-harness: {}</h1>\n<p class=\"summary\">started {}, {:.2} s, \
         time scale {}, {} scenario(s), <strong id=\"failing-count\">{failing} failing the run</strong>{}</p>\n\
         <p class=\"counts\">{}</p>\n<label><input type=\"checkbox\" id=\"only-failing\"> \
         show only the scenarios that fail the run</label>\n</header>\n",
        escape(&report.adapter),
        escape(&report.started),
        report.duration_ms as f64 / 1000.0,
        report.time_scale,
        report.results.len(),
        if report.complete {
            ""
        } else {
            " — <strong>interrupted: partial report</strong>"
        },
        counts.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Failure;
    use crate::report::model::{OpRecord, ScenarioResult};
    use crate::report::timeline::{DeliveredImage, TimelineEntry, TimelineEvent};

    const HOSTILE: &str = "<img src=x onerror=alert(1)>\"'&";

    fn result(name: &str, status: Status) -> ScenarioResult {
        ScenarioResult {
            name: name.into(),
            path: format!("scenarios/{name}.toml"),
            profile: "oneshot".into(),
            covers: vec!["covers a thing".into()],
            description: None,
            status,
            failures: Vec::new(),
            advice: Vec::new(),
            unverified: Vec::new(),
            unverified_basis: None,
            not_judged: Vec::new(),
            duration_ms: 12,
            note: None,
            ops: Vec::new(),
            sandbox: None,
            driver_stderr: None,
            timeline: Vec::new(),
        }
    }

    fn event(at_us: u64, event: TimelineEvent, detail: &str) -> TimelineEntry {
        TimelineEntry {
            at_us,
            actor: "agy invocation 1 (pid 4242)".into(),
            event,
            detail: detail.into(),
            image: None,
        }
    }

    fn failed() -> ScenarioResult {
        let mut r = result("retry-after-quota", Status::Failed);
        r.failures = vec![Failure::new("op 1 generate", "outcome", "quota", "success")
            .closest("the reply said `ok` with no error")
            .evidence([format!("agy invocation 1: exit 1, stdin {HOSTILE}")])];
        r.advice = vec![
            Failure::new("invocation 1", "argv_has", "--print-timeout 60s", "none")
                .seed_choice(Some(&"the seed passes a print timeout".to_string())),
        ];
        r.unverified = vec![Failure::new("op 1", "retryable", "true", "false")];
        r.unverified_basis = Some("agy's quota text in 1.3.1".into());
        r.not_judged = vec!["op 1 usage: the reply has no usage".into()];
        r.ops = vec![OpRecord {
            index: 1,
            op: "generate".into(),
            outcome: Some("success".into()),
            error: None,
            no_reply: None,
            expected: true,
            duration_ms: 40,
        }];
        let mut reply = event(900, TimelineEvent::Reply, "{\"ok\":true}");
        reply.image = Some(DeliveredImage {
            path: "out.png".into(),
            bytes: Some(12),
            data_uri: Some("data:image/png;base64,iVBORw0KGgo=".into()),
            not_inlined: None,
        });
        r.timeline = vec![
            event(0, TimelineEvent::Start, &format!("agy -p '{HOSTILE}'")),
            event(100, TimelineEvent::Stdin, HOSTILE),
            event(200, TimelineEvent::Signal, "SIGTERM"),
            reply,
        ];
        r
    }

    fn report(results: Vec<ScenarioResult>) -> RunReport {
        RunReport {
            adapter: format!("adapter {HOSTILE}"),
            started: "2026-01-01T00:00:00Z".into(),
            duration_ms: 1500,
            time_scale: 0.05,
            complete: true,
            results,
            not_run: Vec::new(),
        }
    }

    #[test]
    fn a_failed_scenario_is_explained_in_its_details() {
        let page = render_html(&report(vec![failed()]));
        let details = &page[page.find("<details").unwrap()..page.find("</details>").unwrap()];
        for text in [
            "op 1 generate: outcome",
            "quota",
            "the reply said `ok` with no error",
            "agy invocation 1: exit 1, stdin &lt;img",
            "the seed passes a print timeout",
            "agy&#39;s quota text in 1.3.1",
            "op 1 usage: the reply has no usage",
            "SIGTERM",
            "<img class=\"thumb\" src=\"data:image/png;base64,iVBORw0KGgo=\"",
        ] {
            assert!(details.contains(text), "no `{text}` in\n{details}");
        }
        assert!(details.contains("class=\"scenario fails\""), "{details}");
    }

    #[test]
    fn untrusted_text_never_reaches_the_page_as_markup() {
        let page = render_html(&report(vec![failed()]));
        assert!(!page.contains("<img src=x"), "{page}");
        assert!(page.contains("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;"));
    }

    #[test]
    fn the_page_loads_nothing_from_a_network() {
        let page = render_html(&report(vec![failed(), result("a-pass", Status::Passed)]));
        assert!(
            !page.contains("http://") && !page.contains("https://"),
            "{page}"
        );
        // Escaped text may say `src=`; only markup can have a quote after it.
        for (at, _) in page.match_indices("src=\"") {
            assert!(
                page[at..].starts_with("src=\"data:image/"),
                "{}",
                &page[at..]
            );
        }
        assert!(!page.contains("<link") && !page.contains("@import"));
    }

    #[test]
    fn scenarios_failing_the_run_come_first() {
        let mut xfail = result("known-bug", Status::ExpectedFailure);
        xfail.note = Some("tracked upstream".into());
        let page = render_html(&report(vec![
            result("a-pass", Status::Passed),
            xfail,
            failed(),
        ]));
        let at = |n: &str| page.find(n).unwrap();
        assert!(at("retry-after-quota") < at("a-pass"));
        assert!(at("a-pass") < at("known-bug"));
        assert!(
            page.contains("1 passed") && page.contains("1 failed"),
            "{page}"
        );
        assert!(page.contains("1 expected failure"), "{page}");
    }

    #[test]
    fn an_image_not_inlined_says_why() {
        let mut r = failed();
        if let Some(e) = r.timeline.last_mut() {
            e.image = Some(DeliveredImage {
                path: "huge.jpg".into(),
                bytes: Some(3 << 20),
                data_uri: None,
                not_inlined: Some("over the bound".into()),
            });
        }
        let page = render_html(&report(vec![r]));
        assert!(page.contains("image <code>huge.jpg</code>, 3145728 B: not shown (over the bound)"));
        assert!(!page.contains("<img class"));
    }
}
