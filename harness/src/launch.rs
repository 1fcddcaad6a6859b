//! The one way the harness starts a process of an adapter or of agy: every spawn goes
//! through [`Launch`], which gives it
//!
//! - a sandbox ([`Sandbox`]): `HOME`, the XDG folders and `TMPDIR` inside it, the
//!   sandbox marker ([`MARKER_ENV`]) its sweep finds every descendant by;
//! - a cleared environment: [`Sandbox::base_env`] and what the caller adds, nothing
//!   else of the user's; every name checked against `[A-Za-z_][A-Za-z0-9_]*`
//!   ([`agy_protocol::env::is_valid_name`]) and refused otherwise, never passed on;
//! - fake-agy as `agy` and fake-agy-acp as `agy_acp_server` first on `PATH`
//!   ([`stand_in_fakes`]: a fake that is not at hand is replaced by a stub that refuses
//!   to run, so a real agy later on `PATH` is never reached by name), and the program
//!   itself looked up on that `PATH`;
//! - its own process group, dying with the harness (`PR_SET_PDEATHSIG`), under the
//!   [reaper](agy_process::reaper) when its host is found, so a descendant that left the
//!   group still dies with it;
//! - a start-up bound ([`within_startup`]) for the first answer the caller waits for.
//!
//! A process started by a bridge (which the runner started in a sandbox) inherits the
//! bridge's environment instead ([`Launch::inherited`]): it must carry the marker.
//!
//! What does not go through here is listed, with the reason, in the test
//! `every_spawn_of_the_harness_goes_through_the_launcher`.

use crate::sandbox::Sandbox;
use agy_process::{in_own_group, in_own_group_std, under_reaper, ParentDeath, MARKER_ENV};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a process was not started.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The command has no program.
    #[error("the command is empty")]
    EmptyCommand,
    /// An environment name no environment can carry as one variable.
    #[error(
        "refused to start `{program}`: {name:?} is not a variable name (`[A-Za-z_][A-Za-z0-9_]*`)"
    )]
    BadName {
        /// The program.
        program: String,
        /// The name.
        name: String,
    },
    /// An environment value holding a NUL byte.
    #[error("refused to start `{program}`: the value of `{name}` holds a NUL byte")]
    NulValue {
        /// The program.
        program: String,
        /// The variable.
        name: String,
    },
    /// A process meant to inherit a sandbox's environment, started outside any sandbox.
    #[error("refused to start `{program}` outside a sandbox: `{MARKER_ENV}` is not set")]
    NoSandbox {
        /// The program.
        program: String,
    },
    /// The program is not there (the reaper reports a missing program only by its exit).
    #[error("failed to start `{program}`: {source}")]
    Missing {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
}

/// How the process is placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    /// Its own group under the reaper (when its host is found).
    Reaped,
    /// Its own group, the program its leader, killed when the harness dies.
    Own,
    /// The caller's group, which the runner stops as a whole (a bridge's adapter).
    Callers,
}

/// A process to start: program, arguments, environment, folder.
#[derive(Debug, Clone)]
pub struct Launch {
    program: PathBuf,
    shown: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    cwd: PathBuf,
    group: Group,
}

impl Launch {
    /// `command` in `sandbox`: its base environment, its work folder, its own group
    /// under the reaper.
    pub fn in_sandbox(sandbox: &Sandbox, command: &[String]) -> Result<Launch, LaunchError> {
        let (program, args) = command.split_first().ok_or(LaunchError::EmptyCommand)?;
        Ok(Launch {
            program: PathBuf::from(program),
            shown: program.clone(),
            args: args.to_vec(),
            env: sandbox.base_env(),
            cwd: sandbox.work(),
            group: Group::Reaped,
        })
    }

    /// `command` with `env`, an environment a sandbox made ([`Sandbox::env`] and what
    /// a run adds), which must carry the marker; its own group under the reaper.
    pub fn with_sandbox_env(
        command: &[String],
        env: &[(String, String)],
    ) -> Result<Launch, LaunchError> {
        Launch::marked(command, env.to_vec(), Group::Reaped)
    }

