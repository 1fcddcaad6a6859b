//! Reports quote what agy printed, not only its size: the `[agy] print timeout …`
//! notice a faulty adapter took for an answer is in the terminal, JSON, Markdown,
//! JUnit and HTML reports of the failure.

use crate::support::*;
use agy_protocol::env::AGY_HARNESS_FAKE_AGY_ACP;
use std::path::Path;
use std::time::Duration;

#[test]
fn every_report_quotes_the_stderr_notice_the_verdict_rests_on() {
    let t = TestDir::new();
    let workspace = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(workspace)
        .env_remove(AGY_HARNESS_FAKE_AGY_ACP)
        .args(["--color", "never", "run"])
        .arg("scenarios/oneshot/print-timeout-is-a-retryable-timeout.toml")
        .args(["--fault", "trusts-success"]);
    let formats = ["json", "markdown", "junit", "html"];
    for format in formats {
        cmd.arg("--report")
            .arg(format!("{format}={}", t.path().join(format).display()));
    }
    let out = run(cmd, Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let notice = "[agy] print timeout after 1s with turn in progress";
    let stdout = text(&out.stdout);
    assert!(stdout.contains(notice), "terminal:\n{stdout}");
    for format in formats {
        let report = std::fs::read_to_string(t.path().join(format)).expect("report");
        assert!(report.contains(notice), "{format}:\n{report}");
    }
}
