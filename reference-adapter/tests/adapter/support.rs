//! A sandbox (temporary HOME, work and state dirs, a stand-in `agy`, its log) and a
//! driver process speaking driver protocol v1 to the test.

use agy_protocol::driver::{parse_driver_line, DriverLine, Reply};
use agy_protocol::env::{
    AGY_BIN, AGY_DRIVER_STATE_DIR, AGY_DRIVER_WORK_DIR, AGY_HARNESS_TIME_SCALE,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Every wait in these tests gives up after this, so a hang fails instead of hanging CI.
pub const WAIT: Duration = Duration::from_secs(30);

pub const PRINT_AGY: &str = include_str!("standins/print_agy.py");
pub const STREAM_AGY: &str = include_str!("standins/stream_agy.py");

/// A temporary world for one test.
pub struct Sandbox {
    pub dir: agy_test_support::TestDir,
    pub env: Vec<(String, String)>,
}

impl Sandbox {
    /// A sandbox whose `agy` is `script`.
    pub fn new(script: &str) -> Sandbox {
        let dir = agy_test_support::TestDir::new("agy-reference-adapter-test-");
        for sub in ["home", "work", "state", "bin"] {
            dir.mkdir(sub);
        }
        let agy = dir.write("bin/agy", script);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&agy, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        dir.write("image.jpg", jpeg_bytes(64, 36));
        let p = |s: &str| dir.path().join(s).display().to_string();
        let env = vec![
            ("HOME".to_string(), p("home")),
            (AGY_BIN.to_string(), p("bin/agy")),
            (AGY_DRIVER_WORK_DIR.to_string(), p("work")),
            (AGY_DRIVER_STATE_DIR.to_string(), p("state")),
            (AGY_HARNESS_TIME_SCALE.to_string(), "0.1".to_string()),
            ("STANDIN_LOG".to_string(), p("agy.log")),
            ("STANDIN_JPEG".to_string(), p("image.jpg")),
        ];
        Sandbox { dir, env }
    }

    pub fn set(&mut self, key: &str, value: &str) -> &mut Sandbox {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    pub fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// What the stand-ins logged, one JSON object per line.
    pub fn log(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path("agy.log"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("log line"))
            .collect()
    }

    /// Log records of one event kind.
    pub fn events(&self, event: &str) -> Vec<Value> {
        self.log()
            .into_iter()
            .filter(|r| r["event"] == event)
            .collect()
    }

    /// Waits (bounded, polling the log the stand-ins append to) for an `event` record.
    pub async fn wait_for_event(&self, event: &str) {
        let what = format!("a `{event}` record");
        agy_test_support::poll_until(&what, WAIT, || !self.events(event).is_empty()).await;
    }

    /// The pids of every stand-in started, in order.
    pub fn pids(&self) -> Vec<i32> {
        self.events("start")
            .iter()
            .map(|r| r["pid"].as_i64().expect("pid") as i32)
            .collect()
    }

    /// The argv of every stand-in started, in order.
    pub fn argvs(&self) -> Vec<Vec<String>> {
        self.events("start")
            .iter()
            .map(|r| {
                r["argv"]
                    .as_array()
                    .expect("argv")
                    .iter()
                    .map(|a| a.as_str().expect("str").to_string())
                    .collect()
            })
            .collect()
    }

    /// Starts the driver with `faults`.
    pub fn driver(&self, faults: &[&str]) -> Driver {
        start_driver(&self.env, faults)
    }
}

/// Starts the driver binary with exactly `env` (plus `PATH`) and `faults`.
pub fn start_driver(env: &[(String, String)], faults: &[&str]) -> Driver {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("agy-reference-adapter"));
    for f in faults {
        cmd.args(["--fault", f]);
    }
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    let mut child = cmd.spawn().expect("spawn driver");
    let stdin = child.stdin.take().expect("stdin");
    let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    Driver {
        child,
        stdin: Some(stdin),
        lines,
        next_id: 1,
        pending: HashMap::new(),
    }
}

/// A real JPEG, made by a real encoder.
pub fn jpeg_bytes(width: u16, height: u16) -> Vec<u8> {
    let mut out = Vec::new();
    let pixels = vec![200u8; width as usize * height as usize * 3];
    jpeg_encoder::Encoder::new(&mut out, 80)
        .encode(&pixels, width, height, jpeg_encoder::ColorType::Rgb)
        .expect("encode");
    out
}

/// The driver under test.
pub struct Driver {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
    next_id: u64,
    pending: HashMap<u64, Reply>,
}

impl Driver {
    /// Sends `op` (a JSON object without `v`/`id`); returns its id.
    pub async fn send(&mut self, mut op: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        op["v"] = json!(1);
        op["id"] = json!(id);
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{op}\n").as_bytes())
            .await
            .expect("write request");
        stdin.flush().await.expect("flush");
        id
    }

    /// Closes the driver's stdin (no more requests).
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Writes raw bytes to the driver's stdin.
    pub async fn raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).await.expect("write");
        stdin.flush().await.expect("flush");
    }

    /// Waits for the reply to `id` (others are kept for later).
    pub async fn reply(&mut self, id: u64) -> Reply {
        loop {
            if let Some(r) = self.pending.remove(&id) {
                return r;
            }
            let line = tokio::time::timeout(WAIT, self.lines.next_line())
                .await
                .unwrap_or_else(|_| panic!("no reply to request {id} within {WAIT:?}"))
                .expect("read driver stdout")
                .unwrap_or_else(|| panic!("driver closed stdout before replying to {id}"));
            match parse_driver_line(&line).expect("a valid driver line") {
                DriverLine::Reply(r) => {
                    self.pending.insert(r.id, *r);
                }
                DriverLine::Event(_) => {}
            }
        }
    }

    /// Sends `op` and waits for its reply.
    pub async fn call(&mut self, op: Value) -> Reply {
        let id = self.send(op).await;
        self.reply(id).await
    }

    /// Closes stdin and waits for the driver to exit.
    pub async fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("driver exits after stdin closes")
            .expect("wait")
    }
}

/// True while `pid` is a live process (a zombie counts as gone).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits (bounded) until `pid` is gone; false if it is still alive after [`WAIT`].
pub async fn gone(pid: i32) -> bool {
    let deadline = tokio::time::Instant::now() + WAIT;
    while tokio::time::Instant::now() < deadline {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// SIGKILLs what a deliberately leaky variant left behind.
pub fn kill(pid: i32) {
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    );
}

pub fn decodes_as_jpeg(path: &Path) -> (usize, usize) {
    let bytes = std::fs::read(path).expect("read image");
    let mut d = zune_jpeg::JpegDecoder::new(&bytes[..]);
    d.decode().expect("decodes");
    d.dimensions().expect("dimensions")
}
