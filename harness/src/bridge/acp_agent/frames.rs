//! The agent's stdio as the ACP SDK's line transport: what the agent prints is read by
//! the kit's one bounded line reader (`agy_process::lines`), so one endless line cannot
//! grow the bridge; the SDK's own byte-stream transport reads a line whole, however long.
//! Every line either way is shown to [`Strays`], which keeps the responses that answer
//! no request.

use super::strays::Strays;
use agy_process::lines::AsyncBoundedLines;
use futures::{Sink, Stream};
use std::io;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};

/// Why the agent's output stopped being read (a line over the cap, a line that is not
/// UTF-8), kept for the error the bridge gives.
pub(super) type Broken = Arc<Mutex<Option<String>>>;

/// The agent's stdout as lines of at most `cap` bytes. A bad line ends the stream with
/// an error naming it (kept in `broken` too): an ACP client cannot skip a frame, since
/// the response it holds would be waited for until the timeout.
pub(super) fn incoming<R>(
    stdout: R,
    cap: usize,
    (broken, strays): (Broken, Strays),
) -> impl Stream<Item = io::Result<String>> + Send + 'static
where
    R: AsyncRead + Unpin + Send + 'static,
{
    let lines = AsyncBoundedLines::new(stdout, cap);
    futures::stream::unfold(Some(lines), move |state| {
        let (broken, strays) = (broken.clone(), strays.clone());
        async move {
            let mut lines = state?;
            let problem = match lines.next().await? {
                Ok(item) => match item.into_text("the agent's stdout") {
                    Ok(text) => {
                        strays.received(&text);
                        return Some((Ok(text), Some(lines)));
                    }
                    Err(problem) => problem,
                },
                Err(e) => format!("the agent's stdout could not be read: {e}"),
            };
            let mut slot = broken.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert_with(|| problem.clone());
            Some((
                Err(io::Error::new(io::ErrorKind::InvalidData, problem)),
                None,
            ))
        }
    })
}

/// The agent's stdin as a sink of lines, each written with its newline and flushed.
pub(super) fn outgoing<W>(
    stdin: W,
    strays: Strays,
) -> impl Sink<String, Error = io::Error> + Send + 'static
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    futures::sink::unfold(stdin, move |mut w, line: String| {
        strays.sent(&line);
        async move {
            w.write_all(line.as_bytes()).await?;
            w.write_all(b"\n").await?;
            w.flush().await?;
            Ok(w)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    #[tokio::test]
    async fn a_line_over_the_cap_ends_the_frames_with_an_error_naming_the_cap() {
        let mut input = vec![b'x'; 100];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\"}\n");
        let broken = Broken::default();
        let frames: Vec<io::Result<String>> = incoming(
            std::io::Cursor::new(input),
            64,
            (broken.clone(), Strays::default()),
        )
        .collect()
        .await;
        assert_eq!(frames.len(), 1, "{frames:?}");
        let err = frames[0].as_ref().expect_err("over the cap").to_string();
        assert!(err.contains("the cap of 64 bytes"), "{err}");
        assert_eq!(broken.lock().expect("lock").as_deref(), Some(err.as_str()));
    }

    #[tokio::test]
    async fn lines_under_the_cap_are_frames() {
        let input = std::io::Cursor::new(b"{\"a\":1}\n{\"b\":2}\n".to_vec());
        let frames: Vec<String> = incoming(input, 64, (Broken::default(), Strays::default()))
            .map(|f| f.expect("a frame"))
            .collect()
            .await;
        assert_eq!(frames, ["{\"a\":1}", "{\"b\":2}"]);
    }
}
