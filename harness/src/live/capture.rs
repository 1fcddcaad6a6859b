//! The live wrapper's recording of one agy invocation (`run --live --record`): what
//! crossed stdin, stdout and stderr with the time it arrived, the files agy left in
//! its brain folder, and how it ended, written as a one-invocation trace, redacted
//! before it touches the disk. The harness joins a scenario's invocations into one
//! trace with provenance ([`super::record`]).

use crate::check::{has_image_extension, inspect_image};
use crate::recording::{output_events, platform, relative, today, walk, CapturedChunk};
use agy_protocol::env::AGY_HARNESS_LIVE_RECORD;
use agy_protocol::journal::ExitRecord;
use agy_protocol::redact::Redactor;
use agy_protocol::trace::{
    InvocationStart, TimedEvent, Trace, TraceEvent, TraceFile, TraceHeader, TracedInvocation,
    TRACE_VERSION,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The most of each stream a recording keeps; the rest is still passed through.
pub const RECORD_CAP: usize = 16 * 1024 * 1024;
/// The largest file a trace may name (docs/trace-format.md).
const FILE_CAP: u64 = 64 * 1024 * 1024;
/// The largest image a trace may describe (docs/trace-format.md).
const IMAGE_SIDE_CAP: u32 = 4096;

/// Chunks of one stream with the time each arrived, shared with the task reading it.
pub type Chunks = Arc<Mutex<Vec<CapturedChunk>>>;

/// A file in the brain folder: size and modification time.
type Listing = BTreeMap<PathBuf, (u64, Option<SystemTime>)>;

/// One invocation being recorded.
pub struct InvocationCapture {
    parts: PathBuf,
    invocation: u32,
    start: Instant,
    argv: Vec<String>,
    cwd: String,
    app_data: Option<PathBuf>,
    before: Listing,
    stdin: Chunks,
    stdout: Chunks,
    stderr: Chunks,
}

/// One of agy's output streams.
#[derive(Debug, Clone, Copy)]
pub enum Stream {
    /// stdout.
    Stdout,
    /// stderr.
    Stderr,
}

/// Notes the stdin lines the client wrote, with their times.
#[derive(Clone)]
pub struct StdinSink {
    chunks: Chunks,
    start: Instant,
}

impl StdinSink {
    /// Notes one line (with its newline).
    pub fn line(&self, bytes: &[u8]) {
        push_chunk(&self.chunks, self.start.elapsed().as_secs_f64(), bytes);
    }
}

impl InvocationCapture {
    /// A recording of this invocation when the run records (`AGY_HARNESS_LIVE_RECORD`
    /// names the scenario's parts folder); taken before agy starts, so the files agy
    /// writes are told from those already there.
    pub fn from_env(invocation: u32, argv: &[String]) -> Option<InvocationCapture> {
        let parts = std::env::var_os(AGY_HARNESS_LIVE_RECORD).filter(|v| !v.is_empty())?;
        let app_data = std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(".gemini").join("antigravity-cli"));
        let before = app_data.as_deref().map(list_brain).unwrap_or_default();
        Some(InvocationCapture {
            parts: PathBuf::from(parts),
            invocation,
            start: Instant::now(),
            argv: argv.to_vec(),
            cwd: std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default(),
            app_data,
            before,
            stdin: Chunks::default(),
            stdout: Chunks::default(),
            stderr: Chunks::default(),
        })
    }

    /// Seconds since agy started.
    fn now(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Where the task passing stdin through notes each line.
    pub fn stdin_sink(&self) -> StdinSink {
        StdinSink {
            chunks: self.stdin.clone(),
            start: self.start,
        }
    }

    /// Copies agy's stdout (or stderr) to the wrapper's as it arrives, keeping each
    /// chunk.
    pub fn tee<R>(&self, from: R, stream: Stream) -> tokio::task::JoinHandle<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
    {
        let start = self.start;
        match stream {
            Stream::Stdout => {
                tokio::spawn(tee(from, tokio::io::stdout(), self.stdout.clone(), start))
            }
            Stream::Stderr => {
                tokio::spawn(tee(from, tokio::io::stderr(), self.stderr.clone(), start))
            }
        }
    }

    /// Writes the invocation's trace into the parts folder, redacted.
    pub fn finish(self, exit: ExitRecord, redactor: &Redactor) -> std::io::Result<PathBuf> {
        let ended = self.now();
        let kept = |c: &Chunks| c.lock().map(|c| c.clone()).unwrap_or_default();
        let (stdin, stdout, stderr) = (kept(&self.stdin), kept(&self.stdout), kept(&self.stderr));
        let mut events = output_events(redactor, &stdin, &stdout, &stderr);
        let end = events.last().map_or(ended, |e| e.t.max(ended));
        events.extend(self.new_files().into_iter().map(|f| TimedEvent {
            t: end,
            event: TraceEvent::File(f),
        }));
        events.push(TimedEvent {
            t: end,
            event: TraceEvent::Exit(exit),
        });
        let mut argv = vec!["agy".to_string()];
        argv.extend(self.argv.iter().skip(1).cloned());
        let mut inv = TracedInvocation {
            start: InvocationStart {
                argv,
                cwd: Some(self.cwd.clone()),
                env: Default::default(),
            },
            events,
        };
        inv.redact(redactor);
        let trace = Trace {
            header: TraceHeader {
                trace: TRACE_VERSION,
                agy_version: "unknown".into(),
                recorded: today(),
                platform: platform(),
                source: "agy-harness live wrapper".into(),
                note: None,
            },
            invocations: vec![inv],
        };
        std::fs::create_dir_all(&self.parts)?;
        let path = self.parts.join(format!(
            "{:06}-{}.jsonl",
            self.invocation,
            std::process::id()
        ));
        std::fs::write(&path, trace.render())?;
        Ok(path)
    }

    /// The files of the brain folder that are new or changed since agy started.
    fn new_files(&self) -> Vec<TraceFile> {
        let Some(app_data) = &self.app_data else {
            return Vec::new();
        };
        list_brain(app_data)
            .into_iter()
            .filter(|(p, meta)| self.before.get(p) != Some(meta))
            .filter(|(_, (bytes, _))| *bytes <= FILE_CAP)
            .map(|(p, (bytes, _))| trace_file(app_data, &p, bytes))
            .collect()
    }
}

fn push_chunk(chunks: &Chunks, t: f64, bytes: &[u8]) {
    if let Ok(mut c) = chunks.lock() {
        let kept: usize = c.iter().map(|x| x.bytes.len()).sum();
        if kept + bytes.len() <= RECORD_CAP {
            c.push(CapturedChunk {
                t,
                bytes: bytes.to_vec(),
            });
        }
    }
}

async fn tee<R, W>(mut from: R, mut to: W, chunks: Chunks, start: Instant)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        push_chunk(&chunks, start.elapsed().as_secs_f64(), &buf[..n]);
        // The adapter reads agy's output as it comes: pass each chunk on at once.
        if to.write_all(&buf[..n]).await.is_err() || to.flush().await.is_err() {
            break;
        }
    }
}

