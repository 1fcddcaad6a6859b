//! An adapter that starts agy with an environment of its own (an allow-list, as some
//! published MCP servers do) still meets the scenario's fake: scripted, journalled and
//! swept with the sandbox.

use crate::support::*;
use std::path::Path;
use std::time::Duration;

/// A driver wrapper that passes the reference adapter, and so agy, only an allow-list:
/// no `FAKE_AGY_*` variable and no sandbox marker.
const ALLOW_LIST: &str = r#"#!/bin/sh
exec env -i PATH="$PATH" HOME="$HOME" TMPDIR="$TMPDIR" \
  AGY_DRIVER_STATE_DIR="$AGY_DRIVER_STATE_DIR" AGY_DRIVER_WORK_DIR="$AGY_DRIVER_WORK_DIR" \
  AGY_HARNESS_TIME_SCALE="$AGY_HARNESS_TIME_SCALE" "$REFERENCE_ADAPTER"
"#;

#[test]
fn a_scripted_answer_reaches_an_adapter_that_passes_agy_an_allow_list() {
    let t = TestDir::new();
    let reference =
        Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("agy-reference-adapter");
    t.write("allow-list.sh", ALLOW_LIST);
    let config = t.write(
        "adapter.toml",
        &format!(
            "[adapter]\nname = \"allow-list\"\ncommand = [\"sh\", \"./allow-list.sh\"]\nprofiles = [\"oneshot\"]\nenv = {{ REFERENCE_ADAPTER = {:?} }}\n\n[errors]\nProviderTimeoutError = \"timeout\"\nProviderTransientError = \"transient\"\nProviderOutputMissingError = \"output_missing\"\nProviderAuthError = \"auth\"\nProviderPermanentError = \"permanent\"\n",
            reference.display().to_string()
        ),
    );
    let scenario = agy_test_support::workspace()
        .join("scenarios/oneshot/image-quota-in-success-prose-is-transient.toml");
    let mut cmd = t.harness();
    cmd.args(["run", "--adapter"]).arg(&config).arg(&scenario);
    let stdout = run_ok(cmd, Duration::from_secs(120));
    assert!(stdout.contains("1 passed, 0 failed"), "{stdout}");
}
