//! `spikes --report junit=PATH`: a fact is a test case, a drifted fact a failure, an
//! unverified fact skipped — the same counts as the JSON report.

use super::support::{fake_agy, script, workspace, TIME_SCALE};
use agy_protocol::env::FAKE_AGY_SCRIPT;
use assert_cmd::Command;

#[test]
fn the_junit_report_has_a_case_per_fact_and_fails_the_drifted_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = script(
        dir.path(),
        "[[invocation]]\nwhen = { prompt_contains = \"widescreen\" }\nsteps = [{ default = { image_size = [1024, 1024] } }]\n",
    );
    let (xml, json) = (dir.path().join("s.xml"), dir.path().join("s.json"));
    Command::cargo_bin("agy-harness")
        .expect("agy-harness binary")
        .args(["--color", "never", "spikes", "--only", "S3", "--spikes"])
        .arg(workspace().join("spikes"))
        .arg("--fake-agy")
        .arg(fake_agy())
        .args(["--time-scale", &TIME_SCALE.to_string(), "--fake-env"])
        .arg(format!("{FAKE_AGY_SCRIPT}={}", path.display()))
        .arg("--report")
        .arg(format!("junit={}", xml.display()))
        .arg("--report")
        .arg(format!("json={}", json.display()))
        .assert()
        .code(1);
    let xml = std::fs::read_to_string(xml).expect("junit report");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).expect("json report")).expect("json");
    let facts = json["facts"].as_array().expect("facts");
    assert_eq!(xml.matches("<testcase ").count(), facts.len(), "{xml}");
    assert_eq!(xml.matches("<failure").count(), 1, "{xml}");
    let drifted = xml
        .split("<testcase ")
        .find(|c| c.contains("<failure"))
        .expect("a failed case");
    assert!(
        drifted.contains("name=\"S3.widescreen-size\"") && drifted.contains("classname=\"S3\""),
        "{drifted}"
    );
    let unverified = json["summary"]["unverified"].as_u64().expect("count") as usize;
    assert_eq!(xml.matches("<skipped").count(), unverified, "{xml}");
}

#[test]
fn an_unknown_report_kind_is_refused_before_anything_runs() {
    Command::cargo_bin("agy-harness")
        .expect("agy-harness binary")
        .args(["spikes", "--report", "xml=r.xml", "--agy", "/no/such/agy"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--report kind `xml` is not one of json, junit, markdown",
        ));
}
