//! Drift is caught: a fake set to an older version, or scripted to change one fact, makes
//! the report flag exactly the facts that changed.

use super::support::{explain, ids, run_fake, script};
use agy_harness::spike::Verdict;
use agy_protocol::env::{FAKE_AGY_SCRIPT, FAKE_AGY_VERSION};

#[test]
fn an_older_version_drifts_only_the_print_timeout_facts_and_says_the_quirk_is_gone() {
    // ≤1.1.24 reported a print timeout as ERROR, exit 1 (docs/agy-reference.md §2.4).
    let report = run_fake(&[], &[(FAKE_AGY_VERSION, "1.1.24")]);
    let drifted = ids(&report, Verdict::Drifted);
    for must in ["S6c.exit-zero", "S6c.status-success", "S6c.stderr-notice"] {
        assert!(
            drifted.iter().any(|d| d == must),
            "{must} should drift:\n{}",
            explain(&report)
        );
    }
    assert!(
        drifted.iter().all(|d| d.starts_with("S6c.")),
        "only print-timeout facts may drift:\n{}",
        explain(&report)
    );
    assert!(
        report
            .quirks_gone
            .iter()
            .any(|q| q.contains("timeout-before-missing-output workaround can be retired")),
        "{:?}",
        report.quirks_gone
    );
}

#[test]
fn another_widescreen_size_drifts_exactly_the_size_fact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = script(
        dir.path(),
        r#"
[[invocation]]
when = { prompt_contains = "widescreen" }
steps = [{ default = { image_size = [1024, 1024] } }]
"#,
    );
    let report = run_fake(
        &["S3"],
        &[(FAKE_AGY_SCRIPT, path.to_str().expect("utf-8 path"))],
    );
    assert_eq!(
        ids(&report, Verdict::Drifted),
        ["S3.widescreen-size"],
        "{}",
        explain(&report)
    );
    let fact = report
        .facts
        .iter()
        .find(|f| f.fact == "S3.widescreen-size")
        .expect("fact");
    assert!(
        fact.observed
            .iter()
            .all(|r| r.value == serde_json::json!(["1024x1024"])),
        "{fact:?}"
    );
}

#[test]
fn a_sixth_usage_key_drifts_exactly_the_usage_key_fact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = script(
        dir.path(),
        r#"
[[invocation]]
when = { prompt_contains = "single word ok" }
steps = [
  { stdout = '{"conversation_id":"8d5f3a4e-0000-4000-8000-000000000001","status":"SUCCESS","response":"ok\n","duration_seconds":2.5,"num_turns":1,"usage":{"input_tokens":18914,"output_tokens":332,"thinking_tokens":267,"cache_read_tokens":16268,"total_tokens":19246,"credits_used":3}}' },
  { exit = 0 },
]
"#,
    );
    let report = run_fake(
        &["S8"],
        &[(FAKE_AGY_SCRIPT, path.to_str().expect("utf-8 path"))],
    );
    assert_eq!(
        ids(&report, Verdict::Drifted),
        ["S8.five-counters"],
        "{}",
        explain(&report)
    );
}
