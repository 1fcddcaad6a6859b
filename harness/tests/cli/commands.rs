//! The commands' contracts: exit codes, located errors, reports, expected failures.

use crate::support::*;
use agy_protocol::env::{AGY_HARNESS_FAKE_AGY, AGY_HARNESS_FAKE_AGY_ACP, AGY_HARNESS_SCENARIOS};
use std::time::Duration;

#[test]
fn help_lists_the_commands() {
    let t = TestDir::new();
    let mut cmd = t.harness();
    cmd.arg("--help");
    let out = run(cmd, Duration::from_secs(30));
    insta_settings(t.path()).bind(|| insta::assert_snapshot!("help", text(&out.stdout)));
}

/// Every command that takes a shared option group, with a line of its help that only
/// that command words so.
const HELP_OF_COMMANDS: &[(&str, &str)] = &[
    ("run", "--record <DIR>"),
    ("repro", "ACP JSON-RPC transcript"),
    ("faults", "Only these faults (repeatable"),
    ("bench", "How many times to run the catalogue"),
    ("matrix", "--versions <V,…>"),
    ("fuzz", "Cases run at once (default: 8 per CPU"),
    ("check", "Also check this adapter config"),
];

#[test]
fn every_command_help_shows_its_own_options_and_the_shared_groups() {
    let t = TestDir::new();
    for (command, own) in HELP_OF_COMMANDS {
        // Without the variables the help would show their values (this machine's paths).
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("AGY_HARNESS_") {
                cmd.env_remove(k);
            }
        }
        cmd.args([command, "--help"]).current_dir(t.path());
        let out = run(cmd, Duration::from_secs(30));
        let help = text(&out.stdout);
        assert!(help.contains(own), "{command}: {help}");
        let shared = if *command == "check" {
            format!("[env: {AGY_HARNESS_SCENARIOS}=]")
        } else {
            format!("[env: {AGY_HARNESS_FAKE_AGY_ACP}=]")
        };
        assert!(help.contains(&shared), "{command}: {help}");
        insta_settings(t.path()).bind(|| insta::assert_snapshot!(format!("{command}-help"), help));
    }
}

#[test]
fn bad_scenario_file_is_located_and_exits_2() {
    let t = TestDir::new();
    let bad = t.write(
        "bad.toml",
        "[scenario]\nname = \"x/y\"\nprofile = \"oneshot\"\n[[op]]\ngenerate = { prompt = \"p\" }\nexpect = { outcom = \"timeout\" }\n",
    );
    let mut cmd = t.harness();
    cmd.arg("check").arg(&bad);
    let out = run(cmd, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("bad.toml:6:12"), "{err}");
    assert!(err.contains("did you mean `outcome`"), "{err}");
}

