//! `--notify URL`: post the JSON report to a webhook. A failed post is reported; it
//! never changes the run's verdict.

use super::report::SpikeReport;
use agy_protocol::redact::Redactor;
use std::time::Duration;

/// Posts `report` as JSON, redacted; the error says what went wrong.
pub fn post_report(url: &str, report: &SpikeReport, redactor: &Redactor) -> Result<(), String> {
    let agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(20)))
        .http_status_as_error(false)
        .build()
        .new_agent();
    let response = agent
        .post(url)
        .header("content-type", "application/json")
        .send(redactor.redact(&report.to_redacted_json(redactor)))
        .map_err(|e| {
            // The URL is a secret (its path or query carries the hook's token): the
            // error names the origin only, and never repeats the URL.
            let why = e.to_string().replace(url, "the webhook");
            format!("failed to post the report to {}: {why}", origin(url))
        })?;
    let status = response.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("the webhook at {} answered {status}", origin(url)))
    }
}

/// `scheme://host[:port]` of `url`, without user, password, path, query or fragment.
fn origin(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    match scheme {
        "" => format!("{host}/…"),
        s => format!("{s}://{host}/…"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_post_names_the_webhooks_origin_only() {
        // Regression: the whole webhook URL, token and signature included, went into
        // report.json and onto the terminal when the post failed.
        let url = "http://user:pw@127.0.0.1:1/hooks/T0KEN-IN-PATH?sig=S1GNATURE";
        let report = SpikeReport::new("t".into(), false, None, "1.2.6".into(), Vec::new());
        let err = post_report(url, &report, &Redactor::default()).expect_err("nothing listens");
        assert!(err.contains("http://127.0.0.1:1/…"), "{err}");
        for secret in ["T0KEN-IN-PATH", "S1GNATURE", "pw@", "/hooks"] {
            assert!(!err.contains(secret), "{secret}: {err}");
        }
    }
}
