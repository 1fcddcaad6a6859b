//! A live run's reports and terminal output are redacted before they are rendered:
//! what agy printed (quoted by the adapter's error message, the driver's stderr, the
//! timeline) reaches no report with an e-mail address, a bearer token or an API key.

use crate::support::*;
use agy_protocol::env::AGY_HARNESS_ALLOW_LIVE;
use std::path::{Path, PathBuf};
use std::time::Duration;

const EMAIL: &str = "jane.doe.secret";
const BEARER: &str = "opaque.b3arer~tok3n-value-42";
const API_KEY: &str = "opaque-api-key-value-42";

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// A stand-in for a real agy whose every run fails with the secrets on stderr.
fn leaky_agy(t: &TestDir) -> PathBuf {
    let bin = t.write(
        "leaky-agy",
        &format!(
            "#!/bin/sh\necho \"error: signed in as {EMAIL}@example.com; Authorization: Bearer {BEARER}; GEMINI_API_KEY={API_KEY}\" >&2\nexit 1\n"
        ),
    );
    let mut perms = std::fs::metadata(&bin).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&bin, perms).expect("chmod");
    bin
}

#[test]
fn no_secret_of_agys_stderr_reaches_a_live_report_or_the_terminal() {
    let t = TestDir::new();
    let agy = leaky_agy(&t);
    let formats = ["json", "junit", "markdown", "html"];
    // A budget for every live scenario of every profile: which of them quote agy's
    // stderr must not depend on which ran first.
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(workspace())
        .args(["--color", "never", "run", "--live", "--budget", "20"])
        .arg("--agy")
        .arg(&agy)
        .env("CI", "true")
        .env(AGY_HARNESS_ALLOW_LIVE, "1");
    for f in formats {
        cmd.arg("--report")
            .arg(format!("{f}={}", t.path().join(format!("r.{f}")).display()));
    }
    let out = run(cmd, Duration::from_secs(120));
    let terminal = format!("{}\n{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{terminal}");
    let mut texts = vec![("terminal".to_string(), terminal)];
    for f in formats {
        let path = t.path().join(format!("r.{f}"));
        let body = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{f}: {e}"));
        texts.push((f.to_string(), body));
    }
    // The leak is there to find: the stand-in's words reach the reports.
    assert!(texts[1].1.contains("signed in as"), "{}", texts[1].1);
    for (what, body) in &texts {
        for secret in [EMAIL, BEARER, API_KEY] {
            assert!(!body.contains(secret), "{what} shows `{secret}`:\n{body}");
        }
    }
}
