//! The programs a command runs: fake-agy and the fake ACP agent (each verified by the
//! identity handshake), the reference adapter, and the adapter under test.

use crate::adapter_config::{load_adapter_config, AdapterConfig, ADAPTER_CONFIG_FILE};
use crate::fatal::HarnessError;
use crate::locate::{locate_binary, FAKE_AGY_ACP_BIN, FAKE_AGY_BIN, REFERENCE_ADAPTER_BIN};
use crate::options::RunnerArgs;
use crate::scenario::Scenario;
use agy_protocol::env::{
    AGY_HARNESS_FAKE_AGY, AGY_HARNESS_FAKE_AGY_ACP, AGY_HARNESS_REFERENCE_ADAPTER,
};
use agy_protocol::fault::{parse_fault_list, FaultInfo};
use agy_protocol::profile::Profile;
use std::path::{Path, PathBuf};

/// The binary at `given` (`what` names it in the error), else `$env_var`'s or the
/// one named `name` next to agy-harness ([`locate_binary`]; `package` builds it).
fn given_or_located(
    given: Option<&Path>,
    what: &str,
    name: &str,
    env_var: &str,
    package: &str,
) -> Result<PathBuf, HarnessError> {
    match given {
        Some(p) if p.is_file() => Ok(p.to_path_buf()),
        Some(p) => Err(HarnessError::could_not_run(format!(
            "{what} `{}` does not exist",
            p.display()
        ))),
        None => Ok(locate_binary(name, env_var, package)?),
    }
}

/// fake-agy: `--fake-agy`, `$AGY_HARNESS_FAKE_AGY`, or next to agy-harness, verified
/// by the identity handshake before it runs any scenario.
pub(crate) fn fake_agy(runner: &RunnerArgs) -> Result<PathBuf, HarnessError> {
    fake_agy_at(runner.fake_agy.as_deref())
}

/// fake-agy at `given`, else as [`fake_agy`] finds it, verified.
pub(crate) fn fake_agy_at(given: Option<&Path>) -> Result<PathBuf, HarnessError> {
    let found = given_or_located(
        given,
        "the fake-agy binary",
        FAKE_AGY_BIN,
        AGY_HARNESS_FAKE_AGY,
        "fake-agy",
    )?;
    verified(found, FAKE_AGY_BIN)
}

/// `path` once it has answered the identity handshake as `name`; a set-up error
/// (the harness cannot run) otherwise.
fn verified(path: PathBuf, name: &str) -> Result<PathBuf, HarnessError> {
    crate::fake_identity::verify_fake(&path, name)
        .map(|_| path)
        .map_err(|e| HarnessError::could_not_run(e.to_string()))
}

/// The fake ACP agent: `--fake-agy-acp`, `$AGY_HARNESS_FAKE_AGY_ACP`, or next to
/// agy-harness. Needed only when `scenarios` has a scenario that uses it and will run:
/// one of a profile the adapter implements (`profiles`), as the others are skipped.
pub(crate) fn fake_agy_acp(
    runner: &RunnerArgs,
    scenarios: &[Scenario],
    profiles: &[Profile],
) -> Result<Option<PathBuf>, HarnessError> {
    let needed = scenarios.iter().any(|s| {
        profiles.contains(&s.meta.profile) && crate::profile::unit(s.meta.profile).needs_fake_acp()
    });
    fake_agy_acp_if(runner, needed)
}

/// fake-agy-acp, verified, when `needed` (an acp scenario will run).
pub(crate) fn fake_agy_acp_if(
    runner: &RunnerArgs,
    needed: bool,
) -> Result<Option<PathBuf>, HarnessError> {
    let found = given_or_located(
        runner.fake_agy_acp.as_deref(),
        "the fake-agy-acp binary",
        FAKE_AGY_ACP_BIN,
        AGY_HARNESS_FAKE_AGY_ACP,
        "fake-agy-acp",
    );
    // Verified only when it will run; one that will not is not handed on.
    match found {
        Ok(p) if needed => verified(p, FAKE_AGY_ACP_BIN).map(Some),
        Err(e) if needed => Err(e),
        Ok(_) | Err(_) => Ok(None),
    }
}

/// The reference adapter: `--reference-adapter`, `$AGY_HARNESS_REFERENCE_ADAPTER`, or
/// next to agy-harness.
pub(crate) fn reference_adapter(runner: &RunnerArgs) -> Result<PathBuf, HarnessError> {
    given_or_located(
        runner.reference_adapter.as_deref(),
        "the reference adapter",
        REFERENCE_ADAPTER_BIN,
        AGY_HARNESS_REFERENCE_ADAPTER,
        "agy-reference-adapter",
    )
}

