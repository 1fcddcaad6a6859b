//! `agy-harness fidelity`: fake-agy's default behaviour against the committed capture
//! corpus, the baseline as expected failures, located errors, reports.

use crate::support::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn traces() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")).to_path_buf()
}

fn fidelity(t: &TestDir, args: &[&str]) -> std::process::Output {
    let mut cmd = t.harness();
    let fake = Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("fake-agy");
    cmd.env("AGY_HARNESS_FAKE_AGY", fake)
        .arg("fidelity")
        .arg("--traces")
        .arg(traces())
        .args(args);
    run(cmd, Duration::from_secs(120))
}

#[test]
fn the_committed_corpus_holds_against_the_committed_baseline() {
    let t = TestDir::new();
    let out = fidelity(
        &t,
        &["--report", "json=f.json", "--report", "markdown=f.md"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("baseline holds"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.path().join("f.json")).expect("json"))
            .expect("parses");
    assert!(
        json["overall"]["compared"].as_u64().unwrap_or(0) >= 13,
        "{json}"
    );
    let md = std::fs::read_to_string(t.path().join("f.md")).expect("markdown");
    assert!(md.contains("| overall |"), "{md}");
}

#[test]
fn an_unlisted_difference_fails_and_names_expected_and_observed() {
    // ga-1.3.2-print-signed-out: agy 1.3.2 started an interactive sign-in (a URL on
    // stderr); signed-out fake-agy fails at once with the persistent-mode lines.
    let t = TestDir::new();
    let empty = t.write("empty.toml", "");
    let out = fidelity(
        &t,
        &[
            "ga-1.3.2-print-signed-out",
            "--baseline",
            &empty.display().to_string(),
        ],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("differs  ga-1.3.2-print-signed-out"),
        "{stdout}"
    );
    assert!(
        stdout.contains("    stderr [NEW]\n      expected: Authentication required. Please visit the URL to log in: ⏎ "),
        "{stdout}"
    );
    assert!(
        stdout.contains("      observed: Error: authentication required. Run 'agy' to log in, then retry. ⏎ error: authentication failed or timed out\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("new divergence (not in the baseline): ga-1.3.2-print-signed-out: stderr"),
        "{stdout}"
    );
}

#[test]
fn a_listed_divergence_that_disappeared_fails_until_the_baseline_is_updated() {
    let t = TestDir::new();
    let baseline = t.write(
        "b.toml",
        "[[divergence]]\ncapture = \"pb-1.2.17-success-pong\"\nwhat = \"exit\"\nreason = \"once different\"\n",
    );
    let out = fidelity(
        &t,
        &[
            "pb-1.2.17-success-pong",
            "--baseline",
            &baseline.display().to_string(),
        ],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("same     pb-1.2.17-success-pong"),
        "{stdout}"
    );
    assert!(
        stdout.contains("no longer seen (update the baseline): pb-1.2.17-success-pong: exit"),
        "{stdout}"
    );
}

#[test]
fn a_baseline_naming_an_unknown_capture_is_bad_input_with_its_line() {
    let t = TestDir::new();
    let baseline = t.write(
        "b.toml",
        "\n[[divergence]]\ncapture = \"pb-9-nope\"\nwhat = \"exit\"\nreason = \"r\"\n",
    );
    let out = fidelity(&t, &["--baseline", &baseline.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("b.toml:2:1"), "{err}");
    assert!(err.contains("`pb-9-nope`"), "{err}");
}

#[test]
fn an_unknown_capture_id_is_bad_input_with_a_suggestion() {
    let t = TestDir::new();
    let out = fidelity(&t, &["pb-1.2.17-success-pongg"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("did you mean `pb-1.2.17-success-pong`"),
        "{}",
        text(&out.stderr)
    );
}
