//! What a user sees when a run is set up wrong or goes partly unrun: empty selections,
//! expected failures naming no scenario, skips summed up, failing scenarios located.

use crate::support::*;
use agy_protocol::env::AGY_HARNESS_SCENARIOS;
use assert_cmd::Command;
use predicates::prelude::*;

/// `agy-harness` in `t`'s folder, as `TestDir::harness` sets it up.
fn harness(t: &TestDir) -> Command {
    Command::from_std(t.harness())
}

/// An adapter config for the stand-in driver implementing only `profiles`, with
/// `extra` appended.
fn config(t: &TestDir, profiles: &str, extra: &str) -> std::path::PathBuf {
    t.write(
        "adapter.toml",
        &format!(
            "[adapter]\nname = \"standin\"\ncommand = [\"python3\", {:?}, \"ok\"]\nprofiles = {profiles}\n[timeouts]\nslack = \"200ms\"\nreply = \"5s\"\n{extra}",
            standin_driver().display().to_string()
        ),
    )
}

const SESSION_SCENARIO: &str = "[scenario]\nname = \"standin/session-close\"\nprofile = \"session\"\n\n[[op]]\nopen = {}\n\n[[op]]\nclose = {}\n";

#[test]
fn a_selection_matching_nothing_exits_2_unless_empty_runs_are_allowed() {
    let t = TestDir::new();
    let adapter = config(&t, "[\"oneshot\"]", "");
    let scenario = t.scenario("standin/ok", "success", "5s");
    harness(&t)
        .args(["run", "--adapter"])
        .arg(&adapter)
        .arg(&scenario)
        .args(["--name", "nothing-matches"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no scenario matches the selection (`",
        ))
        .stderr(predicate::str::contains(
            "--name nothing-matches); nothing was run",
        ))
        .stderr(predicate::str::contains("--allow-empty"));
    harness(&t)
        .args(["run", "--allow-empty", "--adapter"])
        .arg(&adapter)
        .arg(&scenario)
        .args(["--name", "nothing-matches"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("0 passed, 0 failed"));
}

#[test]
fn a_selection_of_profiles_the_adapter_lacks_exits_2() {
    let t = TestDir::new();
    let adapter = config(&t, "[\"oneshot\"]", "");
    let session = t.write("scenarios/session.toml", SESSION_SCENARIO);
    harness(&t)
        .args(["run", "--adapter"])
        .arg(&adapter)
        .arg(&session)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the 1 selected scenario(s) are of profile `session`, and `standin` implements `oneshot`; nothing was run",
        ));
}

#[test]
fn an_expected_failure_naming_no_scenario_is_located_with_the_closest_name() {
    let t = TestDir::new();
    let adapter = config(
        &t,
        "[\"oneshot\"]",
        "[[expected_failure]]\nscenario = \"standin/okk\"\nreason = \"typo\"\n",
    );
    let scenario = t.scenario("standin/ok", "success", "5s");
    harness(&t)
        .args(["run", "--adapter"])
        .arg(&adapter)
        .arg(&scenario)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "`[[expected_failure]]` names scenario `standin/okk`, which is not in the catalogue",
        ))
        .stderr(predicate::str::contains("adapter.toml:9:12"))
        .stderr(predicate::str::contains("did you mean `standin/ok`?"));
}

#[test]
fn skipped_scenarios_are_summed_up_by_profile_and_listed_with_verbose() {
    let t = TestDir::new();
    let adapter = config(&t, "[\"oneshot\"]", "");
    let oneshot = t.scenario("standin/ok", "success", "5s");
    let session = t.write("scenarios/session.toml", SESSION_SCENARIO);
    let quiet = harness(&t)
        .args(["run", "--time-scale", "1", "--adapter"])
        .arg(&adapter)
        .args([&oneshot, &session])
        .assert()
        .code(0);
    let stdout = text(&quiet.get_output().stdout);
    assert!(
        stdout.contains("skipped: 1 session (`-v` lists them with the reason)"),
        "{stdout}"
    );
    assert!(!stdout.contains("standin/session-close"), "{stdout}");
    harness(&t)
        .args(["run", "-v", "--time-scale", "1", "--adapter"])
        .arg(&adapter)
        .args([&oneshot, &session])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("- standin/session-close"))
        .stdout(predicate::str::contains(
            "the adapter does not implement the `session` profile",
        ));
}

#[test]
fn a_failing_scenario_shows_its_file_and_description() {
    let t = TestDir::new();
    let adapter = config(&t, "[\"oneshot\"]", "");
    t.write(
        "scenarios/wants-timeout.toml",
        "[scenario]\nname = \"standin/wants-timeout\"\nprofile = \"oneshot\"\ndescription = \"\"\"\nA hung agy is a\n  timeout.\"\"\"\n\n[[op]]\ngenerate = { prompt = \"p\" }\nexpect = { outcome = \"timeout\" }\n",
    );
    let out = harness(&t)
        .args(["run", "--time-scale", "1", "--adapter"])
        .arg(&adapter)
        .arg("scenarios/../scenarios/./wants-timeout.toml")
        .assert()
        .code(1);
    let stdout = text(&out.get_output().stdout);
    let (_, failed) = stdout
        .split_once("\nfailed:\n")
        .unwrap_or_else(|| panic!("no list of failed scenarios:\n{stdout}"));
    let lines: Vec<&str> = failed.lines().collect();
    assert!(
        lines[0].starts_with("  standin/wants-timeout — "),
        "{stdout}"
    );
    assert_eq!(
        lines[1..],
        [
            "    scenarios/wants-timeout.toml",
            "    A hung agy is a timeout."
        ],
        "{stdout}"
    );
}

#[test]
fn a_wrong_typed_op_field_is_one_located_error_in_the_scenario_terms() {
    let t = TestDir::new();
    let bad = t.write(
        "bad.toml",
        "[scenario]\nname = \"x/y\"\nprofile = \"oneshot\"\n[[op]]\ngenerate = { prompt = \"p\", timeout_s = \"300\" }\nexpect = { outcome = \"timeout\" }\n",
    );
    let out = harness(&t).arg("check").arg(&bad).assert().code(2);
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains("error: `timeout_s` must be a number of seconds, not a string\n  --> "),
        "{stderr}"
    );
    assert!(
        stderr.contains("write it like `timeout_s = 300`"),
        "{stderr}"
    );
    assert!(!stderr.contains("no `[[op]]`"), "{stderr}");
    assert!(!stderr.contains("invalid type"), "{stderr}");
    assert!(stderr.contains("1 problem(s)"), "{stderr}");
}

#[test]
fn one_missing_quote_in_a_catalogue_scenario_is_one_located_error() {
    // Regression: the last quote dropped from a line of a catalogue scenario gave 52
    // errors, each a line the open string had swallowed, the real one among them.
    let t = TestDir::new();
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios/session/three-turns-on-one-process.toml");
    let original = std::fs::read_to_string(source).expect("catalogue scenario");
    let line = original
        .lines()
        .position(|l| l.starts_with("covers"))
        .expect("a `covers` line");
    let broken: Vec<String> = original
        .lines()
        .enumerate()
        .map(|(i, l)| match (i == line, l.rfind('"')) {
            (true, Some(at)) => format!("{}{}", &l[..at], &l[at + 1..]),
            _ => l.to_string(),
        })
        .collect();
    let bad = t.write("bad.toml", &broken.join("\n"));
    let out = harness(&t).arg("check").arg(&bad).assert().code(2);
    let stderr = text(&out.get_output().stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 2, "{stderr}");
    assert!(errors[0].starts_with("error: invalid TOML"), "{stderr}");
    assert!(
        stderr.contains(&format!("bad.toml:{}:", line + 1)),
        "{stderr}"
    );
    assert!(errors[1].contains("1 problem(s)"), "{stderr}");
}

#[test]
fn an_adapter_relying_on_init_at_start_says_so_in_its_config_and_fake_agy_takes_that_side() {
    // The record is split on when agy writes `init` in persistent mode; an adapter that
    // waits for it before its first line fails every open on fake-agy's default side.
    let t = TestDir::new();
    let scenario = t.write(
        "open.toml",
        "[scenario]\nname = \"standin/open-waits-for-init\"\nprofile = \"session\"\n\n[[op]]\nopen = {}\nexpect = { outcome = \"success\" }\n",
    );
    let run = |extra: &str| {
        let adapter = t.write(
            "adapter.toml",
            &format!(
                "[adapter]\nname = \"standin\"\ncommand = [\"python3\", {:?}, \"init-first\"]\nprofiles = [\"session\"]\n{extra}[timeouts]\nslack = \"200ms\"\nreply = \"10s\"\n",
                standin_driver().display().to_string()
            ),
        );
        harness(&t)
            .args(["--color", "never", "run", "--adapter"])
            .arg(&adapter)
            .arg(&scenario)
            .output()
            .expect("runs")
    };
    let default_side = run("");
    assert_eq!(default_side.status.code(), Some(1), "{default_side:?}");
    let start = run("init_at = \"start\"\n");
    let stderr = text(&start.stderr);
    assert_eq!(start.status.code(), Some(0), "{start:?}");
    assert!(stderr.contains("`init_at`"), "{stderr}");
}

#[test]
fn the_catalogue_is_built_in_and_a_folder_overrides_it() {
    let t = TestDir::new();
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let count = agy_harness::scenario::load_catalogue(&[source])
        .expect("catalogue")
        .scenarios
        .len();
    assert!(!t.path().join("scenarios").exists());
    harness(&t)
        .env_remove(AGY_HARNESS_SCENARIOS)
        .arg("check")
        .assert()
        .code(0)
        .stdout(format!("{count} scenario(s) are valid\n"));
    let own = t.path().join("own");
    t.write("own/one.toml", SESSION_SCENARIO);
    harness(&t)
        .arg("check")
        .arg("--scenarios")
        .arg(&own)
        .assert()
        .code(0)
        .stdout("1 scenario(s) are valid\n");
    harness(&t)
        .env(AGY_HARNESS_SCENARIOS, &own)
        .arg("check")
        .assert()
        .code(0)
        .stdout("1 scenario(s) are valid\n");
}

#[test]
fn a_run_without_adapter_in_a_folder_with_agy_adapter_toml_tests_that_adapter_and_says_so() {
    // Regression: there `agy-harness run` tested the reference adapter and passed, so a CI
    // step that forgot `--adapter` stayed green whatever the adapter did.
    let t = TestDir::new();
    t.write(
        "agy-adapter.toml",
        &format!(
            "[adapter]\nname = \"the folder's adapter\"\ncommand = [\"python3\", {:?}, \"ok\"]\nprofiles = [\"oneshot\"]\n[timeouts]\nslack = \"200ms\"\nreply = \"5s\"\n",
            standin_driver().display().to_string()
        ),
    );
    let scenario = t.scenario("standin/ok", "success", "5s");
    harness(&t)
        .arg("run")
        .arg(&scenario)
        .assert()
        .stderr(predicate::str::contains(
            "testing the adapter of `agy-adapter.toml` in the current folder",
        ))
        .stdout(predicate::str::contains("against the folder's adapter"));
}

#[test]
fn a_driver_that_was_never_built_is_one_setup_error_not_a_failure_per_scenario() {
    // Regression: every scenario failed on its own (exit 1), which read as a broken
    // adapter rather than a missing build. The config names a file that is not there:
    // said once, located at its word, before any scenario (as `check` says it).
    let t = TestDir::new();
    t.write(
        "agy-adapter.toml",
        "[adapter]\nname = \"unbuilt\"\ncommand = [\"./target/release/my-driver\"]\nprofiles = [\"oneshot\"]\n",
    );
    let out = harness(&t)
        .args(["run", "--adapter", "agy-adapter.toml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("does not exist").count(), 1, "{stderr}");
    assert!(stderr.contains("my-driver"), "{stderr}");
    assert!(stderr.contains("agy-adapter.toml:3:12"), "{stderr}");
    assert!(stderr.contains("build the driver"), "{stderr}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("oneshot/"),
        "no scenario ran"
    );
}

#[test]
fn a_missing_driver_file_fails_check_located_and_run_says_it_once() {
    // Regression: `check` passed `["python3", "agy-driver/driver.py"]` without the
    // file, and `run` then printed one failure per scenario.
    let t = TestDir::new();
    t.write(
        "agy-adapter.toml",
        "[adapter]\nname = \"moved\"\ncommand = [\"python3\", \"agy-driver/driver.py\"]\nprofiles = [\"oneshot\"]\n",
    );
    for command in [
        &["check", "--adapter", "agy-adapter.toml"][..],
        &["run", "--adapter", "agy-adapter.toml"],
    ] {
        let out = harness(&t).args(command).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{command:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr
                .matches("`agy-driver/driver.py` names no file")
                .count(),
            1,
            "{command:?}: {stderr}"
        );
        assert!(stderr.contains("agy-adapter.toml:3:23"), "{stderr}");
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("oneshot/"),
            "no scenario ran"
        );
    }
}

#[test]
fn run_with_an_agy_version_runs_only_what_applies_to_it_and_acts_that_version_out() {
    // One cell of `matrix` reproduced with `run`: the slash line ends the session only
    // from agy 1.3.1 on, so under 1.2.6 the scenario does not apply.
    let t = TestDir::new();
    let scenario = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios/session/slash-line-ends-the-session.toml");
    let under = |version: &str| {
        harness(&t)
            .args(["run", "--agy-version", version])
            .arg(&scenario)
            .output()
            .expect("runs")
    };
    let applies = under("1.3.1");
    assert_eq!(applies.status.code(), Some(0), "{applies:?}");
    assert!(String::from_utf8_lossy(&applies.stdout).contains("1 passed"));
    let not_applicable = under("1.2.6");
    assert_eq!(not_applicable.status.code(), Some(2), "{not_applicable:?}");
    assert!(String::from_utf8_lossy(&not_applicable.stderr).contains("no scenario matches"));
}

#[test]
fn a_scenario_of_an_agy_version_the_adapter_does_not_support_is_skipped_as_unsupported() {
    let t = TestDir::new();
    let adapter = std::path::Path::new(env!("CARGO_BIN_EXE_agy-harness"))
        .with_file_name("agy-reference-adapter");
    t.write(
        "agy-adapter.toml",
        &format!(
            "[adapter]\nname = \"new agy only\"\ncommand = [{:?}]\nprofiles = [\"session\"]\nagy_versions = \">=1.3.0\"\n",
            adapter.display().to_string()
        ),
    );
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/session");
    let out = harness(&t)
        .args(["run", "--verbose", "--adapter", "agy-adapter.toml"])
        .arg(root.join("three-turns-on-one-process.toml"))
        .arg(root.join("slash-line-ends-the-session.toml"))
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("1 passed"), "{stdout}");
    assert!(
        stdout.contains("unsupported: the scenario acts out agy 1.2.6"),
        "{stdout}"
    );
}

#[test]
fn matrix_keeps_the_sandbox_of_each_failed_cell_and_prints_it_beside_the_failure() {
    let t = TestDir::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/session");
    // `process-per-turn` fails three turns on one process and passes a lone close.
    let out = harness(&t)
        .args(["matrix", "--versions", "1.2.6", "--keep-sandboxes"])
        .args(["--fault", "process-per-turn"])
        .arg(root.join("three-turns-on-one-process.toml"))
        .arg(root.join("close-leaves-no-process.toml"))
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let kept: Vec<(String, std::path::PathBuf)> = stdout
        .lines()
        .filter_map(|l| {
            let (cell, path) = l.split_once(": sandbox kept at ")?;
            Some((cell.trim().to_string(), path.trim().into()))
        })
        .collect();
    for (_, path) in &kept {
        assert!(path.is_dir(), "`{}` is not kept\n{stdout}", path.display());
    }
    let cells: Vec<&str> = kept.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(
        cells,
        ["agy 1.2.6 session/three-turns-on-one-process"],
        "{stdout}"
    );
    for (_, path) in kept {
        let _ = std::fs::remove_dir_all(path);
    }
}