#[test]
fn conforming_run_exits_0_and_writes_every_report() {
    let t = TestDir::new();
    let config = t.standin_config("ok", None);
    let scenario = t.scenario("standin/ok", "success", "5s");
    let mut cmd = t.harness();
    cmd.args(["run", "--time-scale", "1", "--adapter"])
        .arg(&config)
        .arg(&scenario)
        .args([
            "--report",
            "json=out/r.json",
            "--report",
            "junit=out/r.xml",
            "--report",
            "markdown=out/r.md",
        ]);
    let out = run(cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    for f in ["out/r.json", "out/r.xml", "out/r.md"] {
        assert!(t.path().join(f).is_file(), "{f} missing");
    }
    let xml = std::fs::read_to_string(t.path().join("out/r.xml")).expect("junit");
    assert!(xml.contains("standin/ok"), "{xml}");
}

#[test]
fn broken_expectation_names_scenario_expected_and_observed() {
    let t = TestDir::new();
    let config = t.standin_config("ok", None);
    let scenario = t.scenario("standin/wants-timeout", "timeout", "5s");
    let mut cmd = t.harness();
    cmd.args(["run", "--time-scale", "1", "--adapter"])
        .arg(&config)
        .arg(&scenario)
        .args(["--report", "junit=r.xml", "--report", "markdown=r.md"]);
    let out = run(cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    insta_settings(t.path()).bind(|| {
        insta::assert_snapshot!("failed-run-terminal", stdout);
        insta::assert_snapshot!(
            "failed-run-junit",
            std::fs::read_to_string(t.path().join("r.xml")).expect("junit")
        );
        insta::assert_snapshot!(
            "failed-run-markdown",
            std::fs::read_to_string(t.path().join("r.md")).expect("md")
        );
    });
}

#[test]
fn expected_failure_that_now_passes_fails_the_run() {
    let t = TestDir::new();
    let config = t.standin_config("ok", None);
    let mut text_cfg = std::fs::read_to_string(&config).expect("config");
    text_cfg.push_str("\n[[expected_failure]]\nscenario = \"standin/ok\"\nreason = \"bug 7\"\n[[expected_failure]]\nscenario = \"standin/wants-timeout\"\nreason = \"bug 8\"\n");
    std::fs::write(&config, text_cfg).expect("write");
    let ok = t.scenario("standin/ok", "success", "5s");
    let failing = t.scenario("standin/wants-timeout", "timeout", "5s");
    let mut cmd = t.harness();
    cmd.args(["run", "--time-scale", "1", "--adapter"])
        .arg(&config)
        .arg(&ok)
        .arg(&failing);
    let out = run(cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("remove it from the expected-failure list"),
        "{stdout}"
    );
    assert!(stdout.contains("1 expected failure"), "{stdout}");
}

/// Runs the failing stand-in scenario with it listed as an expected failure whose
/// entry ends with `entry_tail`; the exit code and stdout.
fn run_listed_failure(entry_tail: &str) -> (Option<i32>, String) {
    let t = TestDir::new();
    let config = t.standin_config("ok", None);
    let mut text_cfg = std::fs::read_to_string(&config).expect("config");
    text_cfg.push_str(
        "\n[[expected_failure]]\nscenario = \"standin/wants-timeout\"\nreason = \"bug 8\"\n",
    );
    text_cfg.push_str(entry_tail);
    std::fs::write(&config, text_cfg).expect("write");
    let failing = t.scenario("standin/wants-timeout", "timeout", "5s");
    let mut cmd = t.harness();
    cmd.args(["run", "--time-scale", "1", "--adapter"])
        .arg(&config)
        .arg(&failing);
    let out = run(cmd, Duration::from_secs(60));
    (out.status.code(), text(&out.stdout))
}

#[test]
fn an_expected_failure_with_fails_on_holds_only_for_the_listed_failures() {
    for listed in ["\"outcome\"", "\"outcome: success\""] {
        let (code, stdout) = run_listed_failure(&format!("fails_on = [{listed}]\n"));
        assert_eq!(code, Some(0), "{listed}: {stdout}");
        assert!(stdout.contains("1 expected failure"), "{stdout}");
    }

    let (code, stdout) = run_listed_failure("fails_on = [\"argv_has\"]\n");
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("fails on `argv_has` only (bug 8)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("fails on `outcome: success` as well: not the listed failure"),
        "{stdout}"
    );

    // The same expectation with another observed class is not the listed failure.
    let (code, stdout) = run_listed_failure("fails_on = [\"outcome: permanent\"]\n");
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("fails on `outcome: success` as well"),
        "{stdout}"
    );
}

#[test]
fn an_intermittent_expected_failure_that_passes_is_noted_and_does_not_fail_the_run() {
    let t = TestDir::new();
    let config = t.standin_config("ok", None);
    let mut text_cfg = std::fs::read_to_string(&config).expect("config");
    text_cfg.push_str("\n[[expected_failure]]\nscenario = \"standin/ok\"\nreason = \"a race of its own on close\"\nintermittent = true\n");
    std::fs::write(&config, text_cfg).expect("write");
    let ok = t.scenario("standin/ok", "success", "5s");
    let mut cmd = t.harness();
    cmd.args(["run", "--time-scale", "1", "--adapter"])
        .arg(&config)
        .arg(&ok);
    let out = run(cmd, Duration::from_secs(60));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(
            "passed this time; listed as an intermittent failure: a race of its own on close"
        ),
        "{stdout}"
    );
}

