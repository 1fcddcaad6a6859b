//! The exit codes fake-agy uses, with where each comes from (docs/agy-reference.md §2.3).

/// The turn finished (also SUCCESS with empty response, CANCELED, 1.2.x print timeout).
pub const OK: i32 = 0;
/// Failure before or at the start of the turn: bad model, auth, malformed first stdin
/// line, print timeout on ≤1.1.24.
pub const TURN_FAILED: i32 = 1;
/// Go `flag` parse error: unknown flag, `-p` without value, leftover positionals.
pub const USAGE: i32 = 2;
/// Quota exhausted mid-turn (`AGY_ERROR:` on stderr).
pub const QUOTA: i32 = 3;
/// fake-agy itself is broken (unreadable script, bad knob); never a scripted code.
pub const BROKEN: i32 = agy_protocol::script::FAKE_BROKEN_EXIT;
