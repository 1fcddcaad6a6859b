//! `agy-harness repro` on the bug reports in `harness/tests/data/repro/`: one per
//! oneshot and session fault switch of the reference adapter, each showing the agy
//! behaviour the fault mishandles. The scenario repro writes must fail the faulty
//! adapter and pass the correct one, before and after minimising; the session examples
//! must shrink to at most a third of their script steps. Malformed reports are
//! rejected with every problem located.

use crate::support::*;
use agy_harness::scenario::{parse_scenario_file, Scenario};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn data(name: &str) -> PathBuf {
    workspace().join("harness/tests/data/repro").join(name)
}

fn harness() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(workspace()).args(["--color", "never"]);
    cmd
}

/// Runs `repro` on `report` with `fault`; returns the minimal scenario and the
/// original written beside it.
fn repro(t: &TestDir, report: &str, fault: &str) -> (PathBuf, PathBuf) {
    let out_dir = t.path().join("out");
    let mut cmd = harness();
    cmd.arg("repro")
        .arg(data(report))
        .args(["--fault", fault, "--jobs", "2"])
        .arg("--out")
        .arg(&out_dir);
    let out = run(cmd, Duration::from_secs(600));
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "repro did not reproduce `{fault}`\nstdout:\n{stdout}\nstderr:\n{}",
        text(&out.stderr)
    );
    assert!(stdout.contains("reproduced:"), "{stdout}");
    assert!(stdout.contains("minimised in"), "{stdout}");
    let files: Vec<PathBuf> = walk(&out_dir);
    let original = files
        .iter()
        .find(|p| p.to_string_lossy().ends_with("-original.toml"))
        .cloned()
        .unwrap_or_else(|| panic!("no original scenario in {files:?}\n{stdout}"));
    let minimal = files
        .iter()
        .find(|p| *p != &original)
        .cloned()
        .unwrap_or_else(|| panic!("no minimal scenario in {files:?}\n{stdout}"));
    (minimal, original)
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// A run's exit code and output.
type Ran = (Option<i32>, String);

/// `agy-harness run SCENARIO [--fault F]`: its exit code and output.
fn run_scenario(scenario: &Path, fault: Option<&str>) -> Ran {
    let mut cmd = harness();
    cmd.arg("run").arg(scenario);
    if let Some(f) = fault {
        cmd.args(["--fault", f]);
    }
    let out = run(cmd, Duration::from_secs(120));
    (out.status.code(), text(&out.stdout) + &text(&out.stderr))
}

fn steps(s: &Scenario) -> usize {
    s.script.as_ref().map_or(0, |sc| {
        sc.invocations.iter().map(|r| r.steps.len()).sum::<usize>()
            + sc.turns.iter().map(|r| r.steps.len()).sum::<usize>()
    })
}

/// The whole check for one fault: reproduced, both scenarios valid, each failing the
/// faulty adapter and passing the correct one. Returns (original, minimal) steps.
fn reproduces(report: &str, fault: &str) -> (usize, usize) {
    let t = TestDir::new();
    let (minimal, original) = repro(&t, report, fault);
    let mut sizes = Vec::new();
    for scenario in [&original, &minimal] {
        let parsed = parse_scenario_file(scenario)
            .unwrap_or_else(|d| panic!("`{}` does not check:\n{d}", scenario.display()));
        sizes.push(steps(&parsed));
    }
    // The four runs at once: a faulty run mostly waits out its bounds.
    let runs: Vec<(&PathBuf, Option<&str>, Ran)> = std::thread::scope(|s| {
        let handles: Vec<_> = [&original, &minimal]
            .into_iter()
            .flat_map(|scenario| [(scenario, Some(fault)), (scenario, None)])
            .map(|(scenario, f)| (scenario, f, s.spawn(move || run_scenario(scenario, f))))
            .collect();
        handles
            .into_iter()
            .map(|(scenario, f, h)| (scenario, f, h.join().expect("the run thread")))
            .collect()
    });
    for (scenario, f, (code, out)) in runs {
        match f {
            Some(fault) => assert_eq!(
                code,
                Some(1),
                "`{fault}` passes {}:\n{out}",
                scenario.display()
            ),
            None => assert_eq!(
                code,
                Some(0),
                "the correct adapter fails {}:\n{out}",
                scenario.display()
            ),
        }
    }
    (sizes[0], sizes[1])
}

