//! Shared helpers: a sandbox per test (temp HOME, journal, state), a ready command, and
//! insta settings bound to `snapshots/fake-agy/cli/`.

use agy_protocol::env::{FAKE_AGY_JOURNAL, FAKE_AGY_SCRIPT};
use agy_protocol::journal::{read_journal, JournalRecord};
use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

/// One test's world: a temporary HOME and journal.
pub struct Sandbox {
    pub dir: agy_test_support::TestDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        Sandbox {
            // Named like tempfile's own folders: the snapshots' `[TEMP]` filter matches them.
            dir: agy_test_support::TestDir::new(".tmp"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn home(&self) -> PathBuf {
        self.path().join("home")
    }

    pub fn app_dir(&self) -> PathBuf {
        self.home().join(".gemini").join("antigravity-cli")
    }

    pub fn journal_path(&self) -> PathBuf {
        self.path().join("journal.jsonl")
    }

    /// fake-agy with this sandbox's HOME and journal, nothing else inherited.
    pub fn cmd(&self) -> Command {
        let mut c = Command::from_std(self.bare_cmd());
        c.timeout(Duration::from_secs(30));
        c
    }

    /// fake-agy with only `PATH`, this sandbox's HOME and its journal in the environment.
    fn bare_cmd(&self) -> std::process::Command {
        std::fs::create_dir_all(self.home()).expect("home");
        let mut c = std::process::Command::new(bin());
        c.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env(FAKE_AGY_JOURNAL, self.journal_path())
            .current_dir(self.path());
        c
    }

    /// A std command (for tests that drive stdin/stdout interactively).
    pub fn std_cmd(&self) -> std::process::Command {
        let mut c = self.bare_cmd();
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    /// Runs fake-agy with `args` and `env` in a new session without a controlling
    /// terminal (`setsid`, util-linux), whatever terminal the test runner has, with
    /// `stdin` piped in (or `/dev/null`); the output, within 30 s.
    pub fn detached(
        &self,
        args: &[&str],
        env: &[(&str, &str)],
        stdin: Option<&[u8]>,
    ) -> std::process::Output {
        let cmd = self.bare_cmd();
        let mut detached = std::process::Command::new("setsid");
        detached
            .arg("--wait")
            .arg(cmd.get_program())
            .args(args)
            .env_clear()
            .envs(cmd.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
            .envs(env.iter().copied())
            .current_dir(self.path())
            .stdin(match stdin {
                Some(_) => Stdio::piped(),
                None => Stdio::null(),
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = detached.spawn().expect("setsid runs (util-linux)");
        if let Some(bytes) = stdin {
            use std::io::Write;
            // A fake that exits without reading its stdin closes the pipe early.
            let mut pipe = child.stdin.take().expect("stdin");
            let _ = pipe.write_all(bytes);
        }
        wait_with_timeout(child, Duration::from_secs(30))
    }

    /// Writes a script file and returns its path.
    pub fn script(&self, text: &str) -> PathBuf {
        self.dir.write("script.toml", text)
    }

    /// fake-agy running `script`.
    pub fn scripted(&self, text: &str) -> Command {
        let p = self.script(text);
        let mut c = self.cmd();
        c.env(FAKE_AGY_SCRIPT, p);
        c
    }

    pub fn journal(&self) -> Vec<JournalRecord> {
        read_journal(&self.journal_path()).expect("journal reads")
    }

    /// Files directly in `brain/<id>/` (not its subfolders), sorted.
    pub fn brain_files(&self, id: &str) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.app_dir().join("brain").join(id))
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_file())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }
}

/// The fake-agy binary of this build.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fake-agy"))
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    agy_test_support::workspace().to_path_buf()
}

/// Parses stdout lines as JSON values.
pub fn json_lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// insta settings: snapshots under snapshots/fake-agy/cli/, ids and times redacted.
pub fn snapshot_settings() -> insta::Settings {
    let mut s = agy_test_support::snapshot_settings("fake-agy/cli");
    s.add_filter(
        r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        "[ID]",
    );
    s.add_filter(
        r#""duration_seconds":[0-9.e+-]+"#,
        r#""duration_seconds":"[DURATION]""#,
    );
    s.add_filter(r"[^\s\x22]*\.tmp[A-Za-z0-9]{6}[^\s\x22:]*", "[TEMP]");
    s.add_filter(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "[TIMESTAMP]");
    s.add_filter(r"_\d{13}\.", "_[EPOCH_MS].");
    s
}

/// Decodes a JPEG with zune-jpeg and returns its size.
pub fn jpeg_size(path: &Path) -> (usize, usize) {
    let bytes = std::fs::read(path).expect("image");
    let mut d = zune_jpeg::JpegDecoder::new(bytes.as_slice());
    d.decode()
        .unwrap_or_else(|e| panic!("{} does not decode: {e:?}", path.display()));
    let info = d.info().expect("info");
    (info.width as usize, info.height as usize)
}

/// Waits for a child with a timeout (a hung fake fails the test instead of hanging it).
pub fn wait_with_timeout(child: std::process::Child, timeout: Duration) -> std::process::Output {
    agy_test_support::wait_output(child, timeout, "fake-agy")
}

/// Reads one line from a child's stdout, failing after `timeout`.
pub fn read_line_with_timeout(
    reader: &mut std::io::BufReader<std::process::ChildStdout>,
    timeout: Duration,
) -> String {
    use std::io::BufRead;
    // The reader moves to a thread and back so a silent child cannot block the test.
    let (tx, rx) = std::sync::mpsc::channel();
    let mut r = std::mem::replace(reader, empty_reader());
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = r.read_line(&mut line);
        let _ = tx.send((line, r));
    });
    let (line, r) = rx
        .recv_timeout(timeout)
        .unwrap_or_else(|_| panic!("no stdout line within {timeout:?}"));
    *reader = r;
    line
}

fn empty_reader() -> std::io::BufReader<std::process::ChildStdout> {
    // A placeholder child stdout from a process that exits at once.
    let mut c = std::process::Command::new("true")
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn true");
    let out = c.stdout.take().expect("stdout");
    let _ = c.wait();
    std::io::BufReader::new(out)
}
