//! Helpers every crate's test targets share (dev-only, never published): the workspace
//! root, the workspace's binaries as the build left them, a temporary folder per test,
//! a waiter that drains a child's stdout and stderr together and kills it at a deadline,
//! and insta settings bound to a snapshot folder.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// The workspace root.
pub fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Binary `name` of another package of this workspace: `$override_var` when set, else
/// the one in the running test's target folder (`target/<profile>/`, one folder up from
/// the test executable in `deps/`). A test never builds it: `cargo nextest run
/// --workspace` has built every binary before the first test runs; when a narrower run
/// has not, this panics naming the command that builds it.
pub fn workspace_bin(name: &str, override_var: &str) -> PathBuf {
    if let Some(p) = std::env::var_os(override_var).filter(|v| !v.is_empty()) {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("the test executable's path");
    let found = exe
        .ancestors()
        .skip(1)
        .take(2)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file());
    found.unwrap_or_else(|| {
        panic!(
            "`{name}` is not built next to `{}`: run `cargo build -p {name}` (or the whole \
             `cargo nextest run --workspace`), or set `{override_var}`",
            exe.display()
        )
    })
}

/// A test's own temporary folder, removed when dropped.
#[derive(Debug)]
pub struct TestDir {
    dir: tempfile::TempDir,
}

impl TestDir {
    /// A fresh folder named `<prefix>…` in the system's temporary folder.
    pub fn new(prefix: &str) -> TestDir {
        TestDir {
            dir: tempfile::Builder::new()
                .prefix(prefix)
                .tempdir()
                .expect("a temporary folder"),
        }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `rel` inside the folder, created with its parents.
    pub fn mkdir(&self, rel: &str) -> PathBuf {
        let p = self.path().join(rel);
        std::fs::create_dir_all(&p).unwrap_or_else(|e| panic!("mkdir {}: {e}", p.display()));
        p
    }

    /// Writes `text` to `rel` inside the folder (parents created); returns its path.
    pub fn write(&self, rel: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path().join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, text).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
        p
    }
}

/// Runs `cmd` (stdin empty, stdout and stderr captured) to its end; `what` names it
/// when it does not end within `within`.
pub fn run_output(mut cmd: Command, within: Duration, what: &str) -> Output {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {what} ({:?}): {e}", cmd.get_program()));
    wait_output(child, within, what)
}

/// Waits for `child` to end, draining its stdout and stderr together (a child blocked
/// on a full stderr pipe while the test reads stdout cannot stall either); SIGKILLs it
/// and fails naming `what` when it has not ended within `within`.
pub fn wait_output(child: Child, within: Duration, what: &str) -> Output {
    let pid = child.id();
    try_wait_output(child, within)
        .unwrap_or_else(|| panic!("{what} (pid {pid}) did not exit within {within:?}"))
}

/// As [`wait_output`], but a child still running after `within` is SIGKILLed and
/// `None` (for property tests, which report the case themselves).
pub fn try_wait_output(child: Child, within: Duration) -> Option<Output> {
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(within) {
        Ok(out) => Some(out.unwrap_or_else(|e| panic!("wait for pid {pid}: {e}"))),
        Err(_) => {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
            None
        }
    }
}

/// Writes `lines` to `child`'s stdin, each followed by a newline, closes it, then
/// waits as [`try_wait_output`]. A child that stops reading early is not an error.
pub fn feed_lines_and_wait(
    mut child: Child,
    lines: &[Vec<u8>],
    within: Duration,
) -> Option<Output> {
    use std::io::Write;
    if let Some(mut stdin) = child.stdin.take() {
        for line in lines {
            let _ = stdin.write_all(line);
            let _ = stdin.write_all(b"\n");
        }
    }
    try_wait_output(child, within)
}

/// How `out` shows that the program panicked or aborted (exit 101, `panicked` on
/// stderr, SIGABRT), with its stderr; `None` when it shows neither.
pub fn panic_shown(out: &Output) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    let stderr = text(&out.stderr);
    let how = if out.status.code() == Some(101) {
        "exit 101"
    } else if stderr.contains("panicked") {
        "`panicked` on stderr"
    } else if out.status.signal() == Some(nix::libc::SIGABRT) {
        "aborted"
    } else {
        return None;
    };
    Some(format!("{how}: {stderr}"))
}

