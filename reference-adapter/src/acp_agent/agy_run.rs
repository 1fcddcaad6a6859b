//! One agy print run for one prompt: `agy -p TEXT --output-format json`, continuing the
//! session's conversation with `--conversation`. The result is taken as soon as stdout
//! holds a whole envelope; agy is then given a short grace to exit and its process
//! group is killed after it, so a slow exit never turns a finished turn into an error.
//! A client cancel kills the group at once.

use super::answer::AgyRun;
use crate::environment::Environment;
use crate::faults::{Fault, FaultSet};
use crate::pipes::read_capped;
use agy_process::lines::{AsyncBoundedLines, DEFAULT_LINE_CAP};
use agy_process::{in_own_group, wait_for, GroupGuard, ParentDeath};
use agy_protocol::Envelope;
use std::path::Path;
use std::process::Stdio;
use tokio::io::AsyncRead;
use tokio::process::{Child, Command};
use tokio::sync::oneshot;

/// Seconds agy has to exit after its result before its group is killed.
const EXIT_GRACE_S: f64 = 2.0;
/// The faulty wait for agy's exit after its result (`agent-slow-exit-is-error`).
const FAULTY_EXIT_WAIT_S: f64 = 1.0;
/// stderr kept for messages.
const STDERR_CAP: u64 = 64 * 1024;
/// The faulty deadline for agy's first output (`agent-first-text-deadline`).
const FAULTY_FIRST_TEXT_S: f64 = 60.0;

/// The argv of a prompt's run.
pub fn argv(text: &str, conversation: Option<&str>) -> Vec<String> {
    let mut argv = vec![
        "-p".to_string(),
        text.to_string(),
        "--output-format".to_string(),
        "json".to_string(),
    ];
    if let Some(id) = conversation {
        argv.push("--conversation".to_string());
        argv.push(id.to_string());
    }
    argv
}

/// The argv of a prompt's run as the faulty agent builds it
/// (`agent-continues-latest-conversation`): a later prompt passes `--continue`, which
/// resumes the workspace's most recent conversation, whichever session made it.
pub fn argv_continuing_latest(text: &str, later: bool) -> Vec<String> {
    let mut argv = argv(text, None);
    if later {
        argv.push("--continue".to_string());
    }
    argv
}

/// The model id a prompt's text names, as the faulty agent reads it
/// (`agent-model-from-prompt-text`): the first word starting `gemini-`.
pub fn model_named_in(text: &str) -> Option<String> {
    text.split_whitespace()
        .find(|w| w.starts_with("gemini-"))
        .map(str::to_string)
}

/// Reads stdout until it holds a whole envelope (printed on one line or several) or
/// ends.
async fn read_envelope<R: AsyncRead + Unpin>(stdout: R) -> Result<Envelope, String> {
    let mut lines = AsyncBoundedLines::new(stdout, DEFAULT_LINE_CAP);
    let mut text = String::new();
    while let Some(Ok(item)) = lines.next().await {
        if let Ok(line) = item.into_text("agy stdout") {
            text.push_str(&line);
            text.push('\n');
            if let Ok(env) = Envelope::parse(text.trim()) {
                return Ok(env);
            }
        }
    }
    if text.trim().is_empty() {
        Err("stdout is empty".to_string())
    } else {
        Err(format!("stdout is not an envelope: {:?}", text.trim()))
    }
}

fn spawn(env: &Environment, cwd: &Path, argv: &[String]) -> std::io::Result<Child> {
    let mut cmd = Command::new(&env.agy_bin);
    cmd.args(argv)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    in_own_group(&mut cmd, ParentDeath::Kill).kill_on_drop(false);
    cmd.spawn()
}

/// A run that produced no result.
fn failed_run(why: String, stderr: String, client_cancelled: bool) -> AgyRun {
    AgyRun {
        envelope: Err(why),
        exit_code: None,
        stderr,
        client_cancelled,
    }
}

