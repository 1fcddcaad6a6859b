//! Child processes a run starts for scripted tool runs (`tool_child`): each is this
//! binary again, in agy's own process group (a plain fork and exec does not change the
//! group), with no stdio of agy's, standing for a shell command or an MCP server. Its
//! pid is journalled at once, so a judge can name it even after agy was killed.
//!
//! A child of the turn is ended (SIGKILL, then reaped) when the turn ends and when the
//! process exits normally; one that `outlives` is left running, like a backgrounded
//! command. A run that dies by a signal leaves every child: only a kill of agy's whole
//! process group (or the harness's sweep) reaches them. What real agy does with its
//! tools' processes when it ends is not recorded (docs/fake-agy.md, "Tool children").

use crate::error::FakeError;
use crate::io::recorder::Recorder;
use agy_protocol::env::FAKE_AGY_TOOL_CHILD;
use agy_protocol::journal::{now_us, ChildRecord};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

/// The children of the current turn, ended when it ends.
static TURN_CHILDREN: Mutex<Vec<Child>> = Mutex::new(Vec::new());

/// What to start.
#[derive(Debug, Clone)]
pub struct ChildPlan {
    /// What it stands for (journalled, and its `argv[0]`).
    pub label: String,
    /// Left running when the turn and the run end.
    pub outlives: bool,
    /// The longest it lives if nothing kills it (already time-scaled).
    pub lasts: Duration,
}

/// Starts a child in this process's group and journals it; returns its pid.
pub fn start_child(recorder: &Recorder, plan: &ChildPlan) -> Result<u32, FakeError> {
    let exe = std::env::current_exe()
        .map_err(|e| FakeError::Step(format!("failed to find fake-agy's own binary: {e}")))?;
    let child = Command::new(&exe)
        .arg0(&plan.label)
        .env(FAKE_AGY_TOOL_CHILD, plan.lasts.as_millis().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            FakeError::Step(format!(
                "failed to start the tool child `{}` ({}): {e}",
                plan.label,
                exe.display()
            ))
        })?;
    // `spawn` can return while the exec is still under way (its `/proc` entry then
    // shows no environment, so no sandbox marker): the child's first byte says it runs.
    let mut child = child;
    if let Some(mut ready) = child.stdout.take() {
        let mut byte = [0u8; 1];
        let _ = std::io::Read::read(&mut ready, &mut byte);
    }
    let pid = child.id();
    recorder.child(ChildRecord {
        pid,
        label: plan.label.clone(),
        started_us: now_us(),
        outlives: plan.outlives,
    });
    if !plan.outlives {
        if let Ok(mut children) = TURN_CHILDREN.lock() {
            children.push(child);
        }
    }
    // An outliving child is not waited for: it is reaped by whoever adopts it.
    Ok(pid)
}

/// Ends the current turn's children: SIGKILL, then reaped.
pub fn end_turn_children() {
    let children = match TURN_CHILDREN.lock() {
        Ok(mut c) => std::mem::take(&mut *c),
        Err(_) => return,
    };
    for mut child in children {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Points fd 1 at `/dev/null`, so the child holds no pipe of agy's.
fn close_stdout() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(&null);
    }
}

/// The tool child's own life, when this process is one (`FAKE_AGY_TOOL_CHILD` set):
/// it waits until killed, at most the given milliseconds, and returns true.
pub fn act_as_tool_child(value: Option<String>) -> bool {
    let Some(value) = value else {
        return false;
    };
    let ms = value.trim().parse::<u64>().unwrap_or(0);
    // Tell the parent the exec is over, then give up the pipe (agy reads no more).
    {
        use std::io::Write;
        let mut out = std::io::stdout();
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    }
    close_stdout();
    // Parked, not sleeping in a loop: a signal ends it, and a spurious wake-up only
    // parks again until the deadline.
    let deadline = std::time::Instant::now() + Duration::from_millis(ms);
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
        if left.is_zero() {
            break;
        }
        std::thread::park_timeout(left);
    }
    true
}
