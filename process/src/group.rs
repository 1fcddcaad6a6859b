//! Process groups: a child started as the leader of a new group, dying with its
//! parent, signalled as a group, stopped with SIGTERM, a bounded grace and SIGKILL.

use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use std::process::ExitStatus;
use std::time::Duration;
use tokio::process::{Child, Command};

/// The signal a starter sends a reaper (`reaper`) to end the whole tree at once.
pub const KILL_TREE: Signal = Signal::SIGUSR1;

/// What the kernel does to a child when the thread that started it dies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParentDeath {
    /// SIGKILL: nothing of the child outlives its parent.
    Kill,
    /// SIGTERM: the child cleans up first (the [reaper](crate::reaper) uses this).
    Term,
    /// Nothing: the child may outlive its parent (a fault switch that leaks a process).
    Survive,
}

/// Makes `cmd` start as the leader of a new process group (pgid = its pid) that gets
/// the signal of `death` when its parent dies. `kill_on_drop` stays the caller's choice.
pub fn in_own_group(cmd: &mut Command, death: ParentDeath) -> &mut Command {
    in_own_group_std(cmd.as_std_mut(), death);
    cmd
}

/// [`in_own_group`] for a blocking `std` command.
pub fn in_own_group_std(
    cmd: &mut std::process::Command,
    death: ParentDeath,
) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
    let signal = match death {
        ParentDeath::Kill => Signal::SIGKILL,
        ParentDeath::Term => Signal::SIGTERM,
        ParentDeath::Survive => return cmd,
    };
    let parent = std::process::id();
    #[allow(unsafe_code)]
    // SAFETY: the closure runs in the forked child before exec and calls only prctl(2)
    // and getppid(2), which are async-signal-safe; it allocates nothing and touches no
    // memory shared with the parent.
    unsafe {
        cmd.pre_exec(move || die_with_parent(signal, parent));
    }
    cmd
}

/// Asks for `signal` at the parent's death; refuses to start when the parent is
/// already gone (it died between fork and here, so the signal would never come).
fn die_with_parent(signal: Signal, parent: u32) -> std::io::Result<()> {
    nix::sys::prctl::set_pdeathsig(signal).map_err(std::io::Error::from)?;
    if u32::try_from(nix::unistd::getppid().as_raw()).ok() != Some(parent) {
        return Err(std::io::Error::other(
            "the parent exited before the child started",
        ));
    }
    Ok(())
}

/// When `$AGY_HARNESS_LAUNCHER_PID` is set, this process was started by a launcher
/// that cannot pass its death on by itself (Node): asks for SIGTERM when the parent
/// dies, and returns false when the parent is not that launcher any more (it died
/// before this call, so the signal would never come): the caller exits then.
pub fn die_with_launcher() -> bool {
    let Some(launcher) = std::env::var(agy_protocol::env::AGY_HARNESS_LAUNCHER_PID)
        .ok()
        .and_then(|v| v.trim().parse::<i32>().ok())
    else {
        return true;
    };
    if nix::sys::prctl::set_pdeathsig(Signal::SIGTERM).is_err() {
        return true;
    }
    nix::unistd::getppid().as_raw() == launcher
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
/// leader, then the end of the group (always, so members that ignored SIGTERM die too)
/// and the leader reaped. A leader that is a [reaper](crate::reaper) is asked to kill
/// its whole tree first (so descendants outside the group die too), then the group gets
/// SIGKILL. `pgid` is the child's pid as taken at spawn time (the handle forgets it
/// once the leader is reaped, while other members may live on).
pub async fn stop_group(
    child: &mut Child,
    pgid: Option<u32>,
    grace: Duration,
    reaper: bool,
) -> Stopped {
    let Some(pgid) = pgid.or_else(|| child.id()) else {
        return Stopped::OnTerm;
    };
    signal_group(pgid, Signal::SIGTERM);
    let how = match tokio::time::timeout(grace, child.wait()).await {
        Ok(_) => Stopped::OnTerm,
        Err(_) => Stopped::Killed,
    };
    if reaper && how == Stopped::Killed {
        if let Ok(p) = i32::try_from(pgid) {
            let _ = kill(Pid::from_raw(p), KILL_TREE);
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    }
    signal_group(pgid, Signal::SIGKILL);
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    how
}

/// Waits for `child` to exit for at most `limit`.
pub async fn wait_for(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    match tokio::time::timeout(limit, child.wait()).await {
        Ok(Ok(status)) => Some(status),
        // A wait error means the child is not ours to wait for any more: treat it as gone.
        Ok(Err(_)) => child.try_wait().ok().flatten(),
        Err(_) => None,
    }
}

/// Kills the process group when dropped, unless disarmed.
#[derive(Debug)]
pub struct GroupGuard {
    pgid: Option<Pid>,
}

impl GroupGuard {
    /// Guards the group led by `child` (its pid is the group id, see [`in_own_group`]).
    pub fn of(child: &Child) -> GroupGuard {
        GroupGuard {
            pgid: child
                .id()
                .and_then(|pid| i32::try_from(pid).ok())
                .map(Pid::from_raw),
        }
    }

    /// Sends `signal` to the whole group; a group that is already gone is not an error.
    pub fn signal(&self, signal: Signal) {
        if let Some(pgid) = self.pgid {
            let _ = killpg(pgid, signal);
        }
    }

    /// Leaves the group alone on drop (the fault switches that leak a process use this).
    pub fn disarm(&mut self) {
        self.pgid = None;
    }

    /// SIGKILLs the group and reaps the leader.
    pub async fn kill_and_reap(&self, child: &mut Child) -> Option<ExitStatus> {
        self.signal(Signal::SIGKILL);
        let _ = child.start_kill();
        child.wait().await.ok()
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.signal(Signal::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Stdio;
    use tokio::io::AsyncBufReadExt;

    #[tokio::test]
    async fn a_group_that_ignores_sigterm_is_killed_after_the_grace() {
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", "trap '' TERM; sleep 30 & echo ready; wait"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped());
        in_own_group(&mut cmd, ParentDeath::Kill);
        let mut child = cmd.spawn().expect("spawns");
        let pgid = child.id();
        // The trap is set once the shell says so.
        let mut ready = String::new();
        let stdout = child.stdout.take().expect("stdout");
        tokio::io::BufReader::new(stdout)
            .read_line(&mut ready)
            .await
            .expect("reads");
        assert_eq!(ready, "ready\n");
        let how = stop_group(&mut child, pgid, Duration::from_millis(200), false).await;
        assert_eq!(how, Stopped::Killed);
        assert!(child.try_wait().expect("waitable").is_some());
        let left = crate::liveness::group_members(pgid.expect("pid"));
        assert!(
            crate::sweep::wait_gone(&left, Duration::from_secs(5)).is_empty(),
            "members of the group still running: {left:?}"
        );
    }
}
