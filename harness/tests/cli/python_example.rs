//! The worked example (examples/python-oneshot/) runs against fake-agy through the
//! harness: it conforms to the oneshot catalogue, with its one listed expected failure.

use crate::support::*;
use std::path::Path;
use std::time::Duration;

#[test]
fn python_oneshot_example_conforms() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(root).args([
        "--color",
        "never",
        "run",
        "--adapter",
        "examples/python-oneshot/adapter.toml",
        "scenarios/oneshot",
    ]);
    let out = run(cmd, Duration::from_secs(300));
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{}",
        text(&out.stderr)
    );
    assert!(stdout.contains("1 expected failure"), "{stdout}");
}
