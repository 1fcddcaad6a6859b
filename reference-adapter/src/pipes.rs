//! agy's stdout and stderr as the adapters read them: each pipe read to its end on a
//! task of its own, at most a cap, and collected once agy has exited, waiting at most a
//! bound for a pipe a leftover helper still holds open.

use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;

/// The pipe's text, at most `cap` bytes of it (lossy UTF-8); empty when there is none.
pub async fn read_capped<R: AsyncRead + Unpin>(reader: Option<R>, cap: u64) -> String {
    let mut buf = Vec::new();
    if let Some(mut r) = reader {
        let _ = (&mut r).take(cap).read_to_end(&mut buf).await;
        // The rest is read and dropped: agy blocked writing into a full pipe would not
        // end, and its run would wait for a timeout (or for ever).
        let _ = tokio::io::copy(&mut r, &mut tokio::io::sink()).await;
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// What a reading task got within `within`; empty when it did not finish in time.
pub async fn drained(task: JoinHandle<String>, within: Duration) -> String {
    tokio::time::timeout(within, task)
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_writer_of_more_than_the_cap_is_not_left_blocked() {
        // Regression: reading stopped at the cap, so a writer of more than the cap plus
        // the pipe's buffer blocked for ever.
        use tokio::io::AsyncWriteExt;
        let (mut writer, reader) = tokio::io::duplex(64);
        let wrote = tokio::spawn(async move {
            let ok = writer.write_all(&[b'a'; 64 * 1024]).await.is_ok();
            drop(writer);
            ok
        });
        assert_eq!(read_capped(Some(reader), 10).await, "a".repeat(10));
        let finished = tokio::time::timeout(Duration::from_secs(10), wrote).await;
        assert!(matches!(finished, Ok(Ok(true))), "{finished:?}");
    }

    #[tokio::test]
    async fn a_pipe_is_read_up_to_its_cap_and_a_stuck_one_gives_nothing() {
        let text: &[u8] = b"abcdef";
        assert_eq!(read_capped(Some(text), 4).await, "abcd");
        assert_eq!(read_capped(None::<&[u8]>, 4).await, "");
        let done = tokio::spawn(async { "out".to_string() });
        assert_eq!(drained(done, Duration::from_secs(5)).await, "out");
        let stuck = tokio::spawn(async {
            std::future::pending::<()>().await;
            String::new()
        });
        assert_eq!(drained(stuck, Duration::from_millis(10)).await, "");
    }
}
