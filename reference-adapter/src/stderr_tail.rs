//! The last few kilobytes of a child's stderr, kept for error messages.

use crate::failure::tail;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;

/// How much of a child's stderr is kept.
const STDERR_KEEP: usize = 4096;

/// The kept tail, shared with the task that drains the pipe.
pub(crate) type StderrTail = Arc<Mutex<String>>;

/// Drains `pipe` in the background (so the child never blocks on a full pipe) and keeps
/// its last [`STDERR_KEEP`] bytes.
pub(crate) fn keep_stderr_tail(pipe: Option<ChildStderr>) -> StderrTail {
    let kept: StderrTail = Arc::new(Mutex::new(String::new()));
    if let Some(mut pipe) = pipe {
        let keep = Arc::clone(&kept);
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut s) = keep.lock() {
                    s.push_str(&String::from_utf8_lossy(&buf[..n]));
                    let t = tail(&s, STDERR_KEEP).to_string();
                    *s = t;
                }
            }
        });
    }
    kept
}
