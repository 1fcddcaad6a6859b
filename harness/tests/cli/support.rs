//! Shared helpers: a temp dir per test, stand-in drivers, the harness command, and
//! waits that time out instead of hanging.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// A test's own folder.
pub struct TestDir {
    pub dir: tempfile::TempDir,
}

impl TestDir {
    pub fn new() -> TestDir {
        TestDir {
            dir: tempfile::Builder::new()
                .prefix("agy-harness-test-")
                .tempdir()
                .expect("temp dir"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path().join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, text).expect("write");
        p
    }

    /// An adapter config running the stand-in driver in `mode`.
    pub fn standin_config(&self, mode: &str, ready_fifo: Option<&Path>) -> PathBuf {
        let env = ready_fifo
            .map(|f| {
                format!(
                    "env = {{ STANDIN_READY = {:?} }}\n",
                    f.display().to_string()
                )
            })
            .unwrap_or_default();
        self.write(
            "adapter.toml",
            &format!(
                "[adapter]\nname = \"standin {mode}\"\ncommand = [\"python3\", {:?}, {mode:?}]\nprofiles = [\"oneshot\", \"session\"]\n{env}\n[timeouts]\ngrace = \"200ms\"\nslack = \"200ms\"\nreply = \"5s\"\nstartup = \"10s\"\n",
                standin_driver().display().to_string()
            ),
        )
    }

    /// A oneshot scenario with one `generate` whose reply must come within `within`
    /// and be `outcome`.
    pub fn scenario(&self, name: &str, outcome: &str, within: &str) -> PathBuf {
        self.write(
            &format!("scenarios/{}.toml", name.replace('/', "-")),
            &format!(
                "[scenario]\nname = {name:?}\nprofile = \"oneshot\"\ncovers = [\"harness self-test\"]\n\n[[op]]\ngenerate = {{ prompt = \"a purple hexagon\" }}\nreply_within = {within:?}\nexpect = {{ outcome = {outcome:?} }}\n"
            ),
        )
    }

    /// The harness command, with `--color never`, `HOME` in the test dir, and a
    /// placeholder fake-agy (stand-in drivers never run agy).
    pub fn harness(&self) -> std::process::Command {
        let home = self.path().join("real-home");
        std::fs::create_dir_all(&home).expect("home");
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
        cmd.env("HOME", &home)
            .env_remove("NO_COLOR")
            .env("AGY_HARNESS_FAKE_AGY", "/bin/true")
            .current_dir(self.path());
        cmd
    }

    pub fn mkfifo(&self, name: &str) -> PathBuf {
        let p = self.path().join(name);
        nix::unistd::mkfifo(&p, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
        p
    }
}

pub fn standin_driver() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/standins/driver.py")
}

/// Reads one line from a FIFO, or fails after `within`.
pub fn read_fifo_line(path: &Path, within: Duration) -> String {
    let (tx, rx) = mpsc::channel();
    let p = path.to_path_buf();
    std::thread::spawn(move || {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let _ = tx.send(text);
    });
    rx.recv_timeout(within)
        .unwrap_or_else(|_| panic!("nothing arrived on `{}` within {within:?}", path.display()))
}

/// Waits for the child to exit, or kills it and fails after `within`.
pub fn wait_exit(mut child: std::process::Child, within: Duration) -> std::process::Output {
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    std::thread::spawn(move || {
        let read = |r: Option<Box<dyn std::io::Read + Send>>| {
            let mut s = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut s);
            }
            s
        };
        let out = read(stdout.map(|s| Box::new(s) as Box<dyn std::io::Read + Send>));
        let err = read(stderr.map(|s| Box::new(s) as Box<dyn std::io::Read + Send>));
        let status = child.wait().expect("wait");
        let _ = tx.send(std::process::Output {
            status,
            stdout: out,
            stderr: err,
        });
    });
    match rx.recv_timeout(within) {
        Ok(o) => o,
        Err(_) => {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
            panic!("agy-harness (pid {pid}) did not exit within {within:?}");
        }
    }
}

/// Runs the command to completion with a timeout.
pub fn run(mut cmd: std::process::Command, within: Duration) -> std::process::Output {
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .stdin(std::process::Stdio::null());
    let child = cmd.spawn().expect("spawn agy-harness");
    wait_exit(child, within)
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// pids parsed from a stand-in's ready line.
pub fn pids(line: &str) -> Vec<u32> {
    line.split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

pub fn still_running(pids: &[u32]) -> Vec<u32> {
    pids.iter()
        .copied()
        .filter(|p| agy_protocol::process::is_running(*p, None))
        .collect()
}

/// insta settings for this suite: snapshots under `snapshots/agy-harness/cli/`,
/// temp paths and durations redacted.
pub fn insta_settings(dir: &Path) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("../snapshots/agy-harness/cli"));
    s.set_prepend_module_to_snapshot(false);
    s.add_filter(&regex::escape(&dir.display().to_string()), "[TEMP]");
    s.add_filter(r"/tmp/agy-harness-[A-Za-z0-9]+", "[TEMP]");
    s.add_filter(r"\(\d+ ms\)", "([DURATION])");
    s.add_filter(r"in \d+\.\d+ s", "in [DURATION]");
    s.add_filter(r#"time="[0-9.]+""#, r#"time="[DURATION]""#);
    s.add_filter(r#"timestamp="[^"]+""#, r#"timestamp="[TIMESTAMP]""#);
    s.add_filter(r"— [0-9.]+ s,", "— [DURATION],");
    s
}
