//! No orphans: children started as leaders of their own process group, stopped by
//! group (SIGTERM, bounded grace, SIGKILL), and a sweep that finds every descendant
//! that left the group (a new session, a double fork) by an environment marker.
//!
//! Reusable by any part of the harness that starts processes (scenario runs, spikes).
//! The sweep reads `/proc/<pid>/environ`, so it works on Linux; elsewhere only the
//! group kill applies.

use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use std::time::{Duration, Instant};
use tokio::process::{Child, Command};

/// The environment variable every process of a sandbox inherits; its value is the
/// sandbox path, so [`sweep_marked`] can find strays of exactly that sandbox.
pub use agy_protocol::env::AGY_HARNESS_SANDBOX as MARKER_ENV;

/// Makes `cmd` start as the leader of a new process group (pgid = its pid) and be
/// killed if its handle is dropped.
pub fn in_own_group(cmd: &mut Command) -> &mut Command {
    cmd.process_group(0).kill_on_drop(true)
}

/// Sends `sig` to every process of group `pgid`; false when the group is gone.
pub fn signal_group(pgid: u32, sig: Signal) -> bool {
    i32::try_from(pgid)
        .ok()
        .filter(|p| *p > 1)
        .map(|p| killpg(Pid::from_raw(p), sig).is_ok())
        .unwrap_or(false)
}

/// How a group stop went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// The leader exited within the grace after SIGTERM.
    OnTerm,
    /// The grace ran out; the group got SIGKILL.
    Killed,
}

/// Stops the group led by `child`: SIGTERM to the group, wait up to `grace` for the
/// leader, then SIGKILL to the group (always, so members that ignored SIGTERM die too)
/// and reap the leader.
/// `pgid` is the child's pid as taken at spawn time (the handle forgets it once the
/// leader is reaped, while other members may live on).
pub async fn stop_group(child: &mut Child, pgid: Option<u32>, grace: Duration) -> Stopped {
    let Some(pgid) = pgid.or_else(|| child.id()) else {
        return Stopped::OnTerm;
    };
    signal_group(pgid, Signal::SIGTERM);
    let how = match tokio::time::timeout(grace, child.wait()).await {
        Ok(_) => Stopped::OnTerm,
        Err(_) => Stopped::Killed,
    };
    signal_group(pgid, Signal::SIGKILL);
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    how
}

/// True when `pid` is a live process (not a zombie); with `marker`, only when it also
/// carries the sandbox marker (so a reused pid is not mistaken for ours).
pub fn is_running(pid: u32, marker: Option<&str>) -> bool {
    let stat = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => s,
        Err(_) => {
            // No procfs: fall back to signal 0.
            return !std::path::Path::new("/proc/self").exists()
                && i32::try_from(pid)
                    .map(|p| kill(Pid::from_raw(p), None).is_ok())
                    .unwrap_or(false);
        }
    };
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next());
    if matches!(state, Some('Z') | Some('X') | None) {
        return false;
    }
    match marker {
        Some(m) => has_marker(pid, m),
        None => true,
    }
}

fn has_marker(pid: u32, marker: &str) -> bool {
    let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let needle = format!("{MARKER_ENV}={marker}");
    env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes())
}

/// Every live process carrying `marker`, except this one.
pub fn marked_processes(marker: &str) -> Vec<u32> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .filter(|pid| *pid != me && is_running(*pid, Some(marker)))
        .collect()
}

/// SIGKILLs every process carrying `marker` (and its group), until none is left or
/// `within` passes; returns the pids that were found.
pub fn sweep_marked(marker: &str, within: Duration) -> Vec<u32> {
    let deadline = Instant::now() + within;
    let mut found = Vec::new();
    loop {
        let live = marked_processes(marker);
        if live.is_empty() {
            return found;
        }
        for pid in &live {
            if let Ok(p) = i32::try_from(*pid) {
                if let Ok(pgid) = nix::unistd::getpgid(Some(Pid::from_raw(p))) {
                    // Never our own group.
                    if pgid != nix::unistd::getpgrp() {
                        let _ = killpg(pgid, Signal::SIGKILL);
                    }
                }
                let _ = kill(Pid::from_raw(p), Signal::SIGKILL);
            }
            if !found.contains(pid) {
                found.push(*pid);
            }
        }
        if Instant::now() >= deadline {
            return found;
        }
        std::thread::yield_now();
    }
}
