//! The agent's stdio as the SDK's line transport when a fault must write a line of its
//! own (`agent-answers-cancel-notification`): what the SDK sends and what the fault
//! adds go through one writer, so lines never interleave. Without the fault the agent
//! uses the SDK's own stdio transport.

use agent_client_protocol::Lines;
use futures::channel::mpsc;
use futures::{Sink, SinkExt, Stream, StreamExt};
use std::io;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The response the faulty agent sends to a notification: it has no id to answer, so
/// it answers with `null` (JSON-RPC's id for a request it could not read).
pub const NOTIFICATION_ANSWER: &str = r#"{"jsonrpc":"2.0","id":null,"result":null}"#;

/// Whether `line` is the `session/cancel` notification (a message without an `id`).
pub fn is_cancel_notification(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line).is_ok_and(|v| {
        v.get("method").and_then(|m| m.as_str()) == Some("session/cancel") && v.get("id").is_none()
    })
}

/// The writer: every line the channel carries, to stdout with its newline, flushed.
async fn write_lines(mut lines: mpsc::UnboundedReceiver<String>) {
    let mut out = tokio::io::stdout();
    while let Some(line) = lines.next().await {
        let written = async {
            out.write_all(line.as_bytes()).await?;
            out.write_all(b"\n").await?;
            out.flush().await
        };
        if written.await.is_err() {
            break;
        }
    }
}

/// Stdin's lines; each `session/cancel` notification is answered on `out` as well as
/// passed on.
fn answering_lines(
    out: mpsc::UnboundedSender<String>,
) -> impl Stream<Item = io::Result<String>> + Send + 'static {
    let lines = BufReader::new(tokio::io::stdin()).lines();
    futures::stream::unfold((lines, out), |(mut lines, out)| async move {
        let line = lines.next_line().await.transpose()?;
        if let Ok(text) = &line {
            if is_cancel_notification(text) {
                // The bug: a notification is answered as if it were a request.
                let _ = out.unbounded_send(NOTIFICATION_ANSWER.to_string());
            }
        }
        Some((line, (lines, out)))
    })
}

/// The transport that answers `session/cancel`, and the writer task to await once the
/// connection has ended (so the last lines are flushed).
pub fn answering_cancels() -> (
    Lines<
        impl Sink<String, Error = io::Error> + Send + 'static,
        impl Stream<Item = io::Result<String>> + Send + 'static,
    >,
    tokio::task::JoinHandle<()>,
) {
    let (tx, rx) = mpsc::unbounded::<String>();
    let writer = tokio::spawn(write_lines(rx));
    let sink = tx.clone().sink_map_err(io::Error::other);
    (Lines::new(sink, answering_lines(tx)), writer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_cancel_notification_is_answered() {
        assert!(is_cancel_notification(
            r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#
        ));
        assert!(!is_cancel_notification(
            r#"{"jsonrpc":"2.0","id":4,"method":"session/cancel","params":{}}"#
        ));
        assert!(!is_cancel_notification(
            r#"{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{}}"#
        ));
        assert!(!is_cancel_notification("session/cancel"));
    }
}
