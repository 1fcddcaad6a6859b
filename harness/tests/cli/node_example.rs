//! The Node session example (examples/node-session/) runs against fake-agy through the
//! harness with the machine's node: it conforms to the whole session catalogue.

use crate::support::*;
use std::path::Path;

#[test]
fn node_session_example_conforms() {
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: `node` is not on PATH (the example needs Node 20 or later)");
        return;
    }
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let scenarios = std::fs::read_dir(root.join("scenarios/session"))
        .expect("scenarios/session")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "toml"))
        })
        .count();
    let stdout = run_example("examples/node-session/adapter.toml", "scenarios/session");
    assert!(
        stdout.contains(&format!("{scenarios} passed")),
        "every one of the {scenarios} session scenarios must pass:\n{stdout}"
    );
}