    /// `command` started by a process that runs in a sandbox (a bridge): this process's
    /// environment, which must carry the marker, and its process group.
    pub fn inherited(command: &[String]) -> Result<Launch, LaunchError> {
        let env: Vec<(String, String)> = std::env::vars_os()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            })
            .collect();
        Launch::marked(command, env, Group::Callers)
    }

    /// `command` with `env`, which must carry a sandbox's marker, in `group`.
    fn marked(
        command: &[String],
        env: Vec<(String, String)>,
        group: Group,
    ) -> Result<Launch, LaunchError> {
        let (program, args) = command.split_first().ok_or(LaunchError::EmptyCommand)?;
        if !env.iter().any(|(k, v)| k == MARKER_ENV && !v.is_empty()) {
            return Err(LaunchError::NoSandbox {
                program: program.clone(),
            });
        }
        Ok(Launch {
            program: PathBuf::from(program),
            shown: program.clone(),
            args: args.to_vec(),
            env,
            cwd: PathBuf::from("."),
            group,
        })
    }

    /// Sets `vars` over the environment (a name set twice keeps the last value).
    pub fn envs<I, K, V>(mut self, vars: I) -> Launch
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        for (k, v) in vars {
            let k = k.into();
            self.env.retain(|(e, _)| *e != k);
            self.env.push((k, v.into()));
        }
        self
    }

    /// Replaces the whole environment with `env`, one a sandbox made
    /// ([`Sandbox::env`] and what the run adds).
    pub fn sandbox_env(mut self, env: &[(String, String)]) -> Launch {
        self.env = env.to_vec();
        self
    }

    /// Runs it in `dir`.
    pub fn cwd(mut self, dir: &Path) -> Launch {
        self.cwd = dir.to_path_buf();
        self
    }

    /// Without the reaper: the program leads its own group and gets SIGKILL when the
    /// harness dies (a probe of agy whose pid the caller signals itself).
    pub fn unreaped(mut self) -> Launch {
        self.group = Group::Own;
        self
    }

    /// The program as given.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The environment it gets, checked: every name a variable name, no NUL in a value.
    fn checked_env(&self) -> Result<&[(String, String)], LaunchError> {
        for (name, value) in &self.env {
            if !agy_protocol::env::is_valid_name(name) {
                return Err(LaunchError::BadName {
                    program: self.shown.clone(),
                    name: name.clone(),
                });
            }
            if value.contains('\0') {
                return Err(LaunchError::NulValue {
                    program: self.shown.clone(),
                    name: name.clone(),
                });
            }
        }
        Ok(&self.env)
    }

    /// The program: a bare name looked up on the `PATH` it gets (the sandbox's `bin/`
    /// first), so `agy` is fake-agy; a path as it is.
    fn resolved(&self) -> PathBuf {
        let path = self
            .env
            .iter()
            .rev()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.as_str())
            .unwrap_or("");
        resolve_on(&self.program, path)
    }

    /// The tokio command, and whether it runs under the reaper.
    pub fn command(&self) -> Result<(tokio::process::Command, bool), LaunchError> {
        let env = self.checked_env()?;
        let program = self.resolved();
        let host = match self.group {
            Group::Reaped => crate::locate::reaper_host(),
            Group::Own | Group::Callers => None,
        };
        let mut cmd = match host.as_deref() {
            Some(host) => {
                std::fs::metadata(&program).map_err(|source| LaunchError::Missing {
                    program: self.shown.clone(),
                    source,
                })?;
                under_reaper(host, &program, &self.args)
            }
            None => {
                let mut cmd = tokio::process::Command::new(&program);
                cmd.args(&self.args);
                if self.group != Group::Callers {
                    in_own_group(&mut cmd, ParentDeath::Kill);
                }
                cmd
            }
        };
        // A reaper is never killed on drop: SIGKILLed, it could not end the descendants
        // that left the group; its starter asks it to end the tree instead.
        cmd.env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .current_dir(&self.cwd)
            .kill_on_drop(host.is_none());
        Ok((cmd, host.is_some()))
    }

    /// A blocking command (no reaper: the caller waits for it and kills its group).
    pub fn std_command(&self) -> Result<std::process::Command, LaunchError> {
        let env = self.checked_env()?;
        let mut cmd = std::process::Command::new(self.resolved());
        cmd.args(&self.args)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .current_dir(&self.cwd);
        if self.group != Group::Callers {
            in_own_group_std(&mut cmd, ParentDeath::Kill);
        }
        Ok(cmd)
    }
}

