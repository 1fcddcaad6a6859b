//! [`MockAgy`]: the sandbox folder, the `agy` in it, and the journal read back.

use super::error::{io, MockError};
use super::invocation::Invocation;
use agy_protocol::env::{FAKE_AGY_JOURNAL, FAKE_AGY_SCRIPT, FAKE_AGY_STATE_DIR};
use agy_protocol::journal::read_journal;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A running mock: a temporary folder with `home/`, `work/`, `bin/agy` and the journal.
/// `bin/agy` is a small script that runs fake-agy with this sandbox's `HOME`, script
/// and journal, so a program that runs it (by path, or as `agy` on [`MockAgy::path`])
/// reaches the fake with nothing else to configure, and the user's real `~/.gemini` is
/// never touched. Dropping the mock kills fake-agy processes still running and removes
/// the folder.
#[derive(Debug)]
pub struct MockAgy {
    dir: tempfile::TempDir,
}

impl MockAgy {
    pub(crate) fn lay_out(
        fake_agy: &Path,
        script: Option<&str>,
        knobs: &[(&str, String)],
    ) -> Result<MockAgy, MockError> {
        let dir = tempfile::Builder::new()
            .prefix("fake-agy-mock-")
            .tempdir()
            .map_err(io("create the mock's folder"))?;
        let mock = MockAgy { dir };
        for sub in ["home", "work", "bin", "state"] {
            std::fs::create_dir_all(mock.root().join(sub))
                .map_err(io(format!("create `{sub}/` in the mock's folder")))?;
        }
        let fake = std::fs::canonicalize(fake_agy)
            .map_err(io(format!("resolve `{}`", fake_agy.display())))?;
        let mut env: Vec<(&str, String)> = vec![
            ("HOME", mock.home().display().to_string()),
            (FAKE_AGY_JOURNAL, mock.journal().display().to_string()),
            (
                FAKE_AGY_STATE_DIR,
                mock.root().join("state").display().to_string(),
            ),
        ];
        if let Some(text) = script {
            let path = mock.root().join("script.toml");
            std::fs::write(&path, text).map_err(io("write the script"))?;
            env.push((FAKE_AGY_SCRIPT, path.display().to_string()));
        }
        env.extend(knobs.iter().map(|(k, v)| (*k, v.clone())));
        let wrapper = wrapper_script(&fake, &env);
        let agy = mock.agy();
        std::fs::write(&agy, wrapper).map_err(io("write `bin/agy`"))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&agy, std::fs::Permissions::from_mode(0o755))
            .map_err(io("make `bin/agy` executable"))?;
        Ok(mock)
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The `agy` to run: give it to your adapter as its agy binary.
    pub fn agy(&self) -> PathBuf {
        self.bin_dir().join("agy")
    }

    /// The folder holding `agy`.
    pub fn bin_dir(&self) -> PathBuf {
        self.root().join("bin")
    }

    /// `PATH` with [`MockAgy::bin_dir`] first, for a child that runs `agy` by name.
    pub fn path(&self) -> OsString {
        let rest = std::env::var_os("PATH").unwrap_or_default();
        let dirs = std::iter::once(self.bin_dir()).chain(std::env::split_paths(&rest));
        std::env::join_paths(dirs).unwrap_or_else(|_| self.bin_dir().into_os_string())
    }

    /// The sandbox's `HOME`: agy's brain folder (`.gemini/antigravity-cli/brain/`) is
    /// under it. An adapter that looks for agy's files must look here.
    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    /// A scratch folder for the adapter (its `--add-dir`).
    pub fn work_dir(&self) -> PathBuf {
        self.root().join("work")
    }

    /// The journal file (JSON lines, one record per invocation).
    pub fn journal(&self) -> PathBuf {
        self.root().join("journal.jsonl")
    }

    /// A command running [`MockAgy::agy`] in the work folder.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(self.agy());
        cmd.current_dir(self.work_dir());
        cmd
    }

    /// Sets `HOME` and `PATH` of `cmd` to the sandbox's: for an adapter run as a
    /// process that runs `agy` by name and reads agy's files under `HOME`.
    pub fn sandbox<'c>(&self, cmd: &'c mut Command) -> &'c mut Command {
        cmd.env("HOME", self.home()).env("PATH", self.path())
    }

    /// Every invocation so far, in the order they ended; those still running (or
    /// killed) last, with [`Invocation::complete`] false.
    pub fn invocations(&self) -> Result<Vec<Invocation>, MockError> {
        Ok(read_journal(&self.journal())?
            .into_iter()
            .map(Invocation::from)
            .collect())
    }

    /// The invocations for which `predicate` holds.
    pub fn invocations_where(
        &self,
        predicate: impl Fn(&Invocation) -> bool,
    ) -> Result<Vec<Invocation>, MockError> {
        Ok(self
            .invocations()?
            .into_iter()
            .filter(|i| predicate(i))
            .collect())
    }
}

impl Drop for MockAgy {
    fn drop(&mut self) {
        // A fake-agy still running belongs to this mock when its environment names this
        // journal; nothing else is signalled.
        let marker = format!("{FAKE_AGY_JOURNAL}={}", self.journal().display());
        let Ok(records) = read_journal(&self.journal()) else {
            return;
        };
        for r in records.iter().filter(|r| !r.complete) {
            let environ = std::fs::read(format!("/proc/{}/environ", r.pid)).unwrap_or_default();
            let ours = environ
                .split(|b| *b == 0)
                .any(|entry| entry == marker.as_bytes());
            if ours {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(r.pid as i32),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
}

/// `bin/agy`: exports the sandbox's knobs, then execs fake-agy (same pid, same signals).
fn wrapper_script(fake: &Path, env: &[(&str, String)]) -> String {
    let mut text =
        String::from("#!/bin/sh\n# fake-agy in a MockAgy sandbox (fake-agy's mock module)\n");
    for (k, v) in env {
        text.push_str(&format!("export {k}={}\n", sh_quote(v)));
    }
    text.push_str(&format!(
        "exec {} \"$@\"\n",
        sh_quote(&fake.display().to_string())
    ));
    text
}

/// `'…'` with every `'` closed, escaped and reopened.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropping_a_mock_whose_home_links_to_a_real_home_keeps_that_homes_token() {
        let outside = tempfile::tempdir().expect("outside");
        let token = outside
            .path()
            .join(".gemini/antigravity-cli/antigravity-oauth-token");
        std::fs::create_dir_all(token.parent().expect("profile")).expect("mkdir");
        std::fs::write(&token, "real token").expect("token");
        let mock = MockAgy::lay_out(Path::new("/bin/true"), None, &[]).expect("mock");
        std::fs::remove_dir(mock.home()).expect("rmdir");
        std::os::unix::fs::symlink(outside.path(), mock.home()).expect("symlink");
        let root = mock.root().to_path_buf();
        drop(mock);
        assert!(!root.exists(), "the mock's folder and its link go");
        assert_eq!(
            std::fs::read_to_string(&token).ok().as_deref(),
            Some("real token")
        );
    }

    #[test]
    fn quoting_survives_quotes_and_spaces() {
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn the_wrapper_exports_every_knob_then_execs_the_fake() {
        let text = wrapper_script(Path::new("/x/fake agy"), &[("HOME", "/s/home".into())]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[2], "export HOME='/s/home'");
        assert_eq!(lines.last().copied(), Some("exec '/x/fake agy' \"$@\""));
    }
}
