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
        .send(redactor.redact(&report.to_json()))
        .map_err(|e| format!("failed to post the report to {url}: {e}"))?;
    let status = response.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("the webhook at {url} answered {status}"))
    }
}
