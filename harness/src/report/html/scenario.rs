//! One scenario in the HTML page: a `<details>` whose summary line is the verdict and
//! whose body explains it: broken expectations (expected, observed, closest, evidence),
//! advice, unverified and unjudged expectations, the ops, the timeline, the driver's
//! stderr.

use super::escape::escape;
use super::timeline::timeline_html;
use crate::check::Failure;
use crate::report::model::{OpRecord, ScenarioResult, Status};

/// Scenario number `i` (its place in the catalogue) as a `<details>` element.
pub(super) fn scenario_html(i: usize, r: &ScenarioResult) -> String {
    let class = if r.status.fails_run() {
        "fails"
    } else if !r.advice.is_empty() || !r.unverified.is_empty() || r.status != Status::Passed {
        "aside"
    } else {
        "holds"
    };
    let headline = (r.failures.first())
        .map(|f| f.headline())
        .or_else(|| r.note.clone())
        .unwrap_or_default();
    let mut out = format!(
        "<details class=\"scenario {class}\" id=\"scenario-{i}\">\n<summary><span class=\"verdict\">{}</span> \
         <code class=\"name\">{}</code> <span class=\"muted\">{} · {} ms</span>\
         <span class=\"headline\">{}</span></summary>\n<div class=\"explanation\">\n",
        escape(r.status.word()),
        escape(&r.name),
        escape(&r.profile),
        r.duration_ms,
        escape(&headline)
    );
    out.push_str(&about_html(r));
    out.push_str(&failures_html(
        "Broken expectations",
        "failures",
        &r.failures,
        None,
    ));
    out.push_str(&failures_html(
        "Advice: seed choices missed and probe costs, not the contract",
        "advice",
        &r.advice,
        None,
    ));
    out.push_str(&failures_html(
        "Unverified: broken, but resting on unverified agy behaviour",
        "unverified",
        &r.unverified,
        r.unverified_basis.as_deref(),
    ));
    out.push_str(&list_html("Not judged", "not-judged", &r.not_judged));
    out.push_str(&ops_html(&r.ops));
    out.push_str(&timeline_html(&r.timeline));
    if let Some(stderr) = &r.driver_stderr {
        out.push_str(&format!(
            "<section class=\"stderr\"><h3>Driver stderr (end)</h3><pre>{}</pre></section>\n",
            escape(stderr)
        ));
    }
    out.push_str("</div>\n</details>\n");
    out
}

/// The file, description, what it covers, the note and the kept sandbox.
fn about_html(r: &ScenarioResult) -> String {
    let mut rows = vec![("file", r.path.clone())];
    rows.extend(r.description.clone().map(|d| ("description", d)));
    if !r.covers.is_empty() {
        rows.push(("covers", r.covers.join("; ")));
    }
    rows.extend(r.note.clone().map(|n| ("note", n)));
    rows.extend(r.sandbox.clone().map(|s| ("sandbox", s)));
    let items: String = (rows.iter())
        .map(|(k, v)| format!("<dt>{k}</dt><dd>{}</dd>", escape(v)))
        .collect();
    format!("<dl class=\"about\">{items}</dl>\n")
}

/// A section of failures (nothing when there are none).
fn failures_html(title: &str, class: &str, failures: &[Failure], basis: Option<&str>) -> String {
    if failures.is_empty() {
        return String::new();
    }
    let mut out = format!("<section class=\"{class}\"><h3>{}</h3>\n", escape(title));
    if let Some(b) = basis {
        out.push_str(&format!("<p>Rests on: {}</p>\n", escape(b)));
    }
    for f in failures {
        out.push_str(&failure_html(f));
    }
    out.push_str("</section>\n");
    out
}

/// One broken expectation.
fn failure_html(f: &Failure) -> String {
    let mut rows = format!(
        "<dt>expected</dt><dd class=\"expected\">{}</dd><dt>observed</dt><dd class=\"observed\">{}</dd>",
        escape(&f.expected),
        escape(&f.observed)
    );
    if let Some(c) = &f.closest {
        rows.push_str(&format!(
            "<dt>closest</dt><dd class=\"closest\">{}</dd>",
            escape(c)
        ));
    }
    if !f.evidence.is_empty() {
        let items: String = (f.evidence.iter())
            .map(|e| format!("<li>{}</li>", escape(e)))
            .collect();
        rows.push_str(&format!(
            "<dt>evidence</dt><dd class=\"evidence\"><ul>{items}</ul></dd>"
        ));
    }
    if let Some(s) = &f.seed_choice {
        rows.push_str(&format!("<dt>seed choice</dt><dd>{}</dd>", escape(s)));
    }
    format!(
        "<div class=\"failure\"><h4><code>{}</code></h4><dl>{rows}</dl></div>\n",
        escape(&f.headline())
    )
}

/// A titled list of texts (nothing when empty).
fn list_html(title: &str, class: &str, items: &[String]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let lis: String = (items.iter())
        .map(|t| format!("<li>{}</li>", escape(t)))
        .collect();
    format!("<section class=\"{class}\"><h3>{title}</h3><ul>{lis}</ul></section>\n")
}

/// The ops as a table.
fn ops_html(ops: &[OpRecord]) -> String {
    if ops.is_empty() {
        return String::new();
    }
    let rows: String = (ops.iter())
        .map(|o| {
            let result = (o.no_reply.as_ref().map(|n| format!("no reply: {n}")))
                .or_else(|| o.error.as_ref().map(|e| format!("error {e}")))
                .or_else(|| o.outcome.clone())
                .unwrap_or_else(|| "ok".to_string());
            format!(
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{} ms</td><td>{}</td></tr>",
                o.index,
                escape(&o.op),
                escape(&result),
                o.duration_ms,
                if o.expected { "yes" } else { "" }
            )
        })
        .collect();
    format!(
        "<section class=\"ops\"><h3>Ops</h3><table><tr><th>#</th><th>op</th><th>result</th>\
         <th>took</th><th>judged</th></tr>{rows}</table></section>\n"
    )
}
