//! The Node session example (examples/node-session/) runs against fake-agy through the
//! harness with the machine's node: it conforms to the whole session catalogue.

use crate::support::*;
use std::path::Path;
use std::time::Duration;

#[test]
fn node_session_example_conforms() {
    let Ok(version) = std::process::Command::new("node").arg("--version").output() else {
        eprintln!("skipped: `node` is not on PATH (the example needs Node 20 or later)");
        return;
    };
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let scenarios = std::fs::read_dir(root.join("scenarios/session"))
        .expect("scenarios/session")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "toml"))
        })
        .count();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(root).args([
        "--color",
        "never",
        "run",
        "--adapter",
        "examples/node-session/adapter.toml",
        "scenarios/session",
    ]);
    let out = run(cmd, Duration::from_secs(300));
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "node {}stdout:\n{stdout}\nstderr:\n{}",
        text(&version.stdout),
        text(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("{scenarios} passed")),
        "every one of the {scenarios} session scenarios must pass:\n{stdout}"
    );
}