/// Ends the tree of a process started under the reaper (`pid` is the reaper's, the
/// leader of its group): asks the reaper to kill every descendant (those that left
/// the group too) and waits, bounded, until it has, then SIGKILLs the group. The
/// group kill comes last: a reaper killed first would leave the descendants that left
/// the group behind.
pub fn end_reaped_tree(pid: u32) {
    let Ok(raw) = i32::try_from(pid) else {
        return;
    };
    let leader = nix::unistd::Pid::from_raw(raw);
    if nix::sys::signal::kill(leader, agy_process::reaper::KILL_TREE).is_ok() {
        agy_process::wait_gone(&[pid], Duration::from_secs(5));
    }
    agy_process::signal_group(pid, nix::sys::signal::Signal::SIGKILL);
}

/// Ends the tree of a started process when dropped: under the reaper, the whole tree
/// ([`end_reaped_tree`]); leading its own group, the group; in the caller's group,
/// nothing (the caller's own stop covers it).
#[derive(Debug)]
pub struct TreeGuard {
    pid: Option<u32>,
    reaped: bool,
    own_group: bool,
}

impl TreeGuard {
    /// The guard of the process `pid` started from `launch`, `reaped` as
    /// [`Launch::command`] said.
    pub fn new(launch: &Launch, pid: Option<u32>, reaped: bool) -> TreeGuard {
        TreeGuard {
            pid,
            reaped,
            own_group: launch.group != Group::Callers,
        }
    }
}

impl Drop for TreeGuard {
    fn drop(&mut self) {
        match (self.pid, self.reaped, self.own_group) {
            (Some(pid), true, _) => end_reaped_tree(pid),
            (Some(pid), false, true) => {
                agy_process::signal_group(pid, nix::sys::signal::Signal::SIGKILL);
            }
            _ => {}
        }
    }
}

/// `program` looked up on `path` when it is a bare name; as it is otherwise, or when
/// no folder of `path` holds it.
pub fn resolve_on(program: &Path, path: &str) -> PathBuf {
    if program.components().count() != 1 || program.to_string_lossy().contains('/') {
        return program.to_path_buf();
    }
    std::env::split_paths(path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| program.to_path_buf())
}

/// What a stub prints when a name the sandbox reserves for a fake is run.
fn stub(name: &str) -> String {
    format!(
        "#!/bin/sh\necho \"agy-harness: \\`{name}\\` is not available in this sandbox (no fake was found to stand in for it)\" >&2\nexit 127\n"
    )
}

/// Makes `agy` and `agy_acp_server` in the sandbox's `bin/` (first on its `PATH`)
/// the fakes when they were installed, else stubs that refuse to run: a real agy or
/// Antigravity ACP server further down the `PATH` is never reached by its name.
pub fn stand_in_fakes(sandbox: &Sandbox) -> std::io::Result<()> {
    for name in ["agy", crate::locate::AGY_ACP_SERVER] {
        stand_in(sandbox, name)?;
    }
    Ok(())
}

/// A stub that refuses to run as `name` in the sandbox's `bin/`, unless something
/// (the fake) is there already.
pub fn stand_in(sandbox: &Sandbox, name: &str) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let at = sandbox.bin().join(name);
    if at.symlink_metadata().is_ok() {
        return Ok(());
    }
    std::fs::write(&at, stub(name))?;
    std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o755))
}

/// The bound on the first answer of a started process.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{program}` did not answer {what} within {:.1} s (the adapter config's `[timeouts] startup`)", .within.as_secs_f64())]
pub struct StartupTimeout {
    /// The program.
    pub program: String,
    /// What it was asked.
    pub what: String,
    /// The bound.
    pub within: Duration,
}

