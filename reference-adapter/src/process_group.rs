//! agy runs in a process group of its own, so that its helpers (the language server,
//! anything a tool started) are signalled with it; a guard kills the group when dropped.

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::process::ExitStatus;
use std::time::Duration;
use tokio::process::{Child, Command};

/// Puts the command in a new process group and asks the kernel to SIGKILL it if the
/// driver dies first, so no agy outlives a driver that was itself SIGKILLed.
pub(crate) fn isolate(cmd: &mut Command, die_with_driver: bool) {
    cmd.process_group(0);
    cmd.kill_on_drop(false);
    if !die_with_driver {
        return;
    }
    #[allow(unsafe_code)]
    // SAFETY: the closure runs in the forked child before exec and only calls prctl(2),
    // which is async-signal-safe; it touches no memory shared with the parent.
    unsafe {
        cmd.pre_exec(|| {
            nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).map_err(std::io::Error::from)
        });
    }
}

/// Kills the process group when dropped, unless disarmed.
#[derive(Debug)]
pub(crate) struct GroupGuard {
    pgid: Option<Pid>,
}

impl GroupGuard {
    /// Guards the group led by `child` (its pid is the group id, see [`isolate`]).
    pub(crate) fn of(child: &Child) -> GroupGuard {
        GroupGuard {
            pgid: child
                .id()
                .and_then(|pid| i32::try_from(pid).ok())
                .map(Pid::from_raw),
        }
    }

    /// Sends `signal` to the whole group; a group that is already gone is not an error.
    pub(crate) fn signal(&self, signal: Signal) {
        if let Some(pgid) = self.pgid {
            let _ = killpg(pgid, signal);
        }
    }

    /// Leaves the group alone on drop (the fault switches that leak a process use this).
    pub(crate) fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.signal(Signal::SIGKILL);
    }
}

/// Waits for `child` to exit for at most `limit`.
pub(crate) async fn wait_for(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    match tokio::time::timeout(limit, child.wait()).await {
        Ok(Ok(status)) => Some(status),
        // A wait error means the child is not ours to wait for any more: treat it as gone.
        Ok(Err(_)) => child.try_wait().ok().flatten(),
        Err(_) => None,
    }
}

/// SIGKILLs the group and reaps the leader.
pub(crate) async fn kill_and_reap(child: &mut Child, guard: &GroupGuard) -> Option<ExitStatus> {
    guard.signal(Signal::SIGKILL);
    let _ = child.start_kill();
    child.wait().await.ok()
}
