//! The worked example (examples/python-oneshot/) runs against fake-agy through the
//! harness: it conforms to the oneshot catalogue, with its one listed expected failure.

use crate::support::*;

#[test]
fn python_oneshot_example_conforms() {
    let stdout = run_example("examples/python-oneshot/adapter.toml", "scenarios/oneshot");
    assert!(stdout.contains("1 expected failure"), "{stdout}");
}

/// examples/thumbforge/run without a CPython >= 3.12 (none on `PATH`, no pyenv): it
/// skips with exit 0 on a workstation, but under `CI=true` a skip would hide that the
/// example never ran, so it fails.
#[test]
fn thumbforge_run_without_a_suitable_python_fails_under_ci() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let venv = root.join("target/thumbforge-venv/bin/python");
    if venv.exists() {
        // The environment is already made: `run` needs no Python to find.
        return;
    }
    let t = TestDir::new();
    let outcome = |ci: &str| {
        let mut cmd = std::process::Command::new(root.join("examples/thumbforge/run"));
        cmd.env("PATH", "/usr/bin:/bin")
            .env("PYENV_ROOT", t.path().join("no-pyenv"))
            .env("HOME", t.path())
            .env("CI", ci);
        run(cmd, std::time::Duration::from_secs(60))
    };
    let local = outcome("");
    assert_eq!(local.status.code(), Some(0), "{local:?}");
    let ci = outcome("true");
    assert_eq!(ci.status.code(), Some(1), "{ci:?}");
    let said = text(&ci.stdout) + &text(&ci.stderr);
    assert!(said.contains("CPython >= 3.12"), "{said}");
}