/// Every file under `app_data/brain` with its size and modification time.
fn list_brain(app_data: &Path) -> Listing {
    walk(&app_data.join("brain"))
        .into_iter()
        .filter_map(|p| {
            let meta = std::fs::metadata(&p).ok()?;
            Some((p, (meta.len(), meta.modified().ok())))
        })
        .collect()
}

/// A file as the trace names it: relative to the app data dir, with its pixel size
/// when it is an image that decodes within the trace format's bounds.
fn trace_file(app_data: &Path, path: &Path, bytes: u64) -> TraceFile {
    let rel = relative(app_data, path);
    let size = if has_image_extension(&rel) {
        std::fs::read(path)
            .ok()
            .and_then(|b| inspect_image(&b).size)
            .filter(|(w, h)| *w <= IMAGE_SIDE_CAP && *h <= IMAGE_SIDE_CAP)
    } else {
        None
    };
    TraceFile {
        path: rel,
        bytes,
        width: size.map(|s| s.0),
        height: size.map(|s| s.1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn tee_passes_every_byte_on_and_keeps_it_in_chunks() {
        let (mut agy, from) = tokio::io::duplex(16);
        let (to, mut adapter) = tokio::io::duplex(1024);
        let chunks = Chunks::default();
        let task = tokio::spawn(tee(from, to, chunks.clone(), Instant::now()));
        agy.write_all(b"line one\npartial").await.expect("write");
        drop(agy);
        task.await.expect("tee");
        let mut seen = Vec::new();
        adapter.read_to_end(&mut seen).await.expect("read");
        assert_eq!(seen, b"line one\npartial");
        let kept: Vec<u8> = chunks
            .lock()
            .expect("chunks")
            .iter()
            .flat_map(|c| c.bytes.clone())
            .collect();
        assert_eq!(kept, b"line one\npartial");
    }

    #[test]
    fn only_new_or_changed_brain_files_are_recorded() {
        let home = tempfile::tempdir().expect("home");
        let app = home.path().join(".gemini/antigravity-cli");
        let brain = app.join("brain/c1");
        std::fs::create_dir_all(&brain).expect("mkdir");
        std::fs::write(brain.join("old.txt"), "x").expect("old");
        let before = list_brain(&app);
        std::fs::write(brain.join("new.txt"), "abc").expect("new");
        let capture = InvocationCapture {
            parts: home.path().join("parts"),
            invocation: 1,
            start: Instant::now(),
            argv: vec!["agy".into()],
            cwd: String::new(),
            app_data: Some(app),
            before,
            stdin: Chunks::default(),
            stdout: Chunks::default(),
            stderr: Chunks::default(),
        };
        let files = capture.new_files();
        assert_eq!(files.len(), 1, "{files:?}");
        assert_eq!(files[0].path, "brain/c1/new.txt");
        assert_eq!(files[0].bytes, 3);
    }
}
