//! The mechanics every binary of the kit shares to start, stop and read processes, so
//! that no process outlives what started it and no input is read unbounded. The
//! vocabulary these mechanics speak (environment names, formats) is agy-protocol's.
//!
//! - [`group`]: a child as the leader of its own process group that dies with its
//!   parent (`PR_SET_PDEATHSIG`), signalled and stopped by group.
//! - [`liveness`]: whether a pid is a live process of a sandbox (its environment marker).
//! - [`sweep`]: kill every process of a sandbox and wait for the kernel to report them
//!   gone (pidfd), never spinning.
//! - [`reaper`]: a child subreaper standing between the starter and a program, so a
//!   descendant that left the group (`setsid`, a double fork, a cleared marker) still
//!   dies with the program, even when the starter is SIGKILLed.
//! - [`lines`]: the one bounded line reader every crate uses on every input.
//!
//! Linux only for the marker, the pidfd waits and the subreaper; elsewhere the group
//! kill applies.

pub mod group;
pub mod lines;
pub mod liveness;
pub mod reaper;
pub mod sweep;

pub use group::{
    die_with_launcher, in_own_group, in_own_group_std, signal_group, stop_group, wait_for,
    GroupGuard, ParentDeath, Stopped,
};
pub use liveness::{is_running, marked_processes, start_time, MARKER_ENV};
pub use reaper::{reaper_main_if_requested, under_reaper, REAPER_ARG};
pub use sweep::{sweep_marked, wait_gone, wait_gone_until};