/// The adapter under test: the config file `adapter`; else, without `faults`, the
/// current folder's `agy-adapter.toml` (said on stderr), so a CI step that forgot
/// `--adapter` in an adapter's repository does not quietly test the reference adapter;
/// else the reference adapter with `faults` switched on.
pub(crate) fn adapter_config(
    adapter: Option<&Path>,
    faults: &[String],
    runner: &RunnerArgs,
) -> Result<AdapterConfig, HarnessError> {
    let found = Path::new(ADAPTER_CONFIG_FILE);
    let adapter = match adapter {
        None if faults.is_empty() && found.is_file() => {
            eprintln!(
                "note: testing the adapter of `{ADAPTER_CONFIG_FILE}` in the current folder; give `--adapter PATH` to test another, or run from another folder to test the reference adapter"
            );
            Some(found)
        }
        other => other,
    };
    match adapter {
        Some(path) => load_adapter_config(path)
            .map_err(|d| {
                eprint!("{d}");
                HarnessError::bad_input(format!(
                    "the adapter config `{}` is not valid",
                    path.display()
                ))
            })
            .and_then(|c| startable(c, path))
            .inspect(say_relied_on_sides),
        None => {
            let bin = reference_adapter(runner)?;
            let extra: Vec<String> = faults
                .iter()
                .flat_map(|f| ["--fault".to_string(), f.clone()])
                .collect();
            Ok(AdapterConfig::reference(&bin, &extra))
        }
    }
}

/// Says which side of a split record fake-agy takes because the config relies on it.
fn say_relied_on_sides(config: &AdapterConfig) {
    if let Some(side) = config.adapter.init_at {
        eprintln!(
            "note: fake-agy writes `init` {} in persistent mode for this adapter (`init_at` in its config): one side of a split record, docs/agy-reference.md, \"When `init` is written\"",
            match side {
                agy_protocol::script::InitAt::Start => "at process start",
                agy_protocol::script::InitAt::FirstLine => "after the first stdin line",
            }
        );
    }
}

/// `config` when its command's program exists and may be executed: a driver that was
/// never built is one setup error, said once, not a failure of every scenario.
fn startable(config: AdapterConfig, path: &Path) -> Result<AdapterConfig, HarnessError> {
    use std::os::unix::fs::PermissionsExt;
    let program = config.adapter.command.first().cloned().unwrap_or_default();
    let resolved = crate::driver_client::resolve_program(&program);
    let problem = match std::fs::metadata(&resolved) {
        Err(e) => format!("cannot be found ({e})"),
        Ok(m) if !m.is_file() => "is not a file".to_string(),
        Ok(m) if m.permissions().mode() & 0o111 == 0 => "is not executable".to_string(),
        Ok(_) => return Ok(config),
    };
    Err(HarnessError::could_not_run(format!(
        "the adapter cannot start: `{program}`, the program of `command` in `{}`, {problem}",
        path.display()
    ))
    .with_hint("build the driver first, or fix `command` (a relative path is read from the config's folder; a bare name is looked up on PATH)"))
}

/// Why the reference adapter's fault list could not be had.
#[derive(Debug, thiserror::Error)]
pub enum FaultListError {
    /// The adapter did not start.
    #[error("failed to run `{} --list-faults`: {source}", bin.display())]
    Spawn {
        /// The adapter.
        bin: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It ran and failed.
    #[error("`{} --list-faults` failed ({status}): {stderr}", bin.display())]
    Failed {
        /// The adapter.
        bin: PathBuf,
        /// How it ended.
        status: std::process::ExitStatus,
        /// Its stderr, trimmed.
        stderr: String,
    },
    /// Its list did not parse.
    #[error("{0}")]
    Parse(String),
}

/// An adapter without its fault list: the harness cannot run.
impl From<FaultListError> for HarnessError {
    fn from(e: FaultListError) -> HarnessError {
        HarnessError::could_not_run(e.to_string())
    }
}

/// Asks the reference adapter for its faults.
pub fn list_faults(bin: &Path) -> Result<Vec<FaultInfo>, FaultListError> {
    let out = std::process::Command::new(bin)
        .arg("--list-faults")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| FaultListError::Spawn {
            bin: bin.to_path_buf(),
            source,
        })?;
    if !out.status.success() {
        return Err(FaultListError::Failed {
            bin: bin.to_path_buf(),
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    parse_fault_list(&String::from_utf8_lossy(&out.stdout)).map_err(FaultListError::Parse)
}
