//! Before a live run spends its budget on turns, one `agy models` run (charged to the
//! budget) tells whether the sandboxed agy is signed in, and that is compared with what
//! `--credentials` promised.

use crate::support::*;
use agy_protocol::env::AGY_HARNESS_ALLOW_LIVE;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// A stand-in agy: `models` lists one model (signed in) or asks for a sign-in, as
/// docs/agy-reference.md records it; any other run is noted in `turns.log`.
fn stand_in(t: &TestDir, signed_in: bool) -> (PathBuf, PathBuf) {
    let log = t.path().join("turns.log");
    let models = if signed_in {
        "printf 'gemini-3.8-flash-low\\tGemini 3.8 Flash (Low)\\n'; exit 0"
    } else {
        "echo 'Please sign in to view available models' >&2; exit 1"
    };
    let bin = t.write(
        "agy",
        &format!(
            "#!/bin/sh\nif [ \"$1\" = models ]; then {models}; fi\necho \"$*\" >> '{}'\nexit 1\n",
            log.display()
        ),
    );
    let mut perms = std::fs::metadata(&bin).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&bin, perms).expect("chmod");
    (bin, log)
}

fn live(agy: &Path, credentials: &str, home: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(workspace())
        .args(["--color", "never", "run", "--live", "--budget", "3"])
        .args(["--credentials", credentials])
        .arg("--agy")
        .arg(agy)
        .env("HOME", home)
        .env("CI", "true")
        .env(AGY_HARNESS_ALLOW_LIVE, "1");
    cmd
}

#[test]
fn a_signed_in_agy_under_credentials_none_stops_the_run_before_any_turn() {
    let t = TestDir::new();
    let (agy, log) = stand_in(&t, true);
    let out = run(live(&agy, "none", t.path()), Duration::from_secs(120));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("signed in"), "{stderr}");
    assert!(stderr.contains("keyring"), "{stderr}");
    assert!(
        !log.exists(),
        "a turn ran: {:?}",
        std::fs::read_to_string(&log)
    );
}

#[test]
fn a_signed_out_agy_under_credentials_copy_is_said_before_any_turn() {
    let t = TestDir::new();
    let (agy, _log) = stand_in(&t, false);
    let out = run(live(&agy, "copy", t.path()), Duration::from_secs(120));
    let stderr = text(&out.stderr);
    let note = stderr
        .find("agy is signed out")
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(stderr[note..].contains("--credentials copy"), "{stderr}");
}
