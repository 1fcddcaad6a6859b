//! Running fake-agy's default behaviour (no script rules) the way a capture ran agy: same
//! argv, same stdin lines, `FAKE_AGY_VERSION` = the capture's version, a sandbox `HOME`,
//! and the capture's model decisions as the script's `[[model]]` layer.

use crate::launch::Launch;
use crate::sandbox::Sandbox;
use agy_process::{signal_group, stop_group};
use agy_protocol::capture::{Capture, CaptureKind, HostSignal};
use agy_protocol::env::{
    FAKE_AGY_CALIBRATION, FAKE_AGY_QUOTA_EXHAUSTED, FAKE_AGY_SCRIPT, FAKE_AGY_SIGNED_OUT,
    FAKE_AGY_VERSION,
};
use agy_protocol::script::{render_script, ModelTurn, Script};
use nix::sys::signal::Signal;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How long one run may take before it is stopped (at the default time scale a default
/// turn takes well under a second).
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// Why fake-agy could not be run the way a capture ran agy: the kit's own failure,
/// not a difference from the capture.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The sandbox folder could not be made.
    #[error("failed to make a sandbox: {0}")]
    Sandbox(#[source] std::io::Error),
    /// The launcher refused to start fake-agy.
    #[error(transparent)]
    Launch(crate::launch::LaunchError),
    /// The capture's model decisions could not be rendered as a script.
    #[error("failed to render the model decisions: {0}")]
    Decisions(#[source] toml::ser::Error),
    /// The capture's host settings could not be rendered.
    #[error("failed to render the settings of `{capture}`: {source}")]
    Settings {
        /// The capture's id.
        capture: String,
        /// The serialiser's reason.
        source: serde_json::Error,
    },
    /// A file the run needs could not be written.
    #[error("failed to write `{path}`: {source}")]
    Write {
        /// The file.
        path: String,
        /// The system's reason.
        source: std::io::Error,
    },
    /// fake-agy did not start.
    #[error("failed to start fake-agy{context}: {source}")]
    Start {
        /// `""`, or ` for the earlier turn`.
        context: &'static str,
        /// The system's reason.
        source: std::io::Error,
    },
    /// fake-agy ran past the limit and was stopped.
    #[error("fake-agy did not finish within {0}s")]
    TooLong(u64),
    /// The earlier turn a resumed capture needs gave no conversation to resume.
    #[error("the earlier turn {0}")]
    EarlierTurn(String),
}

/// What fake-agy did.
#[derive(Debug, Clone, Default)]
pub struct RunOutput {
    /// stdout bytes.
    pub stdout: Vec<u8>,
    /// stderr bytes.
    pub stderr: Vec<u8>,
    /// Exit code; `None` when it died by a signal or was stopped.
    pub exit: Option<i32>,
    /// The file `--log-file` named, when fake-agy wrote it.
    pub log: Option<Vec<u8>>,
}

/// How every capture's fake-agy runs: the binary, the calibration it presents as agy
/// (`None`: the built-in one of the capture's version), the time scale.
#[derive(Debug, Clone, Copy)]
pub struct RunWith<'a> {
    /// The fake-agy binary.
    pub fake: &'a Path,
    /// An absolute calibration file, given as `FAKE_AGY_CALIBRATION`.
    pub calibration: Option<&'a Path>,
    /// fake-agy's delay factor.
    pub time_scale: agy_protocol::TimeScale,
}

/// Runs the fake with the capture's argv (which must be known) and stdin lines, giving
/// it the capture's model decisions (`[[model]]`) when there are any.
pub async fn run_default(
    with: &RunWith<'_>,
    capture: &Capture,
    argv: &[String],
    decisions: &[ModelTurn],
) -> Result<RunOutput, RunError> {
    let sandbox = Sandbox::create(Some(with.fake)).map_err(RunError::Sandbox)?;
    let mut env = sandbox.env(None, with.time_scale.get());
    if let Some(v) = capture.version() {
        env.push((FAKE_AGY_VERSION.into(), v.to_string()));
    }
    if let Some(file) = with.calibration {
        env.push((FAKE_AGY_CALIBRATION.into(), file.display().to_string()));
    }
    give_host(&sandbox, capture, &mut env)?;
    let mut argv = argv.to_vec();
    if capture.host.as_ref().is_some_and(|h| h.resumes) {
        let earlier = earlier_turn(&sandbox, &env).await?;
        argv = with_conversation(&argv, &earlier);
    }
    let log = sandbox.root().join("agy.log");
    if !decisions.is_empty() {
        let path = sandbox.root().join("model-decisions.toml");
        write_decisions(&path, decisions)?;
        env.push((FAKE_AGY_SCRIPT.into(), path.display().to_string()));
    }
    let mut command = vec![sandbox.bin().join("agy").display().to_string()];
    command.extend(sandboxed_args(&argv, &log));
    let (mut cmd, _) = Launch::in_sandbox(&sandbox, &command)
        .map(|l| l.sandbox_env(&env).unreaped())
        .and_then(|l| l.command())
        .map_err(RunError::Launch)?;
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|source| RunError::Start {
        context: "",
        source,
    })?;
    let pgid = child.id();
    let (stdin, mut stdout, mut stderr) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let feed = feed_stdin(stdin, stdin_lines(capture, decisions.len()));
    let interrupt = capture.host.as_ref().and_then(|h| h.interrupt);
    let read = |pipe: Option<tokio::process::ChildStdout>| async move {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            read_interrupting(&mut p, &mut buf, interrupt.zip(pgid)).await;
        }
        buf
    };
    let run = async {
        let ((), out, err, status) = tokio::join!(
            feed,
            read(stdout.take()),
            read_stderr(stderr.take()),
            child.wait()
        );
        (out, err, status)
    };
    match tokio::time::timeout(RUN_LIMIT, run).await {
        Ok((out, err, status)) => Ok(RunOutput {
            stdout: out,
            stderr: err,
            exit: status.ok().and_then(|s| s.code()),
            log: read_log(&log),
        }),
        Err(_) => {
            stop_group(&mut child, pgid, Duration::from_secs(1), false).await;
            Err(RunError::TooLong(RUN_LIMIT.as_secs()))
        }
    }
}

