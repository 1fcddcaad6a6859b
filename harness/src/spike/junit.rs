//! The spike report as JUnit XML, for CI: a fact is a test case (class = its spike), a
//! drifted fact a failure, an unverified fact skipped with its reason.

use super::judge::Verdict;
use super::report::SpikeReport;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

/// Renders `report` as JUnit XML.
pub fn render_junit(report: &SpikeReport) -> Result<String, quick_junit::SerializeError> {
    let mut junit = Report::new("agy-harness spikes");
    let mut suite = TestSuite::new(format!(
        "spikes against {} (agy {})",
        report.target,
        report.agy_version.as_deref().unwrap_or("unknown")
    ));
    for f in &report.facts {
        let status = match f.verdict {
            Verdict::Holds => TestCaseStatus::success(),
            Verdict::Unverified => {
                let mut s = TestCaseStatus::skipped();
                s.set_message(format!("unverified: {}", f.reason.as_deref().unwrap_or("")));
                s
            }
            Verdict::Drifted => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_message(format!("drifted: expected {}", f.expected));
                let runs: Vec<String> = f
                    .observed
                    .iter()
                    .map(|r| {
                        let mark = if r.pass { "ok " } else { "got" };
                        format!("{mark} run {}: {}", r.run, r.shown)
                    })
                    .collect();
                s.set_description(format!(
                    "{}\n{}\nexpected: {}\n{}",
                    f.claim,
                    f.measure,
                    f.expected,
                    runs.join("\n")
                ));
                s
            }
        };
        let mut case = TestCase::new(f.fact.clone(), status);
        case.set_classname(f.spike.clone());
        suite.add_test_case(case);
    }
    junit.add_test_suite(suite);
    junit.to_string()
}
