//! The worked example (examples/python-oneshot/) runs against fake-agy through the
//! harness: it conforms to the oneshot catalogue, with its one listed expected failure.

use crate::support::*;

#[test]
fn python_oneshot_example_conforms() {
    let stdout = run_example("examples/python-oneshot/adapter.toml", "scenarios/oneshot");
    assert!(stdout.contains("1 expected failure"), "{stdout}");
}
