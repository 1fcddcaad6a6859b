//! The adapter × version table as one self-contained HTML page (the run report's page
//! shell and escaping), with the failing cells' reasons below it.

use super::table::{Cell, Matrix};
use crate::report::html::{escape, page};

impl Matrix {
    /// The table as an HTML page.
    pub fn to_html(&self) -> String {
        let mut body = format!(
            "<h1>{} × agy version</h1>\n<table class=\"matrix\"><tr><th>scenario</th>",
            escape(&self.adapter)
        );
        for v in &self.versions {
            body.push_str(&format!("<th>{}</th>", escape(&v.to_string())));
        }
        body.push_str("</tr>\n");
        for r in &self.rows {
            body.push_str(&format!(
                "<tr><td><code>{}</code> <span class=\"muted\">{}</span></td>",
                escape(&r.scenario),
                escape(&r.profile)
            ));
            for c in &r.cells {
                let class = match c {
                    Cell::Pass => "pass",
                    Cell::Fail => "fail",
                    Cell::Xfail => "xfail",
                    Cell::Skip | Cell::NotApplicable | Cell::Unsupported => "muted",
                };
                body.push_str(&format!("<td class=\"{class}\">{}</td>", escape(c.word())));
            }
            body.push_str("</tr>\n");
        }
        body.push_str("<tr><th>passed / applicable</th>");
        for i in 0..self.versions.len() {
            body.push_str(&format!(
                "<th>{}/{}</th>",
                self.count(i, Cell::Pass),
                self.applicable(i)
            ));
        }
        body.push_str("</tr>\n</table>\n");
        body.push_str(&self.failures_html());
        page(&format!("{} × agy version", self.adapter), &body)
    }

    /// Each failing cell's first broken expectation.
    fn failures_html(&self) -> String {
        let items: String = (self.rows.iter())
            .flat_map(|r| r.failures.iter().map(move |(v, why)| (r, v, why)))
            .map(|(r, v, why)| {
                format!(
                    "<li><code>{}</code> under {}: {}</li>\n",
                    escape(&r.scenario),
                    escape(&v.to_string()),
                    escape(why)
                )
            })
            .collect();
        if items.is_empty() {
            return String::new();
        }
        format!("<h2>Failures</h2>\n<ul>\n{items}</ul>\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::AgyVersion;

    #[test]
    fn the_table_page_has_every_cell_and_failure_escaped_and_no_url() {
        let v = |s: &str| s.parse::<AgyVersion>().expect("version");
        let mut m = Matrix::new("ref <adapter>".into(), vec![v("1.2.6"), v("1.3.1")]);
        m.add_row("oneshot/<a>", "oneshot");
        m.rows[0].cells = vec![Cell::Pass, Cell::Fail];
        m.rows[0]
            .failures
            .insert(v("1.3.1"), "op 1: outcome <b>".into());
        let page = m.to_html();
        assert!(
            page.contains("<h1>ref &lt;adapter&gt; × agy version</h1>"),
            "{page}"
        );
        assert!(page.contains("<td class=\"pass\">pass</td><td class=\"fail\">fail</td>"));
        assert!(page.contains("<th>1/1</th><th>0/1</th>"), "{page}");
        assert!(page.contains(
            "<li><code>oneshot/&lt;a&gt;</code> under 1.3.1: op 1: outcome &lt;b&gt;</li>"
        ));
        assert!(!page.contains("http://") && !page.contains("https://"));
    }
}
