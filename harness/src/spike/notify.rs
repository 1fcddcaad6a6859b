//! `--notify URL`: post the JSON report to a webhook. A failed post is reported; it
//! never changes the run's verdict.

use super::report::SpikeReport;
use agy_protocol::redact::Redactor;
use std::time::Duration;

/// Why the report did not reach the webhook. The webhook's URL is a secret (its path or
/// query carries the hook's token): every variant names its origin only, and a
/// library's reason is kept as its text with the URL taken out.
#[derive(Debug, thiserror::Error)]
pub enum NotifyError {
    /// The URL is not one a post can go to (no scheme, no host).
    #[error("failed to post the report to {origin}: {why}")]
    BadUrl {
        /// `scheme://host[:port]/…` of the URL.
        origin: String,
        /// Why, without the URL.
        why: String,
    },
    /// The post did not get an answer (refused connection, unknown host, time limit).
    #[error("failed to post the report to {origin}: {why}")]
    Unreachable {
        /// `scheme://host[:port]/…` of the URL.
        origin: String,
        /// Why, without the URL.
        why: String,
    },
    /// The webhook answered, with a status other than success.
    #[error("the webhook at {origin} answered {status}")]
    Refused {
        /// `scheme://host[:port]/…` of the URL.
        origin: String,
        /// Its answer.
        status: ureq::http::StatusCode,
    },
    /// The thread posting it ended without an answer (it panicked or was cancelled).
    #[error("the notify task failed: {0}")]
    Task(#[source] tokio::task::JoinError),
}

/// Posts `report` as JSON, redacted; the error says what went wrong.
pub fn post_report(
    url: &str,
    report: &SpikeReport,
    redactor: &Redactor,
) -> Result<(), NotifyError> {
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
            // The error names the origin only, and never repeats the URL.
            let (origin, why) = (origin(url), e.to_string().replace(url, "the webhook"));
            match e {
                ureq::Error::BadUri(_) | ureq::Error::Http(_) => {
                    NotifyError::BadUrl { origin, why }
                }
                _ => NotifyError::Unreachable { origin, why },
            }
        })?;
    let status = response.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(NotifyError::Refused {
            origin: origin(url),
            status,
        })
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
        assert!(matches!(err, NotifyError::Unreachable { .. }), "{err:?}");
        let err = err.to_string();
        assert!(err.contains("http://127.0.0.1:1/…"), "{err}");
        for secret in ["T0KEN-IN-PATH", "S1GNATURE", "pw@", "/hooks"] {
            assert!(!err.contains(secret), "{secret}: {err}");
        }
    }

    #[test]
    fn a_url_without_a_scheme_or_host_is_a_bad_url() {
        let report = SpikeReport::new("t".into(), false, None, "1.2.6".into(), Vec::new());
        for url in ["hooks.example/T0KEN", "http://"] {
            let err = post_report(url, &report, &Redactor::default()).expect_err("no post");
            assert!(matches!(err, NotifyError::BadUrl { .. }), "{url}: {err:?}");
        }
    }

    #[test]
    fn a_webhook_answering_an_error_status_refused_the_report() {
        use std::io::{BufRead, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let server = std::thread::spawn(move || {
            let (conn, _) = listener.accept().expect("accept");
            // The whole request is read before the answer, so closing the connection
            // cannot reset it under the client.
            let mut reader = std::io::BufReader::new(conn);
            let mut length = 0;
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                if let Some((k, v)) = line.split_once(':') {
                    if k.eq_ignore_ascii_case("content-length") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                line.clear();
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let answer = b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
            let _ = reader.get_mut().write_all(answer);
        });
        let report = SpikeReport::new("t".into(), false, None, "1.2.6".into(), Vec::new());
        let url = format!("http://127.0.0.1:{port}/hooks/T0KEN");
        let err = post_report(&url, &report, &Redactor::default()).expect_err("refused");
        server.join().expect("server");
        match err {
            NotifyError::Refused { status, .. } => assert_eq!(status.as_u16(), 503),
            other => panic!("{other:?}"),
        }
    }
}
