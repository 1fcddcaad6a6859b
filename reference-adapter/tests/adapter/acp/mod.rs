//! The `acp` profile against the real fake ACP agent (`fake-agy-acp`): turns,
//! permissions, cancel, restores after a client or agent restart, and each ACP fault
//! switch shown to break the expectation the correct client keeps.

mod faults;
mod restore;
mod support;
mod turns;
