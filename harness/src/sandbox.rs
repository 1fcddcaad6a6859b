//! The sandbox of one run: a temporary folder with its own `HOME`, a `bin/` holding
//! fake-agy as `agy`, the journal, and state and work folders. Every process started
//! in it carries [`MARKER_ENV`], and dropping the
//! sandbox kills whatever still carries it. The user's real `~/.gemini` is never
//! touched: `HOME` points inside the sandbox.
//!
//! Reusable by anything that runs agy or an adapter (scenario runs, spikes).
//!
//! Each sandbox has an owner file its harness keeps locked while the sandbox lives
//! (`owner`): the first sandbox a harness makes in a folder removes the ones there
//! whose owner has provably ended (`stale`). A copied sign-in token is the first file
//! removed, whether the sandbox is dropped or swept, and it is reached through
//! descriptors from the sandbox root, never through a link (`removal`).
//!
//! A scenario whose agy is signed in gets a `HOME` holding what a signed-in agy that has
//! run leaves (`signed_in`), before the adapter starts.

mod launcher;
mod owner;
mod removal;
mod signed_in;
mod stale;

use agy_process::{marked_processes, sweep_marked, MARKER_ENV};
use agy_protocol::env::{
    AGY_ACP_BIN, AGY_BIN, AGY_DRIVER_STATE_DIR, AGY_DRIVER_WORK_DIR, AGY_HARNESS_SANDBOX_DIR,
    AGY_HARNESS_TIME_SCALE, FAKE_AGY_ACP_JOURNAL, FAKE_AGY_ACP_SCRIPT, FAKE_AGY_ACP_SCRIPT_TABLE,
    FAKE_AGY_JOURNAL, FAKE_AGY_SCRIPT, FAKE_AGY_SCRIPT_TABLE, FAKE_AGY_STATE_DIR,
    FAKE_AGY_TIME_SCALE,
};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Variables passed through from the harness's own environment; everything else is
/// dropped so the user's settings cannot leak into a run.
const PASSED_THROUGH: &[&str] = &[
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "RUST_BACKTRACE",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "SYSTEMROOT",
];

/// One sandbox.
#[derive(Debug)]
pub struct Sandbox {
    dir: Option<tempfile::TempDir>,
    /// The locked owner file; declared after `dir`, so the folder is removed while
    /// the lock still says its owner lives.
    owner: Option<owner::Held>,
    root: PathBuf,
    marker: String,
    /// A sweep ran: every marked process was killed, so none is left to start another.
    swept: std::sync::atomic::AtomicBool,
}

impl Sandbox {
    /// Makes a sandbox under `$AGY_HARNESS_SANDBOX_DIR` when set, else the system temp
    /// dir; with `fake_agy`, installs it as `bin/agy` (a symlink, so `argv[0]` is `agy`).
    pub fn create(fake_agy: Option<&Path>) -> io::Result<Sandbox> {
        let parent = std::env::var_os(AGY_HARNESS_SANDBOX_DIR).filter(|d| !d.is_empty());
        Sandbox::create_in(parent.as_deref().map(Path::new), fake_agy)
    }

