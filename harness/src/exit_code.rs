//! The exit codes of `agy-harness`, in one place (docs/harness.md lists them).

/// Every scenario conformed (expected failures failed as expected).
pub const ALL_CONFORM: i32 = 0;
/// At least one scenario failed, or an expected failure now passes.
pub const SCENARIO_FAILED: i32 = 1;
/// Bad input: a scenario file, the adapter config or the command line is invalid.
pub const BAD_INPUT: i32 = 2;
/// The harness could not run: a binary is missing, a sandbox could not be made, or the
/// run was interrupted (the partial report is still written).
pub const COULD_NOT_RUN: i32 = 3;
