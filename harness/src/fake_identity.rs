//! The live guard: a binary given as "the fake" (`--fake-agy`, `AGY_HARNESS_FAKE_AGY`,
//! `--fake-agy-acp`, `AGY_HARNESS_FAKE_AGY_ACP`) runs scenarios only once it has
//! answered the identity handshake ([`agy_protocol::identity`]) as fake-agy or
//! fake-agy-acp. Anything else — a real agy, a wrapper, a script — is refused before
//! any scenario, so a real agy runs only through `--agy … --live`.
//!
//! The answer is judged by content: the file must be a native executable
//! ([`NATIVE_MAGIC`], so not a `#!` wrapper), and the digest the running fake reports
//! of its own image must be the digest of that file. A wrapper that lets the real fake
//! answer reports the fake's digest, not its own, and is refused.
//!
//! The handshake is one run with `--version`, stdin closed, an empty environment but
//! `PATH`, a `HOME` of its own (the user's real `~/.gemini` stays untouched), in a
//! process group that dies with the harness and is swept after.

use agy_process::{in_own_group_std, sweep_marked, wait_gone, ParentDeath, MARKER_ENV};
use agy_protocol::identity::{
    file_sha256, read_identity, Answer, ENV_IDENTIFY, IDENTIFY_ARG, NATIVE_MAGIC,
};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

/// How long a binary may take to answer.
const ANSWER_LIMIT: Duration = Duration::from_secs(10);
/// The most of its stdout the handshake reads.
const ANSWER_CAP: u64 = 64 * 1024;

/// Why a binary was refused as the fake.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{}` is not {name}: {why}\nhelp: the fake must be {name} (build it with `cargo build -p {name}`); to run a real agy, pass `--agy {} --live`", path.display(), path.display())]
pub struct NotTheFake {
    /// The binary.
    pub path: PathBuf,
    /// The fake it was given as (`fake-agy`, `fake-agy-acp`).
    pub name: String,
    /// What the handshake saw.
    pub why: Refusal,
}

/// What made a binary not the fake: its file, or its answer to the handshake. A
/// system error is kept as its text, so a refusal can be compared and cloned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The path does not resolve to a file.
    #[error("it could not be found ({0})")]
    NotFound(String),
    /// The file could not be read.
    #[error("it could not be read ({0})")]
    Unreadable(String),
    /// A `#!` script: a wrapper could run anything once the handshake is done.
    #[error("it is a `#!` script, not a native executable: a wrapper could run anything once the handshake is done")]
    Script,
    /// Not an ELF executable.
    #[error("it is not a native (ELF) executable")]
    NotNative,
    /// The handshake's folder could not be made.
    #[error("failed to create a folder for the handshake: {0}")]
    NoFolder(String),
    /// The binary could not be started.
    #[error("it could not be started ({0})")]
    NoStart(String),
    /// No answer within the limit.
    #[error("it did not answer the identity handshake within {0} s")]
    Silent(u64),
    /// An answer that is not the fake's.
    #[error("it did not answer the identity handshake (`{ENV_IDENTIFY}`) with its version and digest ({exit})")]
    WrongAnswer {
        /// `exit N`, or `no exit code`.
        exit: String,
    },
    /// The running image is not the file: a wrapper around another binary.
    #[error("the program that answered the handshake runs an image with sha256 {answered}, but the file has sha256 {file}: a wrapper around another binary")]
    Wrapper {
        /// The digest the answer reported.
        answered: String,
        /// The digest of the file.
        file: String,
    },
}

/// Verifies once per process that `path` is the fake `name`; returns its version.
pub fn verify_fake(path: &Path, name: &str) -> Result<String, NotTheFake> {
    static VERIFIED: Mutex<Vec<(PathBuf, String, String)>> = Mutex::new(Vec::new());
    let known = |v: &Vec<(PathBuf, String, String)>| {
        v.iter()
            .find(|(p, n, _)| p == path && n == name)
            .map(|(_, _, version)| version.clone())
    };
    if let Some(version) = VERIFIED.lock().ok().as_deref().and_then(known) {
        return Ok(version);
    }
    let refuse = |why: Refusal| NotTheFake {
        path: path.to_path_buf(),
        name: name.to_string(),
        why,
    };
    let version = judge(path, name).map_err(refuse)?;
    if let Ok(mut v) = VERIFIED.lock() {
        v.push((path.to_path_buf(), name.to_string(), version.clone()));
    }
    Ok(version)
}