/// Never resolves, unless the faulty deadline for agy's first output is switched on.
async fn first_text_deadline(env: &Environment, faults: &FaultSet) {
    if faults.has(Fault::AgentFirstTextDeadline) {
        // The bug: json mode prints its only line when the turn ends, however long.
        tokio::time::sleep(env.scaled(FAULTY_FIRST_TEXT_S)).await;
    } else {
        std::future::pending::<()>().await;
    }
}

/// Runs agy for one prompt in the session's folder `cwd` (agy's workspace is its
/// working directory); `cancel` resolving kills it and marks the run cancelled.
pub async fn run(
    env: &Environment,
    faults: &FaultSet,
    (cwd, argv): (&Path, &[String]),
    cancel: oneshot::Receiver<()>,
) -> AgyRun {
    let mut child = match spawn(env, cwd, argv) {
        Ok(c) => c,
        Err(e) => {
            let why = format!(
                "failed to start `{}` in {}: {e}",
                env.agy_bin.display(),
                cwd.display()
            );
            return failed_run(why, String::new(), false);
        }
    };
    let guard = GroupGuard::of(&child);
    let stderr_task = tokio::spawn(read_capped(child.stderr.take(), STDERR_CAP));
    let stdout = child.stdout.take();
    let read = async {
        match stdout {
            Some(s) => read_envelope(s).await,
            None => Err("no stdout".to_string()),
        }
    };
    let envelope = tokio::select! {
        env = read => env,
        _ = first_text_deadline(env, faults) => {
            guard.kill_and_reap(&mut child).await;
            stderr_task.abort();
            let why = format!("timeout: agy printed nothing within {FAULTY_FIRST_TEXT_S}s");
            return failed_run(why, String::new(), false);
        }
        _ = cancel => {
            guard.kill_and_reap(&mut child).await;
            stderr_task.abort();
            return failed_run("cancelled by the client".into(), String::new(), true);
        }
    };
    let grace = if faults.has(Fault::AgentSlowExitIsError) {
        FAULTY_EXIT_WAIT_S
    } else {
        EXIT_GRACE_S
    };
    let status = wait_for(&mut child, env.scaled(grace)).await;
    if status.is_none() {
        guard.kill_and_reap(&mut child).await;
    }
    drop(guard);
    let stderr = tokio::time::timeout(env.scaled(grace), stderr_task)
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let exit_code = match status {
        Some(s) => s.code(),
        // The result is in; agy only lingered. The faulty wait reports it as failed.
        None if faults.has(Fault::AgentSlowExitIsError) => {
            return AgyRun {
                envelope: Err(format!(
                    "agy did not exit within {FAULTY_EXIT_WAIT_S}s after its result"
                )),
                exit_code: None,
                stderr,
                client_cancelled: false,
            }
        }
        None => Some(0),
    };
    AgyRun {
        envelope,
        exit_code,
        stderr,
        client_cancelled: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_continued_conversation_is_named_with_conversation() {
        assert_eq!(argv("hi", None), ["-p", "hi", "--output-format", "json"]);
        assert_eq!(
            argv("hi", Some("c1"))[4..],
            ["--conversation".to_string(), "c1".to_string()]
        );
    }

    #[test]
    fn the_faulty_reading_finds_a_model_named_in_the_text() {
        assert_eq!(
            model_named_in("Is gemini-3.8-pro better than gemini-3.8-flash?").as_deref(),
            Some("gemini-3.8-pro")
        );
        assert_eq!(model_named_in("which model are you?"), None);
    }

    #[tokio::test]
    async fn an_envelope_over_several_lines_is_read_whole() {
        let text = concat!(
            "{\n\"conversation_id\": \"c\",\n\"status\": \"SUCCESS\",\n\"response\": \"hi\",\n",
            "\"duration_seconds\": 1, \"num_turns\": 1, \"usage\": {\"input_tokens\": 1,\n",
            "\"output_tokens\": 1, \"thinking_tokens\": 0, \"cache_read_tokens\": 0, \"total_tokens\": 2}\n",
            "}\nlater noise\n"
        );
        let env = read_envelope(text.as_bytes()).await.expect("envelope");
        assert_eq!(env.response, "hi");
        assert!(read_envelope(&b""[..]).await.is_err());
    }
}