/// Session examples must shrink to at most a third of their script steps.
fn reproduces_a_third(report: &str, fault: &str) {
    let (original, minimal) = reproduces(report, fault);
    assert!(
        minimal * 3 <= original,
        "`{fault}`: {original} steps shrank only to {minimal}"
    );
}

#[test]
fn trusts_success_is_reproduced_from_a_print_timeout_report() {
    reproduces("oneshot-print-timeout.txt", "trusts-success");
}

#[test]
fn missing_output_before_timeout_is_reproduced_from_a_print_timeout_report() {
    reproduces("oneshot-print-timeout.txt", "missing-output-before-timeout");
}

#[test]
fn no_quota_detection_is_reproduced_from_quota_prose() {
    reproduces("oneshot-quota-in-prose.txt", "no-quota-detection");
}

#[test]
fn skip_permissions_by_default_is_reproduced_from_its_argv() {
    reproduces(
        "oneshot-skip-permissions.txt",
        "skip-permissions-by-default",
    );
}

#[test]
fn first_of_many_images_is_reproduced_from_two_brain_files() {
    reproduces("oneshot-two-images.txt", "first-of-many-images");
}

#[test]
fn never_kills_hung_agy_is_reproduced_from_a_hang_report() {
    reproduces("oneshot-hung-agy.txt", "never-kills-hung-agy");
}

#[test]
fn process_per_turn_is_reproduced_and_shrinks_to_a_third() {
    reproduces_a_third("session-four-turns.txt", "process-per-turn");
}

#[test]
fn no_replay_filter_is_reproduced_and_shrinks_to_a_third() {
    reproduces_a_third("session-replay.txt", "no-replay-filter");
}

#[test]
fn keeps_process_after_failure_is_reproduced_and_shrinks_to_a_third() {
    reproduces_a_third("session-failed-turn.txt", "keeps-process-after-failure");
}

#[test]
fn keeps_process_after_model_change_is_reproduced_and_shrinks_to_a_third() {
    reproduces_a_third(
        "session-model-change.txt",
        "keeps-process-after-model-change",
    );
}

#[test]
fn sigterm_without_sigkill_is_reproduced_and_shrinks_to_a_third() {
    reproduces_a_third("session-sigterm-ignored.txt", "sigterm-without-sigkill");
}

#[test]
fn late_step_to_current_turn_is_reproduced_and_shrinks_to_a_third() {
    reproduces_a_third("session-late-step.txt", "late-step-to-current-turn");
}

#[test]
fn late_usage_to_current_turn_is_reproduced_and_shrinks_to_a_third() {
    reproduces_a_third("session-late-step.txt", "late-usage-to-current-turn");
}

#[test]
fn the_correct_adapter_does_not_reproduce_a_report() {
    let t = TestDir::new();
    let mut cmd = harness();
    cmd.arg("repro")
        .arg(data("oneshot-print-timeout.txt"))
        .arg("--out")
        .arg(t.path().join("out"));
    let out = run(cmd, Duration::from_secs(120));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("not reproduced"), "{stdout}");
    assert!(
        !walk(&t.path().join("out")).is_empty(),
        "the scenario is written"
    );
}

/// `repro` on a report `text` that does not read: exit 2, nothing written; returns
/// stderr and the report's path as errors show it.
fn rejected(text_of_report: &str) -> (String, String) {
    let t = TestDir::new();
    let report = t.write("report.txt", text_of_report);
    let mut cmd = harness();
    cmd.arg("repro")
        .arg(&report)
        .arg("--out")
        .arg(t.path().join("out"));
    let out = run(cmd, Duration::from_secs(60));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!t.path().join("out").exists(), "nothing is written");
    (stderr, report.display().to_string())
}

#[test]
fn a_malformed_report_gives_every_problem_located() {
    let (stderr, shown) = rejected(
        "$ agy -p 'hexagon' --output-format json\n{\"status\":\"SUCC\n{\"no\":\"agy\"}\n$ agy -p 'oops\n",
    );
    for at in [":2:16", ":3:1", ":4:3"] {
        assert!(
            stderr.contains(&format!("{shown}{at}")),
            "no {at} in:\n{stderr}"
        );
    }
    assert!(stderr.contains("3 problem(s)"), "{stderr}");
}