/// Polls `ready` every 10 ms until it holds, failing naming `what` after `within`: for a
/// file another process appends to (a journal, a stand-in's log), which gives nothing
/// to wait on.
pub async fn poll_until(what: &str, within: Duration, mut ready: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + within;
    while !ready() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what} did not happen within {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Bytes as text, invalid UTF-8 replaced (for assertion messages and snapshots).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// insta settings for snapshots in `snapshots/<folder>/` of the workspace, named
/// without the module prefix; a suite adds its own redactions.
pub fn snapshot_settings(folder: &str) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(workspace().join("snapshots").join(folder));
    s.set_prepend_module_to_snapshot(false);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_root_holds_the_workspace_manifest() {
        let manifest = std::fs::read_to_string(workspace().join("Cargo.toml")).expect("reads");
        assert!(manifest.contains("[workspace]"), "{manifest}");
    }

    #[test]
    fn a_child_filling_stderr_while_writing_stdout_is_drained_to_its_end() {
        // 1 MiB on stderr, far over a pipe's buffer, then stdout: reading one pipe
        // after the other would never see the end.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "head -c 1048576 /dev/zero >&2; echo done"]);
        let out = run_output(cmd, Duration::from_secs(30), "sh");
        assert!(out.status.success());
        assert_eq!(text(&out.stdout), "done\n");
        assert_eq!(out.stderr.len(), 1 << 20);
    }

    #[test]
    fn a_panic_an_abort_and_a_clean_exit_are_told_apart() {
        let shown = |script: &str| {
            let mut cmd = Command::new("sh");
            cmd.args(["-c", script]);
            panic_shown(&run_output(cmd, Duration::from_secs(30), "sh"))
        };
        assert!(shown("exit 101").is_some_and(|s| s.starts_with("exit 101")));
        assert!(shown("echo \"thread 'main' panicked\" >&2; exit 1").is_some());
        assert!(shown("kill -ABRT $$").is_some_and(|s| s.starts_with("aborted")));
        assert_eq!(shown("echo fine >&2; exit 2"), None);
    }

    #[test]
    fn fed_lines_reach_the_child_and_its_stdin_is_closed() {
        let mut cmd = Command::new("cat");
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
        let child = cmd.spawn().expect("spawn cat");
        let out = feed_lines_and_wait(
            child,
            &[b"a".to_vec(), b"\xffb".to_vec()],
            Duration::from_secs(30),
        )
        .expect("cat ends once its stdin is closed");
        assert_eq!(out.stdout, b"a\n\xffb\n");
    }

    #[test]
    #[should_panic(expected = "did not exit within")]
    fn a_child_past_its_deadline_fails_the_test() {
        let mut cmd = Command::new("sleep");
        cmd.arg("30");
        run_output(cmd, Duration::from_millis(100), "sleep");
    }

    #[test]
    #[should_panic(expected = "cargo build -p no-such-binary")]
    fn a_missing_binary_names_the_build_command() {
        workspace_bin("no-such-binary", "AGY_TEST_SUPPORT_NO_SUCH_OVERRIDE");
    }

    #[tokio::test]
    async fn polling_ends_once_the_condition_holds() {
        let mut calls = 0;
        poll_until("the third call", Duration::from_secs(30), || {
            calls += 1;
            calls == 3
        })
        .await;
        assert_eq!(calls, 3);
    }

    #[tokio::test]
    #[should_panic(expected = "never did not happen within")]
    async fn polling_fails_at_its_deadline() {
        poll_until("never", Duration::from_millis(50), || false).await;
    }

    #[test]
    fn a_test_dir_writes_inside_itself() {
        let t = TestDir::new("agy-test-support-");
        let p = t.write("a/b.txt", "x");
        assert!(p.starts_with(t.path()));
        assert_eq!(std::fs::read_to_string(p).expect("reads"), "x");
        assert!(t.mkdir("c/d").is_dir());
    }
}
