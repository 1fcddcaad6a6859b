//! Replies go out through one writer task, one JSON line each, in the order they are
//! ready (not the order requests came in: replies carry their request id).

use agy_protocol::driver::Reply;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// A handle to send replies.
#[derive(Debug, Clone)]
pub(crate) struct Outbox {
    tx: mpsc::UnboundedSender<Reply>,
}

impl Outbox {
    /// Starts the writer task on `output`.
    pub(crate) fn start<W: AsyncWrite + Unpin + Send + 'static>(
        mut output: W,
    ) -> (Outbox, JoinHandle<()>) {
        let (tx, mut rx) = mpsc::unbounded_channel::<Reply>();
        let writer = tokio::spawn(async move {
            while let Some(reply) = rx.recv().await {
                let mut line = match serde_json::to_string(&reply) {
                    Ok(line) => line,
                    Err(e) => format!(
                        "{{\"id\":{},\"ok\":false,\"outcome\":\"permanent\",\"retryable\":false,\"error\":{{\"name\":\"DriverError\",\"message\":\"failed to encode reply: {}\"}}}}",
                        reply.id,
                        e.to_string().replace(['"', '\\'], "'")
                    ),
                };
                line.push('\n');
                if output.write_all(line.as_bytes()).await.is_err() || output.flush().await.is_err()
                {
                    break;
                }
            }
        });
        (Outbox { tx }, writer)
    }

    /// Queues a reply; a closed stdout drops it (nobody is listening any more).
    pub(crate) fn send(&self, reply: Reply) {
        let _ = self.tx.send(reply);
    }
}