// ACP transcripts: one per acp fault switch of the reference adapter.

#[test]
fn acp_quarantine_lifted_early_is_reproduced_from_late_output_after_a_load() {
    reproduces(
        "acp-quarantine-late-output.txt",
        "acp-quarantine-lifted-early",
    );
}

#[test]
fn acp_falls_back_to_session_new_is_reproduced_from_a_failed_load() {
    reproduces("acp-failed-load.txt", "acp-falls-back-to-session-new");
}

#[test]
fn acp_appends_load_replay_is_reproduced_from_a_replay_after_the_load_response() {
    reproduces("acp-load-replay.txt", "acp-appends-load-replay");
}

#[test]
fn acp_resends_last_prompt_is_reproduced_from_a_resent_prompt() {
    reproduces("acp-resent-prompt.txt", "acp-resends-last-prompt");
}

#[test]
fn every_acp_fault_of_the_reference_adapter_has_a_transcript_here() {
    let out = std::process::Command::new(
        Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("agy-reference-adapter"),
    )
    .arg("--list-faults")
    .output()
    .expect("--list-faults");
    let listed: Vec<String> = text(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|f| f["profile"] == "acp")
        .filter_map(|f| f["name"].as_str().map(str::to_string))
        .collect();
    assert!(!listed.is_empty(), "{}", text(&out.stdout));
    // Without whitespace and trailing commas, as rustfmt may break a call over lines.
    let this: String = include_str!("repro.rs").split_whitespace().collect();
    let this = this.replace(",)", ")");
    for fault in listed {
        assert!(
            this.contains(&format!("\"{fault}\"")),
            "no transcript reproduces `{fault}`"
        );
    }
}

#[test]
fn a_malformed_acp_transcript_gives_every_problem_located() {
    let (stderr, shown) = rejected(
        "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/prompt\",\"params\":{\n< {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n",
    );
    assert!(stderr.contains(&format!("{shown}:2:3")), "{stderr}");
    assert!(stderr.contains(&format!("{shown}:1:")), "{stderr}");
    assert!(stderr.contains("help: "), "{stderr}");
}

/// `repro REPORT --out DIR` with the correct adapter (the report is not reproduced,
/// the scenario is written): its exit code and both streams.
fn repro_correct(out_dir: &Path, force: bool) -> (Option<i32>, String) {
    let mut cmd = harness();
    cmd.arg("repro")
        .arg(data("oneshot-print-timeout.txt"))
        .arg("--out")
        .arg(out_dir);
    if force {
        cmd.arg("--force");
    }
    let out = run(cmd, Duration::from_secs(120));
    (out.status.code(), text(&out.stdout) + &text(&out.stderr))
}

#[test]
fn a_scenario_already_written_is_kept_unless_forced() {
    // Two reports that come to the same behaviour name the same scenario file: the
    // second must not replace the first, which may already be a committed test.
    let t = TestDir::new();
    let out_dir = t.path().join("out");
    let (code, shown) = repro_correct(&out_dir, false);
    assert_eq!(code, Some(1), "{shown}");
    let written = walk(&out_dir);
    assert_eq!(written.len(), 1, "{written:?}");
    let kept = "# the scenario a maintainer committed\n";
    std::fs::write(&written[0], kept).expect("edit");
    let (code, shown) = repro_correct(&out_dir, false);
    assert_eq!(code, Some(2), "{shown}");
    assert!(shown.contains(&written[0].display().to_string()), "{shown}");
    assert!(shown.contains("--force"), "{shown}");
    assert_eq!(std::fs::read_to_string(&written[0]).expect("read"), kept);
    let (code, shown) = repro_correct(&out_dir, true);
    assert_eq!(code, Some(1), "{shown}");
    assert_ne!(std::fs::read_to_string(&written[0]).expect("read"), kept);
}

/// An adapter config for the correct reference adapter reading session answers from the
/// streamed `agent_response` steps only (`--answers-from streamed`).
fn streamed_reading_config(t: &TestDir) -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("agy-reference-adapter");
    let path = t.path().join("streamed-reading.toml");
    let config = format!(
        "[adapter]\nname = \"reference, answers from streamed steps\"\n\
         command = [{:?}, \"--answers-from\", \"streamed\"]\nprofiles = [\"session\"]\n\
         [errors]\nTurnTimeoutError = \"timeout\"\nTurnTransientError = \"transient\"\n\
         TurnCancelledError = \"transient\"\nTurnAuthError = \"auth\"\n\
         TurnFailedError = \"permanent\"\nBadRequestError = \"permanent\"\n",
        bin.display().to_string()
    );
    std::fs::write(&path, config).expect("the config is written");
    path
}

