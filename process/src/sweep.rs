//! Killing the processes of a sandbox and waiting for the kernel to report them gone:
//! each is held by a pidfd (so a reused pid is never signalled), and the wait is a
//! `poll` on those pidfds with the time left, never a spin.

use super::liveness::{marked_processes, proc_stat};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::process::{pidfd_open, pidfd_send_signal, PidfdFlags};
use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

/// A pidfd for `pid`; `None` when the process is already gone.
fn hold(pid: u32) -> Option<OwnedFd> {
    let pid = rustix::process::Pid::from_raw(i32::try_from(pid).ok()?)?;
    pidfd_open(pid, PidfdFlags::empty()).ok()
}

/// Waits until every process in `pids` has exited or `within` passes; returns the
/// pids still running then. A zombie counts as exited.
pub fn wait_gone(pids: &[u32], within: Duration) -> Vec<u32> {
    let held: Vec<(u32, OwnedFd)> = pids
        .iter()
        .filter_map(|pid| hold(*pid).map(|fd| (*pid, fd)))
        .collect();
    wait_held(held, Instant::now() + within)
}

/// [`wait_gone`] for async code: each pidfd is watched by the tokio runtime (no thread
/// blocked, no polling) until its process exits or `deadline` passes; returns the pids
/// still running then. A zombie counts as exited.
pub async fn wait_gone_until(pids: &[u32], deadline: tokio::time::Instant) -> Vec<u32> {
    use tokio::io::unix::AsyncFd;
    use tokio::io::Interest;
    let held: Vec<(u32, AsyncFd<OwnedFd>)> = pids
        .iter()
        .filter_map(|pid| {
            let fd = hold(*pid)?;
            #[allow(unsafe_code)]
            // SAFETY: the `AsyncFd` owns the `OwnedFd`, which stays open and is the
            // same descriptor for as long as it lives: nothing else can close it.
            let watched = unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) };
            watched.ok().map(|fd| (*pid, fd))
        })
        .collect();
    let mut left = Vec::new();
    // One after the other: the wait ends when the last one exits, or at the deadline,
    // after which each remaining pidfd is only checked, not waited on.
    for (pid, fd) in &held {
        if tokio::time::timeout_at(deadline, fd.readable())
            .await
            .is_err()
        {
            left.push(*pid);
        }
    }
    left
}

fn wait_held(mut held: Vec<(u32, OwnedFd)>, deadline: Instant) -> Vec<u32> {
    while !held.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        let timeout = Timespec::try_from(left).unwrap_or(Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        });
        let mut fds: Vec<PollFd<'_>> = held
            .iter()
            .map(|(_, fd)| PollFd::new(fd, PollFlags::IN))
            .collect();
        let ready = match poll(&mut fds, Some(&timeout)) {
            Ok(n) => n,
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => 0,
        };
        let exited: Vec<bool> = fds.iter().map(|f| !f.revents().is_empty()).collect();
        drop(fds);
        let mut i = 0;
        held.retain(|_| {
            i += 1;
            !exited[i - 1]
        });
        if ready == 0 && left.is_zero() {
            break;
        }
    }
    held.into_iter().map(|(pid, _)| pid).collect()
}

/// SIGKILLs every process carrying `marker` (and its group, unless it is ours), waits
/// for the kernel to report each gone, and repeats for processes started meanwhile,
/// until none is left or `within` passes; returns the pids that were found.
pub fn sweep_marked(marker: &str, within: Duration) -> Vec<u32> {
    let deadline = Instant::now() + within;
    let own_group = nix::unistd::getpgrp();
    let mut found: Vec<u32> = Vec::new();
    loop {
        let held: Vec<(u32, OwnedFd)> = marked_processes(marker)
            .into_iter()
            .filter_map(|pid| hold(pid).map(|fd| (pid, fd)))
            .collect();
        if held.is_empty() {
            return found;
        }
        for (pid, fd) in &held {
            if let Some(pgid) = proc_stat(*pid).and_then(|s| i32::try_from(s.pgid).ok()) {
                if pgid > 1 && Pid::from_raw(pgid) != own_group {
                    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
                }
            }
            let _ = pidfd_send_signal(fd, rustix::process::Signal::KILL);
            if !found.contains(pid) {
                found.push(*pid);
            }
        }
        if !wait_held(held, deadline).is_empty() || Instant::now() >= deadline {
            return found;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    #[test]
    fn a_killed_child_is_reported_gone_and_a_live_one_is_not() {
        let mut alive = std::process::Command::new("/bin/sleep")
            .arg("30")
            .spawn()
            .expect("spawns");
        let pid = alive.id();
        assert_eq!(wait_gone(&[pid], Duration::from_millis(50)), vec![pid]);
        let _ = alive.kill();
        assert!(wait_gone(&[pid], Duration::from_secs(5)).is_empty());
        let _ = alive.wait();
    }

    #[tokio::test]
    async fn the_async_wait_ends_when_the_process_exits_not_at_the_deadline() {
        let mut alive = std::process::Command::new("/bin/sleep")
            .arg("30")
            .spawn()
            .expect("spawns");
        let pid = alive.id();
        let soon = tokio::time::Instant::now() + Duration::from_millis(50);
        assert_eq!(wait_gone_until(&[pid], soon).await, vec![pid]);
        let _ = alive.kill();
        // A deadline far beyond any test timeout: only the exit can end this wait.
        let far = tokio::time::Instant::now() + Duration::from_secs(3600);
        assert!(wait_gone_until(&[pid], far).await.is_empty());
        let _ = alive.wait();
    }

    #[test]
    fn a_marked_process_outside_any_group_of_ours_is_swept() {
        let marker = format!("/sweep-test/{}", std::process::id());
        let mut child = std::process::Command::new("/bin/sh")
            .args(["-c", "sleep 30 & echo started; wait"])
            .env(crate::MARKER_ENV, &marker)
            .stdout(std::process::Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("spawns");
        // Until the shell has run, its environment is still the test's (no marker):
        // its line says it runs, and its sleep is forked.
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped");
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)
            .expect("reads");
        assert_eq!(line, "started\n");
        let found = sweep_marked(&marker, Duration::from_secs(5));
        assert!(found.contains(&child.id()), "{found:?}");
        assert!(marked_processes(&marker).is_empty());
        let _ = child.wait();
    }
}
