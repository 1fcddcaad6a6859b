//! The reaper: a small process that stands between its starter and a program, as the
//! program's parent and a child subreaper (`PR_SET_CHILD_SUBREAPER`). Every descendant
//! of the program that is orphaned (a daemon's double fork, a `setsid` grandchild with
//! its environment cleared) becomes the reaper's child, so the reaper can end them all:
//!
//! - the program exits: the reaper kills what is left of its tree and exits with the
//!   program's status;
//! - the starter sends [`KILL_TREE`]: the reaper kills the whole tree and exits;
//! - the starter dies, even by SIGKILL: the reaper gets SIGTERM from the kernel
//!   (`PR_SET_PDEATHSIG`), kills the whole tree and exits.
//!
//! Any binary can host it: its `main` calls [`reaper_main_if_requested`] first, and
//! starters wrap a command with [`under_reaper`]. A SIGTERM to the group while the
//! starter lives is left to the program (it is in the reaper's group and got it too).

use super::group::{in_own_group, ParentDeath};
use super::liveness::descendants;
use nix::sys::signal::{kill, sigprocmask, SigSet, SigmaskHow, Signal};
use nix::sys::signalfd::SignalFd;
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::ffi::OsString;
use std::path::Path;

/// The first argument that makes a host binary act as the reaper:
/// `<host> __reap <program> [args…]`.
pub const REAPER_ARG: &str = "__reap";

pub use super::group::KILL_TREE;

/// The exit code when the program cannot be started (as a shell reports it).
const NOT_STARTED: i32 = 127;

/// A tokio command running `program args…` under the reaper hosted by `host`, as the
/// leader of a new process group: the reaper gets SIGTERM when its starter dies, the
/// program SIGKILL when the reaper dies.
pub fn under_reaper(host: &Path, program: &Path, args: &[String]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(host);
    cmd.arg(REAPER_ARG).arg(program).args(args);
    in_own_group(&mut cmd, ParentDeath::Term);
    cmd
}

/// When this process was started as `<host> __reap <program> [args…]`, runs the
/// reaper and returns its exit code; `None` otherwise.
pub fn reaper_main_if_requested() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != REAPER_ARG {
        return None;
    }
    let Some(program) = args.next() else {
        eprintln!("reaper: usage: {REAPER_ARG} <program> [args…]");
        return Some(NOT_STARTED);
    };
    Some(run_reaper(program, args.collect()))
}

fn run_reaper(program: OsString, args: Vec<OsString>) -> i32 {
    let starter = nix::unistd::getppid();
    if let Err(e) = nix::sys::prctl::set_child_subreaper(true) {
        eprintln!("reaper: failed to become a child subreaper: {e}");
    }
    let mut mask = SigSet::empty();
    for sig in [
        Signal::SIGCHLD,
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
        KILL_TREE,
    ] {
        mask.add(sig);
    }
    // Blocked signals are read from a signalfd; the program starts with an empty mask.
    let signals = match mask.thread_block().and_then(|()| SignalFd::new(&mask)) {
        Ok(fd) => fd,
        Err(e) => {
            eprintln!("reaper: failed to watch signals: {e}");
            return NOT_STARTED;
        }
    };
    let program_pid = match start(&program, &args) {
        Ok(pid) => pid,
        Err(e) => {
            eprintln!(
                "reaper: failed to start `{}`: {e}",
                Path::new(&program).display()
            );
            return NOT_STARTED;
        }
    };
    if nix::unistd::getppid() != starter {
        kill_tree();
        return 128 + Signal::SIGTERM as i32;
    }
    watch(&signals, program_pid, starter)
}

/// Starts the program as this process's child, in this process's group, dying with it.
fn start(program: &OsString, args: &[OsString]) -> std::io::Result<Pid> {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(program);
    cmd.args(args);
    #[allow(unsafe_code)]
    // SAFETY: the closure runs in the forked child before exec and calls only
    // sigprocmask(2) and prctl(2), which are async-signal-safe; it allocates nothing.
    unsafe {
        cmd.pre_exec(|| {
            // The reaper's blocked signals must not stay blocked in the program (a
            // blocked SIGTERM would never reach it or anything it starts).
            sigprocmask(SigmaskHow::SIG_SETMASK, Some(&SigSet::empty()), None)?;
            nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).map_err(std::io::Error::from)
        });
    }
    let child = cmd.spawn()?;
    // The reaper waits with waitpid(-1); the std handle is not needed to reap.
    i32::try_from(child.id())
        .map(Pid::from_raw)
        .map_err(std::io::Error::other)
}

/// Reads signals until the program exits or the tree is to end; returns the exit code.
fn watch(signals: &SignalFd, program: Pid, starter: Pid) -> i32 {
    loop {
        let signo = match signals.read_signal() {
            Ok(Some(info)) => info.ssi_signo as i32,
            Ok(None) | Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => {
                kill_tree();
                return NOT_STARTED;
            }
        };
        match Signal::try_from(signo) {
            Ok(Signal::SIGCHLD) => {
                if let Some(code) = reap_children(program) {
                    kill_tree();
                    return code;
                }
            }
            Ok(sig) if sig == KILL_TREE => {
                kill_tree();
                return 128 + Signal::SIGKILL as i32;
            }
            // SIGTERM, SIGINT, SIGHUP: only the starter's death is ours to act on; while
            // it lives, the signal came to the group and the program has it too.
            _ if nix::unistd::getppid() != starter => {
                kill_tree();
                return 128 + signo;
            }
            _ => {}
        }
    }
}

/// Reaps every child that has exited; the program's exit code once it has.
fn reap_children(program: Pid) -> Option<i32> {
    let mut code = None;
    loop {
        match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::Exited(pid, c)) if pid == program => code = Some(c),
            Ok(WaitStatus::Signaled(pid, sig, _)) if pid == program => {
                code = Some(128 + sig as i32)
            }
            Ok(WaitStatus::StillAlive) | Err(_) => return code,
            Ok(_) => {}
        }
    }
}

/// SIGKILLs every descendant and reaps them until this process has no child left: as a
/// subreaper, no descendant can be anywhere but below one of its children.
fn kill_tree() {
    loop {
        // Asked of the kernel first: with no child left there is nothing below this
        // process, and no `/proc` scan is needed (the usual end: the program exited
        // and started nothing that outlived it).
        match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            Err(nix::errno::Errno::ECHILD) => return,
            Ok(WaitStatus::StillAlive) | Err(_) => {}
            Ok(_) => continue,
        }
        for pid in descendants(std::process::id()) {
            if let Ok(p) = i32::try_from(pid) {
                let _ = kill(Pid::from_raw(p), Signal::SIGKILL);
            }
        }
        // Blocks in the kernel until a child ends; ECHILD once none is left.
        match waitpid(None, None) {
            Err(nix::errno::Errno::ECHILD) => return,
            Ok(_) | Err(_) => continue,
        }
    }
}