/// Writes `lines` to the run's stdin, then closes it.
async fn feed_stdin(mut stdin: Option<tokio::process::ChildStdin>, lines: Vec<String>) {
    if let Some(pipe) = stdin.as_mut() {
        for line in lines {
            // A run that ends before reading stdin closes it; that is not an error.
            if pipe
                .write_all(format!("{line}\n").as_bytes())
                .await
                .is_err()
            {
                break;
            }
        }
    }
    drop(stdin);
}

/// Everything the run writes to stderr.
async fn read_stderr(pipe: Option<tokio::process::ChildStderr>) -> Vec<u8> {
    let mut buf = Vec::new();
    if let Some(mut p) = pipe {
        let _ = p.read_to_end(&mut buf).await;
    }
    buf
}

/// The `--log-file` fake-agy wrote, bounded like a capture's file; `None` when there is
/// none.
fn read_log(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let mut out = Vec::new();
    file.take(agy_protocol::capture::MAX_CAPTURE_FILE_BYTES)
        .read_to_end(&mut out)
        .ok()?;
    Some(out)
}

/// The user lines to feed: the capture's, or, for a persistent run whose record did not
/// keep them, one line per decided turn (the user's words are not compared; without a
/// line no turn would run).
fn stdin_lines(capture: &Capture, decided_turns: usize) -> Vec<String> {
    if capture.stdin.get().is_some() || capture.kind != CaptureKind::Persistent {
        return capture.stdin_lines().to_vec();
    }
    let line = r#"{"event":"user","message":{"role":"user","content":"(not recorded)"}}"#;
    vec![line.to_string(); decided_turns]
}

/// Writes the decisions as a script of `[[model]]` turns only (every invocation runs
/// the default behaviour, which renders them).
fn write_decisions(path: &Path, decisions: &[ModelTurn]) -> Result<(), RunError> {
    let script = Script {
        model: decisions.to_vec(),
        ..Script::default()
    };
    let text = render_script(&script).map_err(RunError::Decisions)?;
    std::fs::write(path, text).map_err(|source| RunError::Write {
        path: path.display().to_string(),
        source,
    })
}

/// Reads stdout to its end; with a signal, sends it to the run's process group once a
/// tool step shows ACTIVE (where the capture's run got it: corpus `host.interrupt`).
async fn read_interrupting(
    pipe: &mut tokio::process::ChildStdout,
    buf: &mut Vec<u8>,
    mut interrupt: Option<(HostSignal, u32)>,
) {
    let mut chunk = [0u8; 8192];
    loop {
        let n = match pipe.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        buf.extend_from_slice(&chunk[..n]);
        if let Some((signal, pgid)) = interrupt {
            if buf.split(|b| *b == b'\n').any(is_tool_active) {
                let signal = match signal {
                    HostSignal::Int => Signal::SIGINT,
                    HostSignal::Term => Signal::SIGTERM,
                };
                signal_group(pgid, signal);
                interrupt = None;
            }
        }
    }
}

/// True for a complete `step_update` line of a tool step in ACTIVE.
fn is_tool_active(line: &[u8]) -> bool {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
        return false;
    };
    let step = &v["step_update"];
    step["step_type"] == "tool" && step["state"] == "ACTIVE"
}