    /// [`Sandbox::create`] in `parent` (`None`: the system temp dir).
    /// The first sandbox this process makes in a folder first removes the sandboxes
    /// there that ended runs left (see `stale`).
    pub fn create_in(parent: Option<&Path>, fake_agy: Option<&Path>) -> io::Result<Sandbox> {
        let parent = parent.map_or_else(std::env::temp_dir, Path::to_path_buf);
        stale::sweep_once(&parent);
        // Private: it may hold a copied sign-in token, and a sweep takes only a private
        // folder for one the harness made.
        let dir = tempfile::Builder::new()
            .prefix(stale::SANDBOX_PREFIX)
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir_in(&parent)?;
        let root = dir.path().to_path_buf();
        let marker = root.display().to_string();
        let owner = owner::Owner::this_process(&marker).claim(&root)?;
        for sub in ["home", "bin", "fake-state", "driver-state", "work", "tmp"] {
            std::fs::create_dir_all(root.join(sub))?;
        }
        if let Some(fake) = fake_agy {
            let fake = std::fs::canonicalize(fake)?;
            std::os::unix::fs::symlink(&fake, root.join("bin").join("agy"))?;
        }
        Ok(Sandbox {
            marker,
            dir: Some(dir),
            owner,
            root,
            swept: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// The sandbox folder.
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// The `HOME` every process sees.
    pub fn home(&self) -> PathBuf {
        self.root.join("home")
    }
    /// The folder put first on `PATH`.
    pub fn bin(&self) -> PathBuf {
        self.root.join("bin")
    }
    /// fake-agy's journal.
    pub fn journal(&self) -> PathBuf {
        self.root.join("journal.jsonl")
    }
    /// fake-agy-acp's journal of ACP traffic.
    pub fn acp_journal(&self) -> PathBuf {
        self.root.join("acp-journal.jsonl")
    }
    /// The driver's state dir (kept across a harness-side restart).
    pub fn driver_state(&self) -> PathBuf {
        self.root.join("driver-state")
    }
    /// The adapter's workspace.
    pub fn work(&self) -> PathBuf {
        self.root.join("work")
    }
    /// Where the driver's stderr goes.
    pub fn driver_stderr(&self) -> PathBuf {
        self.root.join("driver.stderr")
    }
    /// The marker value processes of this sandbox carry.
    pub fn marker(&self) -> &str {
        &self.marker
    }

    /// The environment every process started in the sandbox gets, agy and adapters
    /// alike, and nothing of the user's but `PASSED_THROUGH`: `HOME` (and the XDG
    /// folders) inside the sandbox, `PATH` with `bin/` first, `TMPDIR`, the marker.
    pub fn base_env(&self) -> Vec<(String, String)> {
        let mut env: Vec<(String, String)> = PASSED_THROUGH
            .iter()
            .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
            .collect();
        let path = match std::env::var("PATH") {
            Ok(p) if !p.is_empty() => format!("{}:{p}", self.bin().display()),
            _ => format!("{}:/usr/bin:/bin", self.bin().display()),
        };
        let home = self.home().display().to_string();
        env.extend([
            ("PATH".to_string(), path),
            ("HOME".to_string(), home.clone()),
            ("USERPROFILE".to_string(), home.clone()),
            ("XDG_CONFIG_HOME".to_string(), format!("{home}/.config")),
            ("XDG_CACHE_HOME".to_string(), format!("{home}/.cache")),
            ("XDG_DATA_HOME".to_string(), format!("{home}/.local/share")),
            (
                "TMPDIR".to_string(),
                self.root.join("tmp").display().to_string(),
            ),
            (MARKER_ENV.to_string(), self.marker.clone()),
        ]);
        env
    }

    /// Makes `bin/agy` and `bin/agy_acp_server`, where they link to the fakes, launchers
    /// that carry the fakes' settings from `env` (the scenario's complete environment)
    /// to a caller that passes agy an environment of its own (`sandbox/launcher.rs`).
    pub fn bake_launchers(&self, env: &[(String, String)]) -> io::Result<()> {
        launcher::bake(&self.root, "agy", env)?;
        launcher::bake(&self.root, crate::locate::AGY_ACP_SERVER, env)
    }

    /// fake-agy's state folder.
    pub fn fake_state(&self) -> PathBuf {
        self.root.join("fake-state")
    }

    /// The environment of a scenario's driver: [`Sandbox::base_env`], fake-agy's knobs
    /// (with `script` = `(file, table)` when the scenario has one), the driver's state
    /// and work dirs, and the time scale for both sides.
    pub fn env(
        &self,
        script: Option<(&Path, Option<&str>)>,
        time_scale: f64,
    ) -> Vec<(String, String)> {
        let mut env = self.base_env();
        let scale = format!("{time_scale}");
        env.extend([
            (
                FAKE_AGY_JOURNAL.to_string(),
                self.journal().display().to_string(),
            ),
            (
                FAKE_AGY_STATE_DIR.to_string(),
                self.fake_state().display().to_string(),
            ),
            (FAKE_AGY_TIME_SCALE.to_string(), scale.clone()),
            (
                FAKE_AGY_ACP_JOURNAL.to_string(),
                self.acp_journal().display().to_string(),
            ),
            (AGY_HARNESS_TIME_SCALE.to_string(), scale),
            (
                AGY_DRIVER_STATE_DIR.to_string(),
                self.driver_state().display().to_string(),
            ),
            (
                AGY_DRIVER_WORK_DIR.to_string(),
                self.work().display().to_string(),
            ),
        ]);
        if let Some((file, table)) = script {
            env.push((FAKE_AGY_SCRIPT.to_string(), file.display().to_string()));
            if let Some(table) = table {
                env.push((FAKE_AGY_SCRIPT_TABLE.to_string(), table.to_string()));
            }
        }
        env
    }

    /// Installs `fake_agy_acp` as `bin/agy_acp_server` (a symlink) and points
    /// `AGY_ACP_BIN` at it in `env`; with `script`, fake-agy-acp reads its script from
    /// that file's `[acp]` table.
    pub fn install_acp_agent(
        &self,
        fake_agy_acp: &Path,
        script: Option<&Path>,
        env: &mut Vec<(String, String)>,
    ) -> io::Result<()> {
        let fake = std::fs::canonicalize(fake_agy_acp)?;
        let link = self.bin().join(crate::locate::AGY_ACP_SERVER);
        std::os::unix::fs::symlink(&fake, &link)?;
        env.push((AGY_ACP_BIN.into(), link.display().to_string()));
        if let Some(file) = script {
            env.push((FAKE_AGY_ACP_SCRIPT.into(), file.display().to_string()));
            env.push((FAKE_AGY_ACP_SCRIPT_TABLE.into(), "acp".into()));
        }
        Ok(())
    }

    /// Makes `env` describe a machine without agy: `PATH` keeps only folders that
    /// hold no `agy` (the sandbox's `bin/` loses its link), and `AGY_BIN` names a file
    /// that does not exist.
    pub fn without_agy(&self, env: &mut Vec<(String, String)>) {
        let _ = std::fs::remove_file(self.bin().join("agy"));
        let path = env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let kept: Vec<std::path::PathBuf> = std::env::split_paths(&path)
            .filter(|d| !d.join("agy").exists())
            .collect();
        let path = std::env::join_paths(kept)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| self.bin().display().to_string());
        env.retain(|(k, _)| k != "PATH" && k != AGY_BIN);
        env.push(("PATH".into(), path));
        env.push((AGY_BIN.into(), self.bin().join("agy").display().to_string()));
    }

    /// Live processes of this sandbox.
    pub fn running(&self) -> Vec<u32> {
        marked_processes(&self.marker)
    }

    /// Kills every process of this sandbox; returns the pids found.
    pub fn kill_all(&self) -> Vec<u32> {
        let found = sweep_marked(&self.marker, Duration::from_secs(2));
        self.swept.store(true, std::sync::atomic::Ordering::Release);
        found
    }

    /// Makes the sandbox's `HOME` look like one where agy is signed in and has run: the
    /// token file and an earlier run's log with its sign-in lines (`signed_in`). The
    /// token is removed first when the sandbox goes, as a copied one is.
    pub fn lay_signed_in(&self) -> io::Result<()> {
        signed_in::lay_signed_in(&self.home(), time::OffsetDateTime::now_utc())
    }

    /// Keeps the folder on disk after the sandbox is dropped (processes still die).
    /// Its owner file goes, so no later run sweeps it: a kept folder is the user's.
    pub fn keep(&mut self) -> PathBuf {
        if let Some(dir) = self.dir.take() {
            let _ = dir.keep();
            let _ = std::fs::remove_file(self.root.join(owner::OWNER_FILE));
            self.owner = None;
        }
        self.root.clone()
    }
}

/// The file agy keeps its sign-in token in when no OS keyring is reachable, in the
/// profile folder ([`profile_dir`]); `--credentials copy` copies it into a sandbox.
pub use agy_protocol::app_files::TOKEN_FILE;

/// The folders of agy's profile under `home`, outermost first.
const PROFILE_DIRS: [&str; 2] = [".gemini", "antigravity-cli"];

/// agy's profile folder under `home`: `.gemini/antigravity-cli`.
pub fn profile_dir(home: &Path) -> PathBuf {
    PROFILE_DIRS
        .iter()
        .fold(home.to_path_buf(), |p, d| p.join(d))
}

impl Drop for Sandbox {
    /// Kills what is left, unless a sweep already ran: a sweep ends when no marked
    /// process is left (or at its deadline, with ones SIGKILL does not end), and only a
    /// marked process starts another, so a second sweep would only read every
    /// process's environment in `/proc` again. The copied token goes before anything
    /// else, so a removal cut short leaves it last of all.
    fn drop(&mut self) {
        if !self.swept.load(std::sync::atomic::Ordering::Acquire) {
            self.kill_all();
        }
        if self.dir.is_some() {
            removal::remove_token(&self.root);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_points_home_and_path_into_the_sandbox() {
        let sb = Sandbox::create(None).expect("sandbox");
        let env = sb.env(Some((Path::new("/s.toml"), Some("agy"))), 0.5);
        let get = |k: &str| env.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone());
        assert_eq!(get("HOME"), Some(sb.home().display().to_string()));
        assert!(get("PATH")
            .unwrap_or_default()
            .starts_with(&sb.bin().display().to_string()));
        assert_eq!(get(FAKE_AGY_SCRIPT_TABLE).as_deref(), Some("agy"));
        assert_eq!(get(AGY_HARNESS_TIME_SCALE).as_deref(), Some("0.5"));
        assert_eq!(get(FAKE_AGY_TIME_SCALE).as_deref(), Some("0.5"));
        assert_eq!(
            get(FAKE_AGY_ACP_JOURNAL),
            Some(sb.acp_journal().display().to_string())
        );
        let root = sb.root().to_path_buf();
        drop(sb);
        assert!(!root.exists());
    }

    #[test]
    fn a_sandbox_is_made_in_the_folder_given_and_removed_with_it() {
        let parent = tempfile::tempdir().expect("parent");
        let sb = Sandbox::create_in(Some(parent.path()), None).expect("sandbox");
        assert_eq!(sb.root().parent(), Some(parent.path()));
        assert!(sb.home().is_dir());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(sb.root())
            .expect("stat")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "the folder is private");
        let root = sb.root().to_path_buf();
        drop(sb);
        assert!(!root.exists());
    }

    #[test]
    fn a_kept_sandbox_loses_its_owner_file_so_no_sweep_removes_it() {
        let parent = tempfile::tempdir().expect("parent");
        let mut sb = Sandbox::create_in(Some(parent.path()), None).expect("sandbox");
        assert!(
            owner::Owner::read(sb.root()).is_some(),
            "a new sandbox names its owner"
        );
        let token = profile_dir(&sb.home()).join(TOKEN_FILE);
        std::fs::create_dir_all(token.parent().expect("profile")).expect("mkdir");
        std::fs::write(&token, "secret").expect("token");
        let root = sb.keep();
        drop(sb);
        assert!(token.is_file(), "a kept sandbox keeps what it holds");
        assert!(!root.join(owner::OWNER_FILE).exists());
        assert_eq!(stale::sweep_stale(parent.path()), 0);
        assert!(root.is_dir());
    }

    #[test]
    fn a_live_sandbox_is_left_by_another_sweep_of_its_folder() {
        let parent = tempfile::tempdir().expect("parent");
        let sb = Sandbox::create_in(Some(parent.path()), None).expect("sandbox");
        assert_eq!(stale::sweep_stale(parent.path()), 0);
        assert!(sb.home().is_dir());
    }

    /// A profile outside any sandbox holding a sign-in token, as a user's is.
    fn outside_profile() -> (tempfile::TempDir, PathBuf) {
        let outside = tempfile::tempdir().expect("outside");
        let token = profile_dir(outside.path()).join(TOKEN_FILE);
        std::fs::create_dir_all(token.parent().expect("profile")).expect("mkdir");
        std::fs::write(&token, "real token").expect("token");
        (outside, token)
    }

    #[test]
    fn dropping_a_sandbox_whose_profile_links_outside_keeps_the_real_token() {
        // Each folder on the token's way in turn is a link to the user's.
        for linked in ["home", "home/.gemini", "home/.gemini/antigravity-cli"] {
            let (outside, token) = outside_profile();
            let target = outside
                .path()
                .join(linked.trim_start_matches("home").trim_start_matches('/'));
            let sb = Sandbox::create(None).expect("sandbox");
            let link = sb.root().join(linked);
            std::fs::create_dir_all(link.parent().expect("parent")).expect("mkdir");
            let _ = std::fs::remove_dir(&link);
            std::os::unix::fs::symlink(&target, &link).expect("symlink");
            let root = sb.root().to_path_buf();
            drop(sb);
            assert!(!root.exists(), "the sandbox goes ({linked} linked)");
            assert_eq!(
                std::fs::read_to_string(&token).ok().as_deref(),
                Some("real token"),
                "the token behind the sandbox's `{linked}` link stays"
            );
        }
    }

    #[test]
    fn dropping_a_sandbox_removes_its_own_copied_token_first() {
        let sb = Sandbox::create(None).expect("sandbox");
        let token = profile_dir(&sb.home()).join(TOKEN_FILE);
        std::fs::create_dir_all(token.parent().expect("profile")).expect("mkdir");
        std::fs::write(&token, "copied").expect("token");
        removal::remove_token(sb.root());
        assert!(!token.exists(), "the copied token is removed");
        assert!(token.parent().is_some_and(Path::is_dir), "and only it");
    }

    #[test]
    fn the_laid_sign_in_token_is_removed_as_a_copied_one_is() {
        let sb = Sandbox::create(None).expect("sandbox");
        sb.lay_signed_in().expect("laid");
        let token = profile_dir(&sb.home()).join(TOKEN_FILE);
        assert!(token.is_file(), "a signed-in sandbox holds the token");
        removal::remove_token(sb.root());
        assert!(!token.exists(), "the laid token is removed");
    }

    #[test]
    fn acp_agent_is_installed_as_agy_acp_server_with_its_script() {
        let sb = Sandbox::create(None).expect("sandbox");
        let fake = sb.root().join("fake-agy-acp");
        std::fs::write(&fake, "").expect("write");
        let mut env = Vec::new();
        sb.install_acp_agent(&fake, Some(Path::new("/s.toml")), &mut env)
            .expect("installs");
        let link = sb.bin().join("agy_acp_server");
        assert_eq!(
            std::fs::read_link(&link).ok(),
            std::fs::canonicalize(&fake).ok()
        );
        let get = |k: &str| env.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone());
        assert_eq!(get(AGY_ACP_BIN), Some(link.display().to_string()));
        assert_eq!(get(FAKE_AGY_ACP_SCRIPT).as_deref(), Some("/s.toml"));
        assert_eq!(get(FAKE_AGY_ACP_SCRIPT_TABLE).as_deref(), Some("acp"));
    }
}
