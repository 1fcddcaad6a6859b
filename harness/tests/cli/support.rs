//! Shared helpers: a temp dir per test, stand-in drivers, the harness command, and
//! waits that time out instead of hanging (the workspace's own in `agy-test-support`).

use agy_protocol::env::AGY_HARNESS_FAKE_AGY;
pub use agy_test_support::text;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// A test's own folder.
pub struct TestDir {
    pub dir: agy_test_support::TestDir,
}

impl TestDir {
    pub fn new() -> TestDir {
        TestDir {
            dir: agy_test_support::TestDir::new("agy-harness-test-"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        self.dir.write(name, text)
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

    /// The harness command, with `--color never`, `HOME` in the test dir, and the real
    /// fake-agy (stand-in drivers never run agy, but the live guard verifies the fake
    /// before any scenario).
    pub fn harness(&self) -> std::process::Command {
        let home = self.path().join("real-home");
        std::fs::create_dir_all(&home).expect("home");
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
        cmd.env("HOME", &home)
            .env_remove("NO_COLOR")
            .env(AGY_HARNESS_FAKE_AGY, crate::spikes::fake_agy())
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
pub fn wait_exit(child: std::process::Child, within: Duration) -> std::process::Output {
    agy_test_support::wait_output(child, within, "agy-harness")
}

/// Runs the command to completion with a timeout.
pub fn run(cmd: std::process::Command, within: Duration) -> std::process::Output {
    agy_test_support::run_output(cmd, within, "agy-harness")
}

/// Runs the command to completion with a timeout, fails unless it exits 0, and returns
/// its stdout.
pub fn run_ok(cmd: std::process::Command, within: Duration) -> String {
    let out = run(cmd, within);
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    stdout
}

/// Runs a worked example from the workspace root: `agy-harness run --adapter CONFIG
/// SCENARIOS`; fails unless it exits 0, and returns its stdout.
pub fn run_example(config: &str, scenarios: &str) -> String {
    let root = agy_test_support::workspace();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(root)
        .args(["--color", "never", "run", "--adapter", config, scenarios]);
    let out = run(cmd, Duration::from_secs(300));
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{config} on {scenarios}:\nstdout:\n{stdout}\nstderr:\n{}",
        text(&out.stderr)
    );
    stdout
}

/// An adapter config running the reference adapter of `profiles` with `AGY_BIN`
/// naming a shell wrapper of agy whose body is `wrapper` (it ends by running agy).
pub fn wrapped_reference_config(
    t: &TestDir,
    wrapper: &str,
    profiles: &str,
    strict: bool,
) -> PathBuf {
    let script = t.write("wrapped-agy", &format!("#!/bin/sh\n{wrapper}"));
    let mut perms = std::fs::metadata(&script).expect("wrapper").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&script, perms).expect("chmod");
    let adapter =
        Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("agy-reference-adapter");
    t.write(
        "adapter.toml",
        &format!(
            "[adapter]\nname = \"wrapped agy\"\ncommand = [\"/usr/bin/env\", {:?}, {:?}]\nprofiles = {profiles}\nstrict = {strict}\n",
            format!("AGY_BIN={}", script.display()),
            adapter.display().to_string()
        ),
    )
}

/// `agy-harness run --adapter CONFIG SCENARIOS` from the workspace root with a JSON
/// report: its exit code, the report and its stdout.
pub fn run_with_json_report(
    t: &TestDir,
    config: &Path,
    scenarios: &str,
    within: Duration,
) -> (Option<i32>, serde_json::Value, String) {
    let report = t.path().join("r.json");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(agy_test_support::workspace())
        .args(["--color", "never", "run", "--adapter"])
        .arg(config)
        .arg("--report")
        .arg(format!("json={}", report.display()))
        .arg(scenarios);
    let out = run(cmd, within);
    let json = serde_json::from_str(&std::fs::read_to_string(&report).expect("report"))
        .expect("json report");
    (out.status.code(), json, text(&out.stdout))
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
        .filter(|p| agy_process::is_running(*p, None))
        .collect()
}

/// insta settings for this suite: snapshots under `snapshots/agy-harness/cli/`,
/// temp paths and durations redacted.
pub fn insta_settings(dir: &Path) -> insta::Settings {
    let mut s = agy_test_support::snapshot_settings("agy-harness/cli");
    s.add_filter(&regex::escape(&dir.display().to_string()), "[TEMP]");
    s.add_filter(r"/tmp/agy-harness-[A-Za-z0-9]+", "[TEMP]");
    s.add_filter(r"\(\d+ ms\)", "([DURATION])");
    s.add_filter(r"in \d+\.\d+ s", "in [DURATION]");
    s.add_filter(r#"time="[0-9.]+""#, r#"time="[DURATION]""#);
    s.add_filter(r#"timestamp="[^"]+""#, r#"timestamp="[TIMESTAMP]""#);
    s.add_filter(r"— [0-9.]+ s,", "— [DURATION],");
    s
}
