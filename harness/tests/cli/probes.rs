//! Probes are not turns: the reference adapter behind an `agy` that first asks
//! `agy --version` (as an adapter checking its binary does) is judged on its turns.
//! One version probe per scenario passes the whole catalogue; a probe before every run
//! breaks only the probe bound, and only where more than one agy run happens. agy's
//! record sets no such bound, so that is advice, shown in every report format, unless
//! the adapter config is strict.

use crate::support::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// An adapter config: the reference adapter with `AGY_BIN` naming a wrapper that runs
/// `agy --version` before the real command (every time, or once per scenario). The
/// driver's command sets it: the config's `env` may not replace the sandbox's `AGY_BIN`.
fn probing_config(t: &TestDir, every_run: bool, strict: bool) -> PathBuf {
    let once = if every_run {
        ""
    } else {
        "[ -e \"$AGY_DRIVER_STATE_DIR/probed\" ] && exec agy \"$@\"\ntouch \"$AGY_DRIVER_STATE_DIR/probed\"\n"
    };
    let body = format!("{once}agy --version </dev/null >/dev/null 2>&1\nexec agy \"$@\"\n");
    wrapped_reference_config(t, &body, "[\"oneshot\", \"session\"]", strict)
}

fn run_catalogue(t: &TestDir, config: &Path) -> (Option<i32>, serde_json::Value, String) {
    run_with_json_report(t, config, "scenarios/session", Duration::from_secs(300))
}

#[test]
fn one_version_probe_per_scenario_passes_the_session_catalogue() {
    let t = TestDir::new();
    let config = probing_config(&t, false, true);
    let (code, _, stdout) = run_catalogue(&t, &config);
    assert_eq!(code, Some(0), "{stdout}");
}

#[test]
fn a_probe_before_every_run_breaks_only_the_probe_bound() {
    let t = TestDir::new();
    let config = probing_config(&t, true, true);
    let (code, json, stdout) = run_catalogue(&t, &config);
    assert_eq!(code, Some(1), "{stdout}");
    let results = json["results"].as_array().expect("results");
    let failed: Vec<&serde_json::Value> =
        results.iter().filter(|r| r["status"] == "failed").collect();
    // Three session scenarios start a second agy process (a model change, a permission
    // change, a failure); only they see a second probe.
    assert!(failed.len() >= 3, "{stdout}");
    for r in &failed {
        for f in r["failures"].as_array().expect("failures") {
            assert_eq!(f["place"], "probes", "{}: {f:#}", r["name"]);
            assert_eq!(f["expectation"], "version", "{}: {f:#}", r["name"]);
        }
    }
    let passed = results.iter().filter(|r| r["status"] == "passed").count();
    assert!(passed >= 5, "{stdout}");
}

/// agy-mcp 0.1.9 runs `agy --version` before every call (examples/agy-mcp): the cost is
/// reported, with the count and each probe's argv, and the scenario is judged on the rest.
#[test]
fn a_probe_before_every_run_is_advice_in_every_report_format_unless_strict() {
    let t = TestDir::new();
    let config = probing_config(&t, true, false);
    let reports = ["json", "junit", "markdown", "html"].map(|f| (f, t.path().join(f)));
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(agy_test_support::workspace())
        .args(["--color", "never", "run", "--adapter"])
        .arg(&config);
    for (format, path) in &reports {
        cmd.arg("--report")
            .arg(format!("{format}={}", path.display()));
    }
    cmd.arg("scenarios/session/model-change-starts-a-new-process.toml");
    let out = run(cmd, Duration::from_secs(120));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("advice probes: version"), "{stdout}");
    assert!(stdout.contains("agy --version"), "the argv: {stdout}");
    let read = |f: &str| std::fs::read_to_string(t.path().join(f)).expect("report");
    let json: serde_json::Value = serde_json::from_str(&read("json")).expect("json");
    let r = &json["results"][0];
    assert_eq!(r["status"], "passed", "{r:#}");
    let advice = &r["advice"][0];
    assert_eq!(advice["place"], "probes", "{r:#}");
    assert_eq!(advice["observed"], "2", "{r:#}");
    assert_eq!(
        advice["evidence"].as_array().map(Vec::len),
        Some(2),
        "{r:#}"
    );
    for format in ["junit", "markdown", "html"] {
        let body = read(format);
        assert!(body.contains("probe cost"), "{format}: {body}");
        assert!(body.contains("agy --version"), "{format}: {body}");
    }
}
