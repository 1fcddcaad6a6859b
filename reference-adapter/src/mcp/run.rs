//! One agy print run for one tool call: spawned in its own process group, waited for
//! up to the call's timeout plus the kill grace, then its group killed.

use crate::environment::Environment;
use crate::faults::{Fault, FaultSet};
use crate::oneshot::KILL_GRACE_S;
use crate::pipes::read_capped;
use agy_process::{in_own_group, wait_for, GroupGuard, ParentDeath};
use std::ffi::OsString;
use std::process::Stdio;
use tokio::process::Command;

/// The timeout of a call that gives none, in seconds (ADR 0013's default).
pub const DEFAULT_TIMEOUT_S: f64 = 600.0;
/// stdout and stderr kept of one run.
const OUTPUT_CAP: u64 = 4 * 1024 * 1024;

/// One tool call, as the server reads its arguments.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolRequest {
    /// The prompt.
    pub prompt: String,
    /// `--model`.
    pub model: Option<String>,
    /// The agy conversation to continue (`--conversation`).
    pub conversation_id: Option<String>,
    /// Seconds before agy's print timeout; the run is killed `KILL_GRACE_S` later.
    pub timeout_s: f64,
}

/// What one run came to.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AgyRun {
    /// The exit code; `None` when a signal ended it (or it was killed).
    pub exit_code: Option<i32>,
    /// stdout as text.
    pub stdout: String,
    /// stderr as text.
    pub stderr: String,
    /// The run did not finish within the timeout plus the grace, and was stopped.
    pub killed: bool,
    /// agy could not be started: why.
    pub not_started: Option<String>,
}

/// agy's argv for `req`.
pub fn argv(req: &ToolRequest, faults: &FaultSet) -> Vec<OsString> {
    let mut argv: Vec<OsString> = vec![
        "-p".into(),
        req.prompt.clone().into(),
        "--output-format".into(),
        "json".into(),
        "--print-timeout".into(),
        format!("{}s", req.timeout_s).into(),
    ];
    if let Some(model) = req
        .model
        .as_ref()
        .filter(|_| !faults.has(Fault::McpDropsModel))
    {
        argv.extend(["--model".into(), model.into()]);
    }
    if let Some(id) = &req.conversation_id {
        argv.extend(["--conversation".into(), id.into()]);
    }
    // A host's prompt is text for the model: without the flag (agy 1.1.9 on, §1.2) agy
    // would run one starting with `/` as its own slash command. Passed only then, so an
    // agy older than the flag still takes every other prompt.
    if req.prompt.starts_with('/') && !faults.has(Fault::McpRunsSlashPrompts) {
        argv.push("--disable-slash-commands".into());
    }
    argv
}

/// Runs agy once for `req`.
pub async fn run_agy(env: &Environment, faults: &FaultSet, req: &ToolRequest) -> AgyRun {
    let mut cmd = Command::new(&env.agy_bin);
    cmd.args(argv(req, faults))
        .current_dir(&env.work_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    in_own_group(&mut cmd, ParentDeath::Kill).kill_on_drop(false);
    let _ = std::fs::create_dir_all(&env.work_dir);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return AgyRun {
                not_started: Some(format!("failed to start `{}`: {e}", env.agy_bin.display())),
                ..AgyRun::default()
            }
        }
    };
    let mut guard = GroupGuard::of(&child);
    let stdout = tokio::spawn(read_capped(child.stdout.take(), OUTPUT_CAP));
    let stderr = tokio::spawn(read_capped(child.stderr.take(), OUTPUT_CAP));
    let status = if faults.has(Fault::McpNoTimeout) {
        child.wait().await.ok()
    } else {
        wait_for(&mut child, env.scaled(req.timeout_s + KILL_GRACE_S)).await
    };
    let Some(status) = status else {
        if faults.has(Fault::McpKillsPidOnly) {
            // The bug: SIGTERM to agy's pid alone, and no wait for it to go.
            guard.disarm();
            if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGTERM,
                );
            }
        } else if faults.has(Fault::McpKillsOnlyAgyPid) {
            // The bug: SIGKILL to agy's pid alone; what agy started in its group stays.
            guard.disarm();
            let _ = child.kill().await;
        } else {
            guard.kill_and_reap(&mut child).await;
        }
        stdout.abort();
        stderr.abort();
        return AgyRun {
            killed: true,
            ..AgyRun::default()
        };
    };
    drop(guard);
    let drain = env.scaled(5.0);
    let text = |t: Result<Result<String, _>, _>| t.ok().and_then(Result::ok).unwrap_or_default();
    AgyRun {
        exit_code: status.code(),
        stdout: text(tokio::time::timeout(drain, stdout).await),
        stderr: text(tokio::time::timeout(drain, stderr).await),
        killed: false,
        not_started: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> ToolRequest {
        ToolRequest {
            prompt: "hi".into(),
            model: Some("m".into()),
            conversation_id: Some("c".into()),
            timeout_s: 5.0,
        }
    }

    #[test]
    fn the_argv_carries_the_prompt_model_conversation_and_timeout() {
        let a: Vec<String> = argv(&req(), &FaultSet::none())
            .into_iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            a,
            [
                "-p",
                "hi",
                "--output-format",
                "json",
                "--print-timeout",
                "5s",
                "--model",
                "m",
                "--conversation",
                "c"
            ]
        );
    }

    #[test]
    fn drops_model_leaves_the_model_out() {
        let a = argv(&req(), &FaultSet::of([Fault::McpDropsModel]));
        assert!(!a.iter().any(|s| s == "--model"));
    }

    #[test]
    fn a_slash_prompt_is_sent_as_text_unless_the_fault_runs_it() {
        let slash = ToolRequest {
            prompt: "/clear".into(),
            ..req()
        };
        let flag = |faults: &FaultSet| {
            argv(&slash, faults)
                .iter()
                .any(|a| a == "--disable-slash-commands")
        };
        assert!(flag(&FaultSet::none()));
        assert!(!flag(&FaultSet::of([Fault::McpRunsSlashPrompts])));
        assert!(!argv(&req(), &FaultSet::none())
            .iter()
            .any(|a| a == "--disable-slash-commands"));
    }
}
