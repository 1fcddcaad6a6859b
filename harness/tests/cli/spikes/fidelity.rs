//! fake-agy must show every fact recorded for the version it models: a drift here means
//! the fake is stale.

use super::support::{explain, ids, run_fake};
use agy_harness::spike::Verdict;

#[test]
fn fake_agy_shows_every_recorded_fact_of_the_version_it_models() {
    let report = run_fake(&[], &[]);
    assert!(
        ids(&report, Verdict::Drifted).is_empty(),
        "drifted:\n{}",
        explain(&report)
    );
    // Exactly the facts that cannot be checked automatically, each for its documented
    // reason: a person must look (S4), the profile is not signed out (S6a), no quota
    // ran out (S7).
    assert_eq!(
        ids(&report, Verdict::Unverified),
        [
            "S4.palette-carries-over",
            "S4.inherits-plugins",
            "S6a.auth-required",
            "S7.image-quota-in-prose"
        ],
        "{}",
        explain(&report)
    );
    assert!(report.summary.holds >= 40, "{:?}", report.summary);
}

#[test]
fn the_full_report_against_fake_agy_is_stable() {
    let report = run_fake(&[], &[]);
    let mut settings = agy_test_support::snapshot_settings("agy-harness/spikes");
    settings.add_filter(r"spikes against \S+", "spikes against [FAKE_AGY]");
    settings.add_filter(r"Target: `[^`]+`", "Target: `[FAKE_AGY]`");
    settings.add_filter(r"\d{4}-\d{2}-\d{2}", "[DATE]");
    settings.bind(|| {
        insta::assert_snapshot!("report-terminal", report.to_terminal(false));
        insta::assert_snapshot!("report-markdown", report.to_markdown());
    });
}
