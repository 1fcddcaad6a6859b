//! The live guard has no side door: a binary given as the fake (`--fake-agy`,
//! `AGY_HARNESS_FAKE_AGY`, `--fake-agy-acp`, `spikes --fake-agy`) that does not answer
//! the identity handshake is refused with exit 3 and a hint to use `--agy … --live`,
//! and it never runs a scenario: at most the one handshake run. The handshake checks
//! content, not words: a wrapper that lets the real fake answer is refused too.

use crate::support::*;
use agy_protocol::env::{AGY_HARNESS_FAKE_AGY, AGY_HARNESS_FAKE_AGY_ACP};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// A stand-in for a real agy that notes every run in `runs.log`: the handshake's nonce
/// (empty when the run is not a handshake) and its arguments.
fn marker_agy(t: &TestDir) -> (PathBuf, PathBuf) {
    let log = t.path().join("runs.log");
    let bin = t.write(
        "marker-agy",
        &format!(
            "#!/bin/sh\necho \"nonce=$FAKE_AGY_IDENTIFY args=$*\" >> '{}'\necho 'agy version 1.3.2'\n",
            log.display()
        ),
    );
    let mut perms = std::fs::metadata(&bin).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&bin, perms).expect("chmod");
    (bin, log)
}

/// The runs the marker noted: (handshakes, other runs).
fn runs(log: &Path) -> (usize, usize) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let handshakes = text.lines().filter(|l| !l.starts_with("nonce= ")).count();
    (handshakes, text.lines().count() - handshakes)
}

fn harness() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(workspace())
        .env_remove(AGY_HARNESS_FAKE_AGY)
        .env_remove(AGY_HARNESS_FAKE_AGY_ACP)
        .args(["--color", "never"]);
    cmd
}

fn assert_refused(cmd: std::process::Command, marker: &Path, log: &Path) {
    let out = run(cmd, Duration::from_secs(120));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "stderr:\n{stderr}");
    assert!(
        stderr.contains(&format!("`{}` is not fake-agy", marker.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("--agy {} --live", marker.display())),
        "{stderr}"
    );
    let (handshakes, others) = runs(log);
    assert!(handshakes <= 1, "{handshakes} handshake runs");
    assert_eq!(others, 0, "the marker ran outside the handshake");
}

#[test]
fn run_with_fake_agy_naming_another_binary_is_refused_before_any_scenario() {
    let t = TestDir::new();
    let (marker, log) = marker_agy(&t);
    let mut cmd = harness();
    cmd.args(["run", "--fake-agy"])
        .arg(&marker)
        .arg("scenarios/oneshot");
    assert_refused(cmd, &marker, &log);
}

#[test]
fn the_fake_agy_variable_naming_another_binary_is_refused_before_any_scenario() {
    let t = TestDir::new();
    let (marker, log) = marker_agy(&t);
    let mut cmd = harness();
    cmd.env(AGY_HARNESS_FAKE_AGY, &marker)
        .args(["run", "scenarios/oneshot"]);
    assert_refused(cmd, &marker, &log);
}

#[test]
fn run_with_fake_agy_acp_naming_another_binary_is_refused_before_any_scenario() {
    let t = TestDir::new();
    let (marker, log) = marker_agy(&t);
    let mut cmd = harness();
    cmd.env(AGY_HARNESS_FAKE_AGY, crate::spikes::fake_agy())
        .args(["run", "--fake-agy-acp"])
        .arg(&marker)
        .arg("scenarios/acp/agent-version-rc01-is-accepted.toml");
    let out = run(cmd, Duration::from_secs(120));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "stderr:\n{stderr}");
    assert!(stderr.contains("is not fake-agy-acp"), "{stderr}");
    let (handshakes, others) = runs(&log);
    assert!(
        handshakes <= 1 && others == 0,
        "{handshakes} handshakes, {others} runs"
    );
}

#[test]
fn spikes_with_fake_agy_naming_another_binary_are_refused_before_any_probe() {
    let t = TestDir::new();
    let (marker, log) = marker_agy(&t);
    let mut cmd = harness();
    cmd.args(["spikes", "--fake-agy"]).arg(&marker);
    assert_refused(cmd, &marker, &log);
}

/// A wrapper that lets the real fake-agy answer the handshake and otherwise runs the
/// marker (what a wrapper around a real agy would do); `answer` is the handshake line.
fn wrapper(t: &TestDir, marker: &Path, answer: &str) -> PathBuf {
    let bin = t.write(
        "wrapper-agy",
        &format!(
            "#!/bin/sh\nif [ -n \"$FAKE_AGY_IDENTIFY\" ]; then {answer}; fi\nexec '{}' \"$@\"\n",
            marker.display()
        ),
    );
    let mut perms = std::fs::metadata(&bin).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&bin, perms).expect("chmod");
    bin
}

fn assert_wrapper_refused(wrapper: &Path, log: &Path) {
    let mut cmd = harness();
    cmd.args(["run", "--fake-agy"])
        .arg(wrapper)
        .arg("scenarios/oneshot");
    let out = run(cmd, Duration::from_secs(120));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "stderr:\n{stderr}");
    assert!(
        stderr.contains(&format!("`{}` is not fake-agy", wrapper.display())),
        "{stderr}"
    );
    assert_eq!(runs(log).1, 0, "the marker ran outside the handshake");
}

#[test]
fn a_wrapper_letting_the_real_fake_answer_the_handshake_is_refused() {
    let t = TestDir::new();
    let (marker, log) = marker_agy(&t);
    let fake = crate::spikes::fake_agy();
    let wrapper = wrapper(&t, &marker, &format!("exec '{}' \"$@\"", fake.display()));
    assert_wrapper_refused(&wrapper, &log);
}

#[test]
fn a_wrapper_replaying_the_fakes_answer_with_its_own_digest_is_refused() {
    let t = TestDir::new();
    let (marker, log) = marker_agy(&t);
    let answer = "d=$(sha256sum \"$0\" | cut -d' ' -f1); \
         echo \"fake-agy identity $FAKE_AGY_IDENTIFY version 0.1.0 sha256 $d\"; exit 0";
    let wrapper = wrapper(&t, &marker, answer);
    assert_wrapper_refused(&wrapper, &log);
}

#[test]
fn the_real_fake_agy_answers_with_its_version() {
    let version = agy_harness::fake_identity::verify_fake(&crate::spikes::fake_agy(), "fake-agy")
        .expect("fake-agy answers");
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
}
