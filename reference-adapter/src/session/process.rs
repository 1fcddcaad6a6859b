//! One persistent agy process: its stdin, its parsed stdout events, its stderr tail.

use super::filter::ProcessBaseline;
use super::selection::Selection;
use crate::environment::Environment;
use crate::failure::tail;
use crate::stderr_tail::{keep_stderr_tail, StderrTail};
use agy_process::lines::{AsyncBoundedLines, DEFAULT_LINE_CAP};
use agy_process::{in_own_group, GroupGuard, ParentDeath};
use agy_protocol::stream::{StreamEvent, UserLine};
use std::process::Stdio;
use tokio::io::{AsyncRead, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

/// One line of the process's stdout.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ProcessOutput {
    /// A stream-json event.
    Event(Box<StreamEvent>),
    /// A line that is not one (kept for the error message if the turn then fails).
    Unparsed(String),
}

/// A running persistent agy process.
#[derive(Debug)]
pub(crate) struct AgyProcess {
    pub(crate) child: Child,
    pub(crate) guard: GroupGuard,
    pub(crate) stdin: Option<ChildStdin>,
    pub(crate) output: mpsc::UnboundedReceiver<ProcessOutput>,
    pub(crate) stderr: StderrTail,
    /// What it has shown so far (for the replay filter).
    pub(crate) baseline: ProcessBaseline,
    pub(crate) pid: Option<u32>,
}

/// Reads agy's stdout under the line cap until it ends. A line the reader does not
/// take as text (not UTF-8, over the cap) is named on stderr and handed on as unparsed
/// with its located report, never converted; the lines after it are read (the one
/// policy of `agy_process::lines`).
async fn read_events<R: AsyncRead + Unpin>(stdout: R, tx: mpsc::UnboundedSender<ProcessOutput>) {
    let mut reader = AsyncBoundedLines::new(stdout, DEFAULT_LINE_CAP);
    while let Some(Ok(read)) = reader.next().await {
        let item = match read.into_text("agy stdout") {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => match StreamEvent::parse(&line) {
                // An event this adapter does not know is treated as before the types
                // kept such events: as an unparsed line.
                Ok(StreamEvent::Other(_)) | Err(_) => ProcessOutput::Unparsed(line),
                Ok(ev) => ProcessOutput::Event(Box::new(ev)),
            },
            Err(problem) => {
                eprintln!("agy-reference-adapter: {problem}");
                ProcessOutput::Unparsed(problem)
            }
        };
        if tx.send(item).is_err() {
            break;
        }
    }
}

impl AgyProcess {
    /// Starts `agy --input-format stream-json --output-format stream-json …` in the work
    /// directory, in its own process group.
    pub(crate) fn spawn(
        env: &Environment,
        selection: &Selection,
        resume: Option<&str>,
        die_with_driver: bool,
    ) -> std::io::Result<AgyProcess> {
        let _ = std::fs::create_dir_all(&env.work_dir);
        let mut cmd = Command::new(&env.agy_bin);
        cmd.args(selection.argv(&env.work_dir, resume))
            .current_dir(&env.work_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let death = if die_with_driver {
            ParentDeath::Kill
        } else {
            ParentDeath::Survive
        };
        in_own_group(&mut cmd, death).kill_on_drop(false);
        let mut child = cmd.spawn()?;
        let guard = GroupGuard::of(&child);
        let pid = child.id();
        let (tx, rx) = mpsc::unbounded_channel();
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(read_events(stdout, tx));
        }
        let stderr = keep_stderr_tail(child.stderr.take());
        Ok(AgyProcess {
            stdin: child.stdin.take(),
            child,
            guard,
            output: rx,
            stderr,
            baseline: ProcessBaseline::default(),
            pid,
        })
    }

    /// Writes one user line; an error means stdin is no longer writable.
    pub(crate) async fn send(&mut self, text: &str) -> std::io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdin closed"))?;
        stdin
            .write_all(UserLine::text(text).to_line().as_bytes())
            .await?;
        stdin.flush().await
    }

    /// True when the process has exited.
    pub(crate) fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// The last part of stderr.
    pub(crate) fn stderr_tail(&self) -> String {
        self.stderr
            .lock()
            .map(|s| tail(s.trim(), 400).to_string())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Regression: a line that is not UTF-8 was converted (U+FFFD) and kept as if agy had
    // written that text.
    #[tokio::test]
    async fn a_line_that_is_not_utf8_is_reported_and_the_lines_after_it_are_read() {
        let input: &[u8] = b"first\n\xffx\n\nthird\n";
        let (tx, mut rx) = mpsc::unbounded_channel();
        read_events(input, tx).await;
        let mut got = Vec::new();
        while let Ok(item) = rx.try_recv() {
            got.push(item);
        }
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0], ProcessOutput::Unparsed("first".into()));
        assert!(
            matches!(&got[1], ProcessOutput::Unparsed(p) if p.starts_with("agy stdout:2:1: line is not valid UTF-8 (byte 0xff;")),
            "{got:?}"
        );
        assert_eq!(got[2], ProcessOutput::Unparsed("third".into()));
    }
}