/// `answer` bounded by `within`: the start-up timeout every launch waits under.
pub async fn within_startup<F: Future>(
    program: &str,
    what: &str,
    within: Duration,
    answer: F,
) -> Result<F::Output, StartupTimeout> {
    tokio::time::timeout(within, answer)
        .await
        .map_err(|_| StartupTimeout {
            program: program.to_string(),
            what: what.to_string(),
            within,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Where the harness starts a process without the launcher, and why.
    const ALLOWED: &[(&str, &str)] = &[
        ("launch.rs", "the launcher itself"),
        (
            "live/wrapper.rs",
            "the live wrapper is `agy` inside a live run's sandbox (started through the \
             launcher with the sandbox's environment) and runs the real agy the user named \
             with `--live`, passing its environment, stdio and signals through unchanged",
        ),
        (
            "fake_identity.rs",
            "the identity handshake runs a candidate fake before any sandbox exists: an \
             empty environment but PATH, a HOME and marker of its own, its own group, swept \
             after; it is how a binary earns its place as the sandbox's `agy`",
        ),
        (
            "binaries.rs",
            "asks the kit's own reference adapter binary for its fault table \
             (`--list-faults`): no agy and no adapter code runs",
        ),
    ];

    /// What in a line of Rust starts a process.
    const SPAWNS: &[&str] = &[
        "Command::new(",
        "TokioChildProcess",
        "under_reaper(",
        "process::Command",
    ];

    /// The production part of `text`: everything before its `#[cfg(test)]` module.
    fn production(text: &str) -> &str {
        text.find("#[cfg(test)]").map_or(text, |at| &text[..at])
    }

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir)
            .expect("readable source folder")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// Source file (relative to `src/`) → the spawning lines of its production code.
    fn spawning_files() -> BTreeMap<String, Vec<String>> {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let mut found = BTreeMap::new();
        for file in files {
            let text = std::fs::read_to_string(&file).expect("readable source");
            let lines: Vec<String> = production(&text)
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .filter(|l| SPAWNS.iter().any(|s| l.contains(s)))
                .map(|l| l.trim().to_string())
                .collect();
            if !lines.is_empty() {
                let rel = file.strip_prefix(&src).expect("below src");
                found.insert(rel.display().to_string(), lines);
            }
        }
        found
    }

    #[test]
    fn every_spawn_of_the_harness_goes_through_the_launcher() {
        let found = spawning_files();
        let allowed: Vec<&str> = ALLOWED.iter().map(|(f, _)| *f).collect();
        let bypass: Vec<(&String, &Vec<String>)> = found
            .iter()
            .filter(|(f, _)| !allowed.contains(&f.as_str()))
            .collect();
        assert!(
            bypass.is_empty(),
            "these start a process without `crate::launch::Launch` (use it, or add the \
             file to ALLOWED with the reason): {bypass:#?}"
        );
        let stale: Vec<&&str> = allowed
            .iter()
            .filter(|f| !found.contains_key(**f))
            .collect();
        assert!(stale.is_empty(), "allowed but starting nothing: {stale:?}");
    }

    #[test]
    fn the_scan_sees_a_spawn_in_production_code_and_not_in_tests() {
        let text = "fn f() { let c = std::process::Command::new(\"x\"); }\n#[cfg(test)]\nmod tests { fn g() { tokio::process::Command::new(\"y\"); } }\n";
        let prod = production(text);
        assert!(SPAWNS.iter().any(|s| prod.contains(s)));
        assert!(!prod.contains("\"y\""));
    }

    #[test]
    fn a_bad_environment_name_is_refused_not_passed_on() {
        // Regression: `AGY_BIN=/x/agy` as a name became a second `AGY_BIN`.
        let sandbox = Sandbox::create(None).expect("sandbox");
        let launch = Launch::in_sandbox(&sandbox, &["/bin/true".to_string()])
            .expect("a command")
            .envs([("AGY_BIN=/x/agy", "")]);
        let refused = launch.command().err();
        assert!(
            matches!(&refused, Some(LaunchError::BadName { name, .. }) if name == "AGY_BIN=/x/agy"),
            "{refused:?}"
        );
        assert!(matches!(
            launch.std_command().err(),
            Some(LaunchError::BadName { .. })
        ));
    }

    #[test]
    fn a_bare_program_name_is_found_on_the_sandbox_path_first() {
        let sandbox = Sandbox::create(None).expect("sandbox");
        stand_in_fakes(&sandbox).expect("stubs");
        let launch = Launch::in_sandbox(&sandbox, &["agy".to_string()]).expect("a command");
        assert_eq!(launch.resolved(), sandbox.bin().join("agy"));
        let acp = Launch::in_sandbox(&sandbox, &["agy_acp_server".to_string()]).expect("a command");
        assert_eq!(acp.resolved(), sandbox.bin().join("agy_acp_server"));
    }

    #[test]
    fn a_sandbox_environment_without_the_marker_is_refused() {
        let env = vec![("PATH".to_string(), "/usr/bin:/bin".to_string())];
        let refused = Launch::with_sandbox_env(&["/bin/true".to_string()], &env).err();
        assert!(
            matches!(refused, Some(LaunchError::NoSandbox { .. })),
            "{refused:?}"
        );
    }
}
