//! The conformance catalogue against this build of the reference adapter: the test that
//! `scripts/mutants` gives cargo-mutants (docs/mutation-testing.md). A mutant is caught
//! when a scenario fails against the adapter as built (`agy-harness run`, the cheap
//! check, first), or else when a fault switch of it is no longer caught by the scenarios
//! that claim it (`agy-harness faults`: the fault switches' own branches run only there).
//!
//! Not run by `cargo test` or `cargo nextest run` (`test = false` in Cargo.toml): it needs
//! an `agy-harness` built from the unmutated tree, with `fake-agy` and `fake-agy-acp`
//! next to it, named by [`HARNESS`]. Only the adapter under test is built by cargo.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

/// The unmutated `agy-harness` binary (required; `fake-agy` and `fake-agy-acp` beside it).
const HARNESS: &str = "AGY_MUTANTS_HARNESS";
/// Only the catalogue's scenarios of this profile (`oneshot`, `session`, `acp`, `text`, `mcp`,
/// `acp-agent`).
const PROFILE: &str = "AGY_MUTANTS_PROFILE";
/// Also run `agy-harness fuzz` for the profile with this many cases (fixed seed 1).
const FUZZ_CASES: &str = "AGY_MUTANTS_FUZZ_CASES";
/// Scenarios run at once by the harness.
const JOBS: &str = "AGY_MUTANTS_JOBS";

/// The adapter under test: the binary cargo built from this (mutated) tree.
const ADAPTER: &str = env!("CARGO_BIN_EXE_agy-reference-adapter");

#[test]
fn the_catalogue_passes_and_catches_every_fault_of_this_build() {
    let harness = std::env::var_os(HARNESS).unwrap_or_else(|| {
        panic!("set {HARNESS} to an unmutated agy-harness (scripts/mutants does)")
    });
    let profile = std::env::var(PROFILE).ok();
    let jobs = std::env::var(JOBS).unwrap_or_else(|_| "2".to_string());
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    for (command, what) in [
        ("run", "the catalogue against this build"),
        (
            "faults",
            "the catalogue against each fault switch of this build",
        ),
    ] {
        let mut harness_run = harness_command(&harness, command, &jobs);
        harness_run.arg("--scenarios").arg(&scenarios);
        if let Some(profile) = &profile {
            harness_run.args(["--profile", profile]);
        }
        expect_success(&mut harness_run, what);
    }

    let cases = std::env::var(FUZZ_CASES).unwrap_or_default();
    if let (Some(profile), false) = (&profile, cases.is_empty()) {
        let out = tempfile::tempdir().expect("temporary folder for fuzz findings");
        let mut fuzz = harness_command(&harness, "fuzz", &jobs);
        fuzz.args(["--profile", profile, "--seed", "1", "--cases", &cases])
            .arg("--out")
            .arg(out.path());
        expect_success(&mut fuzz, "the fixed-seed fuzz run");
    }
}

/// `agy-harness <subcommand>` against the adapter under test.
fn harness_command(harness: &OsString, subcommand: &str, jobs: &str) -> Command {
    let mut command = Command::new(harness);
    command
        .args([
            "--color",
            "never",
            subcommand,
            "--reference-adapter",
            ADAPTER,
        ])
        .args(["--jobs", jobs]);
    command
}

/// Runs `command` and fails with its whole output unless it exits 0.
fn expect_success(command: &mut Command, what: &str) {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("failed to start {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed against this build of the reference adapter ({})\ncommand: {command:?}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
}