#[test]
fn bad_adapter_config_exits_2() {
    let t = TestDir::new();
    let config = t.write("adapter.toml", "[adapter]\nname = \"x\"\ncomand = []\n");
    let scenario = t.scenario("standin/ok", "success", "5s");
    let mut cmd = t.harness();
    cmd.args(["run", "--adapter"]).arg(&config).arg(&scenario);
    let out = run(cmd, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("adapter.toml:3:1"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn missing_fake_agy_exits_3() {
    let t = TestDir::new();
    let config = t.standin_config("ok", None);
    let scenario = t.scenario("standin/ok", "success", "5s");
    let mut cmd = t.harness();
    cmd.env(AGY_HARNESS_FAKE_AGY, "/nonexistent/fake-agy")
        .args(["run", "--adapter"])
        .arg(&config)
        .arg(&scenario);
    let out = run(cmd, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
}

#[test]
fn restart_starts_the_driver_again_with_the_same_state_dir() {
    let t = TestDir::new();
    let config = t.standin_config("count-starts", None);
    let scenario = t.write(
        "restart.toml",
        "[scenario]\nname = \"standin/restart\"\nprofile = \"oneshot\"\n\n[[op]]\ngenerate = { prompt = \"p\" }\nexpect = { outcome = \"transient\" }\n\n[[op]]\nrestart = {}\n\n[[op]]\ngenerate = { prompt = \"p\" }\nexpect = { outcome = \"success\" }\n",
    );
    let mut cmd = t.harness();
    cmd.args(["run", "--time-scale", "1", "--adapter"])
        .arg(&config)
        .arg(&scenario);
    let out = run(cmd, Duration::from_secs(60));
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn scenario_past_its_timeout_is_reported_and_cleaned_up() {
    let t = TestDir::new();
    let config = t.standin_config("hang", None);
    let scenario = t.write(
        "slow.toml",
        "[scenario]\nname = \"standin/slow\"\nprofile = \"oneshot\"\ntimeout = \"1s\"\n\n[[op]]\ngenerate = { prompt = \"p\" }\nreply_within = \"60s\"\nexpect = { outcome = \"success\" }\n",
    );
    let mut cmd = t.harness();
    cmd.args(["run", "--time-scale", "1", "--adapter"])
        .arg(&config)
        .arg(&scenario);
    let out = run(cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("timed out") && stdout.contains("scenario timeout"),
        "{stdout}"
    );
}

#[test]
fn partition_and_name_filter_select_scenarios() {
    let t = TestDir::new();
    let config = t.standin_config("ok", None);
    for n in ["a", "b", "c", "d"] {
        t.scenario(&format!("standin/{n}"), "success", "5s");
    }
    let mut cmd = t.harness();
    cmd.args(["run", "--jobs", "3", "--partition", "2/2", "--adapter"])
        .arg(&config)
        .arg(t.path().join("scenarios"));
    let out = run(cmd, Duration::from_secs(60));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("standin/b") && stdout.contains("standin/d"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("standin/a") && !stdout.contains("standin/c"),
        "{stdout}"
    );
    let mut cmd = t.harness();
    cmd.args(["run", "--name", "standin/c", "--adapter"])
        .arg(&config)
        .arg(t.path().join("scenarios"));
    let stdout = text(&run(cmd, Duration::from_secs(60)).stdout);
    assert!(stdout.contains("1 passed"), "{stdout}");
}

#[test]
fn colours_follow_the_color_flag() {
    let t = TestDir::new();
    let config = t.standin_config("ok", None);
    let scenario = t.scenario("standin/wants-timeout", "timeout", "5s");
    let colours = |args: &[&str], no_color: bool| {
        let mut cmd = t.harness();
        if no_color {
            cmd.env("NO_COLOR", "1");
        }
        cmd.args(args)
            .arg("run")
            .arg("--adapter")
            .arg(&config)
            .arg(&scenario);
        text(&run(cmd, Duration::from_secs(60)).stdout).contains('\u{1b}')
    };
    assert!(colours(&["--color", "always"], false));
    assert!(!colours(&["--color", "never"], false));
    // `auto` on a pipe: none (on a terminal anstream also honours `NO_COLOR`).
    assert!(!colours(&["--color", "auto"], true));
}

#[test]
fn failed_run_html_report_explains_the_failure_with_its_timeline() {
    let t = TestDir::new();
    let config = t.standin_config("ok", None);
    let scenario = t.scenario("standin/wants-timeout", "timeout", "5s");
    let mut cmd = t.harness();
    cmd.args(["run", "--time-scale", "1", "--adapter"])
        .arg(&config)
        .arg(&scenario)
        .args(["--report", "html=out/r.html", "--report", "json=out/r.json"]);
    let out = run(cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let page = std::fs::read_to_string(t.path().join("out/r.html")).expect("html");
    let start = page.find("<details").expect("a scenario");
    let details = &page[start..page[start..].find("</details>").expect("closed") + start];
    for text in [
        "class=\"scenario fails\"",
        "standin/wants-timeout",
        "Broken expectations",
        ": outcome</code>",
        "<dt>expected</dt>",
        "<h3>Timeline</h3>",
        "<td>request</td>",
        "<td>reply</td>",
    ] {
        assert!(details.contains(text), "no `{text}` in\n{details}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.path().join("out/r.json")).expect("json"))
            .expect("json report");
    let timeline = json["results"][0]["timeline"]
        .as_array()
        .expect("a timeline");
    assert!(
        timeline.iter().any(|e| e["event"] == "reply"),
        "{timeline:?}"
    );
}