/// Checks the file's content, runs the handshake and compares the digests; the
/// version, or what was wrong.
fn judge(path: &Path, name: &str) -> Result<String, Refusal> {
    let resolved = std::fs::canonicalize(path).map_err(|e| Refusal::NotFound(e.to_string()))?;
    let path = resolved.as_path();
    let mut head = [0u8; 4];
    let read = std::fs::File::open(path).and_then(|f| f.take(4).read(&mut head));
    match read {
        Ok(n) if head[..n] == *NATIVE_MAGIC => {}
        Ok(_) if head.starts_with(b"#!") => return Err(Refusal::Script),
        Ok(_) => return Err(Refusal::NotNative),
        Err(e) => return Err(Refusal::Unreadable(e.to_string())),
    }
    let digest = file_sha256(path).map_err(|e| Refusal::Unreadable(e.to_string()))?;
    let answer = handshake(path, name)?;
    if answer.sha256 != digest {
        return Err(Refusal::Wrapper {
            answered: answer.sha256,
            file: digest,
        });
    }
    Ok(answer.version)
}

/// Runs the handshake; the answer, or what was wrong.
fn handshake(path: &Path, name: &str) -> Result<Answer, Refusal> {
    let home = tempfile::Builder::new()
        .prefix("agy-harness-identify-")
        .tempdir()
        .map_err(|e| Refusal::NoFolder(e.to_string()))?;
    let marker = home.path().display().to_string();
    let nonce = nonce();
    let mut cmd = std::process::Command::new(path);
    cmd.arg(IDENTIFY_ARG)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home.path())
        .env(MARKER_ENV, &marker)
        .env(ENV_IDENTIFY, &nonce)
        .current_dir(home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    in_own_group_std(&mut cmd, ParentDeath::Kill);
    let mut child = cmd.spawn().map_err(|e| Refusal::NoStart(e.to_string()))?;
    let (tx, rx) = std::sync::mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = stdout.take(ANSWER_CAP).read_to_end(&mut out);
            let _ = tx.send(out);
        });
    }
    let answered = wait_gone(&[child.id()], ANSWER_LIMIT).is_empty();
    agy_process::signal_group(child.id(), nix::sys::signal::Signal::SIGKILL);
    let _ = child.kill();
    let status = child.wait().ok();
    sweep_marked(&marker, Duration::from_secs(2));
    let out = rx.recv_timeout(Duration::from_secs(2)).unwrap_or_default();
    if !answered {
        return Err(Refusal::Silent(ANSWER_LIMIT.as_secs()));
    }
    read_identity(&String::from_utf8_lossy(&out), name, &nonce).ok_or_else(|| {
        let exit = status
            .and_then(|s| s.code())
            .map_or("no exit code".into(), |c| format!("exit {c}"));
        Refusal::WrongAnswer { exit }
    })
}

/// A value no binary can know in advance.
fn nonce() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{:x}-{nanos:x}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_that_does_not_answer_is_refused_with_the_live_hint() {
        let err = verify_fake(Path::new("/bin/true"), "fake-agy").expect_err("refused");
        let text = err.to_string();
        assert!(text.contains("is not fake-agy"), "{text}");
        assert!(text.contains("--agy /bin/true --live"), "{text}");
        assert!(text.contains("exit 0"), "{text}");
    }

    #[test]
    fn a_script_is_refused_before_it_runs() {
        let dir = tempfile::tempdir().expect("dir");
        let ran = dir.path().join("ran");
        let script = dir.path().join("agy");
        let body = format!("#!/bin/sh\ntouch '{}'\n", ran.display());
        std::fs::write(&script, body).expect("write");
        let mut perms = std::fs::metadata(&script).expect("meta").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&script, perms).expect("chmod");
        let err = verify_fake(&script, "fake-agy").expect_err("refused");
        assert_eq!(err.why, Refusal::Script);
        assert!(!ran.exists(), "the script ran");
    }

    #[test]
    fn a_script_echoing_a_version_banner_is_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let script = dir.path().join("agy");
        std::fs::write(&script, "#!/bin/sh\necho \"fake-agy 0.1.0\"\n").expect("write");
        let mut perms = std::fs::metadata(&script).expect("meta").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&script, perms).expect("chmod");
        assert!(verify_fake(&script, "fake-agy").is_err());
    }
}