/// Gives fake-agy what the capture's host had and agy's output does not show: its
/// `settings.json` (in the sandbox's agy data directory) and a missing sign-in.
fn give_host(
    sandbox: &Sandbox,
    capture: &Capture,
    env: &mut Vec<(String, String)>,
) -> Result<(), RunError> {
    let Some(host) = &capture.host else {
        return Ok(());
    };
    if host.signed_out {
        env.push((FAKE_AGY_SIGNED_OUT.into(), "1".into()));
    }
    if host.quota_exhausted {
        env.push((FAKE_AGY_QUOTA_EXHAUSTED.into(), "1".into()));
    }
    if let Some(secs) = host.model_seconds {
        let d = format!("{secs}s");
        env.push((agy_protocol::env::FAKE_AGY_TURN_DURATION.into(), d.clone()));
        env.push((agy_protocol::env::FAKE_AGY_IMAGE_DURATION.into(), d));
    }
    if let Some(settings) = &host.settings {
        let dir = sandbox.home().join(".gemini").join("antigravity-cli");
        let text = serde_json::to_string_pretty(settings).map_err(|source| RunError::Settings {
            capture: capture.id.clone(),
            source,
        })?;
        let path = dir.join("settings.json");
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|source| RunError::Write {
                path: path.display().to_string(),
                source,
            })?;
    }
    Ok(())
}

/// Runs one earlier print turn in the sandbox's workspace, so the capture's run has a
/// conversation to resume (`host.resumes`); returns its id.
async fn earlier_turn(sandbox: &Sandbox, env: &[(String, String)]) -> Result<String, RunError> {
    let mut command = vec![sandbox.bin().join("agy").display().to_string()];
    command.extend(["-p", "an earlier turn", "--output-format", "json"].map(str::to_string));
    let (mut cmd, _) = Launch::in_sandbox(sandbox, &command)
        .map(|l| l.sandbox_env(env).unreaped())
        .and_then(|l| l.command())
        .map_err(RunError::Launch)?;
    let out = cmd.stdin(Stdio::null()).output();
    let out = tokio::time::timeout(RUN_LIMIT, out)
        .await
        .map_err(|_| RunError::EarlierTurn("did not finish".into()))?
        .map_err(|source| RunError::Start {
            context: " for the earlier turn",
            source,
        })?;
    let envelope: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| RunError::EarlierTurn(format!("printed no envelope: {e}")))?;
    envelope
        .get("conversation_id")
        .and_then(|v| v.as_str())
        .filter(|id| !id.is_empty())
        .map(String::from)
        .ok_or_else(|| RunError::EarlierTurn("has no conversation id".into()))
}

/// The capture's `--conversation <id>` pointed at `id` (ids are placeholders in the
/// comparison; the sandbox's conversation has its own).
fn with_conversation(argv: &[String], id: &str) -> Vec<String> {
    let mut out = Vec::with_capacity(argv.len());
    let mut next_is_id = false;
    for a in argv {
        if next_is_id {
            out.push(id.to_string());
            next_is_id = false;
        } else if a == "--conversation" {
            out.push(a.clone());
            next_is_id = true;
        } else if a.starts_with("--conversation=") {
            out.push(format!("--conversation={id}"));
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// The capture's arguments (without the program name) with `--log-file` pointed inside
/// the sandbox, so nothing is written where the capture's author wrote.
fn sandboxed_args(argv: &[String], log: &Path) -> Vec<String> {
    let log = log.display().to_string();
    let mut out = Vec::with_capacity(argv.len());
    let mut args = argv.iter().skip(1);
    while let Some(a) = args.next() {
        if a == "--log-file" {
            out.push(a.clone());
            if args.next().is_some() {
                out.push(log.clone());
            }
        } else if a.starts_with("--log-file=") {
            out.push(format!("--log-file={log}"));
        } else {
            out.push(a.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resumed_run_names_the_sandbox_conversation() {
        let argv: Vec<String> = [
            "agy",
            "--conversation",
            "b767",
            "-p",
            "x",
            "--conversation=c1",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            with_conversation(&argv, "new"),
            [
                "agy",
                "--conversation",
                "new",
                "-p",
                "x",
                "--conversation=new"
            ]
        );
    }

    #[test]
    fn log_file_paths_move_into_the_sandbox() {
        let argv: Vec<String> = [
            "agy",
            "-p",
            "x",
            "--log-file",
            "/home/u/agy.log",
            "--log-file=/a",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            sandboxed_args(&argv, Path::new("/s/agy.log")),
            vec![
                "-p",
                "x",
                "--log-file",
                "/s/agy.log",
                "--log-file=/s/agy.log"
            ]
        );
    }
}
