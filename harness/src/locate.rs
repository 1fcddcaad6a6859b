//! Where the binaries and the catalogue are: environment overrides first, then next to
//! the `agy-harness` executable (how `cargo build` lays out `target/<profile>/`).

use crate::embedded::EmbeddedError;
use crate::fatal::HarnessError;
use agy_protocol::env::AGY_HARNESS_SPIKES;
use std::path::{Path, PathBuf};

/// Why a binary or the catalogue was not found.
#[derive(Debug, thiserror::Error)]
pub enum LocateError {
    /// The environment override names no file.
    #[error("`{env_var}` names `{}`, which is not a file", path.display())]
    EnvNotAFile {
        /// The override's name.
        env_var: String,
        /// What it names.
        path: PathBuf,
    },
    /// This executable's own path is unknown.
    #[error("cannot find this executable: {0}")]
    NoExecutable(std::io::Error),
    /// The binary is not beside this executable (nor one folder up).
    #[error("cannot find `{name}` next to `{}`; build it with `cargo build -p {package}` (same profile), or set `{env_var}`", exe.display())]
    NotBuilt {
        /// The binary's name.
        name: String,
        /// This executable.
        exe: PathBuf,
        /// The package that builds it.
        package: String,
        /// The override that names it instead.
        env_var: String,
    },
    /// The built-in catalogue could not be written out.
    #[error(transparent)]
    Embedded(#[from] EmbeddedError),
}

/// A binary or catalogue that is not there: the harness cannot run.
impl From<LocateError> for HarnessError {
    fn from(e: LocateError) -> HarnessError {
        HarnessError::could_not_run(e.to_string())
    }
}

/// The fake-agy binary's name.
pub const FAKE_AGY_BIN: &str = "fake-agy";
/// The fake Antigravity ACP agent's binary name.
pub const FAKE_AGY_ACP_BIN: &str = "fake-agy-acp";
/// The name ACP clients look for on `PATH`: Antigravity's ACP server (docs/agy-acp-reference.md §2.2).
pub const AGY_ACP_SERVER: &str = "agy_acp_server";
/// agy-harness's own binary name.
pub const HARNESS_BIN: &str = "agy-harness";
/// The reference adapter binary's name.
pub const REFERENCE_ADAPTER_BIN: &str = "agy-reference-adapter";

/// Finds binary `name`: `$env_var`, else next to this executable, else one folder up
/// (test executables live in `target/<profile>/deps/`).
pub fn locate_binary(name: &str, env_var: &str, package: &str) -> Result<PathBuf, LocateError> {
    if let Some(p) = std::env::var_os(env_var).filter(|v| !v.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(LocateError::EnvNotAFile {
                env_var: env_var.to_string(),
                path: p,
            })
        };
    }
    let exe = std::env::current_exe().map_err(LocateError::NoExecutable)?;
    let dirs: Vec<&Path> = exe.ancestors().skip(1).take(2).collect();
    for d in &dirs {
        let candidate = d.join(name);
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    Err(LocateError::NotBuilt {
        name: name.to_string(),
        exe,
        package: package.to_string(),
        env_var: env_var.to_string(),
    })
}

/// The binary hosting the [reaper](agy_process::reaper) drivers run under:
/// this executable when it is agy-harness, else (the harness used as a library, as in
/// its tests) the agy-harness beside it or one folder up; `None` when there is none,
/// and drivers then run without a reaper (group kill and marker sweep only).
pub fn reaper_host() -> Option<PathBuf> {
    static HOST: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let exe = std::env::current_exe().ok()?;
        if exe.file_name().and_then(|n| n.to_str()) == Some(HARNESS_BIN) {
            return Some(exe);
        }
        exe.ancestors()
            .skip(1)
            .take(2)
            .map(|d| d.join(HARNESS_BIN))
            .find(|p| p.is_file())
    })
    .clone()
}

/// The catalogue folder: `--scenarios` / `$AGY_HARNESS_SCENARIOS` (`given`), else
/// `./scenarios`, else the catalogue built into this binary.
pub fn default_catalogue(given: Option<&Path>) -> Result<PathBuf, LocateError> {
    if let Some(p) = given.filter(|p| !p.as_os_str().is_empty()) {
        return Ok(p.to_path_buf());
    }
    let here = PathBuf::from("scenarios");
    if here.is_dir() {
        return Ok(here);
    }
    Ok(crate::embedded::catalogue_dir()?)
}

/// The spike folder: `$AGY_HARNESS_SPIKES`, else `./spikes` when it holds a spike file
/// (`*.toml`), else the spikes built into this binary (a `spikes/` folder of another
/// kind in the current folder does not replace them).
pub fn default_spikes() -> PathBuf {
    if let Some(p) = std::env::var_os(AGY_HARNESS_SPIKES).filter(|v| !v.is_empty()) {
        return PathBuf::from(p);
    }
    let here = PathBuf::from("spikes");
    if holds_toml(&here) {
        return here;
    }
    crate::embedded::spikes_dir().unwrap_or_else(|_| source_tree().join("spikes"))
}

/// `path` made absolute against the current folder (as given when it is absolute, or
/// when the current folder is unknown): for a binary a process started in another
/// folder runs.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Whether `dir` is a folder with a `*.toml` file in it.
fn holds_toml(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().extension().and_then(|x| x.to_str()) == Some("toml"))
    })
}

/// The workspace this binary was built from.
fn source_tree() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// A scenario path as reports show it: relative to the working folder when it is
/// below it, with `.` and `..` folded away; `built-in:scenarios/…` for the catalogue
/// built into the binary.
pub fn shown_path(path: &Path) -> String {
    if let Some(rel) = crate::embedded::written_catalogue().and_then(|r| path.strip_prefix(r).ok())
    {
        return format!("{}/{}", crate::embedded::BUILT_IN, rel.display());
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let absolute = fold_dots(&cwd.join(path));
    match absolute.strip_prefix(fold_dots(&cwd)) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => absolute.display().to_string(),
    }
}

/// `path` with `.` dropped and each `..` taking away the component before it.
fn fold_dots(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_paths_fold_parent_steps_and_are_relative_below_the_working_folder() {
        let cwd = std::env::current_dir().expect("cwd");
        let inside = cwd.join("harness/../scenarios/oneshot/x.toml");
        assert_eq!(shown_path(&inside), "scenarios/oneshot/x.toml");
        assert_eq!(shown_path(Path::new("./a/./b/../c.toml")), "a/c.toml");
        assert_eq!(
            shown_path(Path::new("/elsewhere/q/../s.toml")),
            "/elsewhere/s.toml"
        );
    }
}