/// A fixed adapter that reads a turn's answer from the streamed steps (which every
/// session scenario of the catalogue carries) must pass the minimal scenario as it
/// passes the original: the minimiser may not remove what a correct adapter reads.
#[test]
fn a_minimal_session_scenario_passes_an_adapter_that_reads_streamed_answers() {
    let t = TestDir::new();
    let (minimal, original) = repro(&t, "session-replay.txt", "no-replay-filter");
    let config = streamed_reading_config(&t);
    for scenario in [&original, &minimal] {
        let mut cmd = harness();
        cmd.arg("run").arg("--adapter").arg(&config).arg(scenario);
        let out = run(cmd, Duration::from_secs(120));
        assert_eq!(
            out.status.code(),
            Some(0),
            "a correct adapter reading streamed answers fails {}:\n{}{}\n{}",
            scenario.display(),
            text(&out.stdout),
            text(&out.stderr),
            std::fs::read_to_string(scenario).unwrap_or_default()
        );
    }
}

/// A config of the reference adapter implementing only `profile`.
fn reference_config(t: &TestDir, profile: &str) -> PathBuf {
    let reference =
        Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("agy-reference-adapter");
    t.write(
        "agy-adapter.toml",
        &format!(
            "[adapter]\nname = \"a {profile} client\"\ncommand = [{:?}]\nprofiles = [\"{profile}\"]\n",
            reference.display().to_string()
        ),
    )
}

// Regression: a `-p` report was read as `oneshot` whatever the adapter, so repro
// stopped for a text client with no hint and left a oneshot scenario its runs skip.
#[test]
fn a_print_run_report_for_a_text_client_is_reproduced_as_text() {
    let t = TestDir::new();
    let report = t.write(
        "report.md",
        "**agy** 1.2.17\n\n$ agy -p 'capital of France?' --output-format json\n{\"status\":\"SUCCESS\",\"response\":\"Paris\"}\nexit status 0\n",
    );
    let mut cmd = harness();
    cmd.arg("repro")
        .arg(&report)
        .arg("--adapter")
        .arg(reference_config(&t, "text"))
        .arg("--out")
        .arg(t.path().join("out"));
    let out = run(cmd, Duration::from_secs(120));
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "not reproduced: {stdout}\n{}",
        text(&out.stderr)
    );
    assert!(
        stdout.contains("agy 1.2.17"),
        "the Markdown version is read: {stdout}"
    );
    assert!(stdout.contains("profile text:"), "{stdout}");
    let written = walk(&t.path().join("out"));
    assert!(
        !written.is_empty()
            && written
                .iter()
                .all(|p| p.starts_with(t.path().join("out/text"))),
        "{written:?}"
    );
}

#[test]
fn a_report_no_profile_of_the_adapter_runs_agy_as_is_refused_before_anything_is_written() {
    let t = TestDir::new();
    let report = t.write(
        "report.txt",
        "$ agy -p hi --output-format json\n{\"status\":\"SUCCESS\",\"response\":\"hi\"}\n",
    );
    let mut cmd = harness();
    cmd.arg("repro")
        .arg(&report)
        .arg("--adapter")
        .arg(reference_config(&t, "session"))
        .arg("--out")
        .arg(t.path().join("out"));
    let out = run(cmd, Duration::from_secs(60));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("implements `session`"), "{stderr}");
    assert!(stderr.contains("--profile"), "{stderr}");
    assert!(!t.path().join("out").exists(), "nothing is written");
    // With `--profile` naming a profile the adapter lacks: refused before writing too.
    let mut cmd = harness();
    cmd.arg("repro")
        .arg(&report)
        .args(["--profile", "oneshot", "--adapter"])
        .arg(reference_config(&t, "session"))
        .arg("--out")
        .arg(t.path().join("out"));
    let out = run(cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(!t.path().join("out").exists(), "nothing is written");
}
