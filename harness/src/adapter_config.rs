//! The adapter config file: how to start the driver, which profiles it implements, how
//! its error names map to outcome classes, timeouts, and the expected-failure list.
//! Format reference: docs/harness.md.

use crate::scenario::Profile;
use agy_protocol::diag::{parse_toml_document, Diagnostic, Diagnostics, SourceFile, TableWalker};
use agy_protocol::driver::Outcome;
use agy_protocol::GoDuration;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A parsed adapter config.
#[derive(Debug, Clone, PartialEq)]
pub struct AdapterConfig {
    /// `[adapter]`.
    pub adapter: AdapterSection,
    /// `[errors]`: the adapter's error name → outcome class.
    pub errors: BTreeMap<String, Outcome>,
    /// `[timeouts]`.
    pub timeouts: Timeouts,
    /// `[[expected_failure]]`.
    pub expected_failures: Vec<ExpectedFailure>,
}

/// `[adapter]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterSection {
    /// A name for reports.
    pub name: String,
    /// The driver's argv. A first word with a `/` is relative to the config file.
    pub command: Vec<String>,
    /// Profiles the adapter implements; scenarios of other profiles are skipped.
    pub profiles: Vec<Profile>,
    /// Extra environment for the driver.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// `[timeouts]`: wall-clock bounds, not time-scaled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Timeouts {
    /// A whole scenario.
    pub scenario: GoDuration,
    /// One reply, when the op gives no `reply_within`.
    pub reply: GoDuration,
    /// Starting the driver and its `hello` reply.
    pub startup: GoDuration,
    /// SIGTERM → SIGKILL grace when the harness stops a driver.
    pub grace: GoDuration,
    /// Added to every time-scaled bound, for process start-up jitter.
    pub slack: GoDuration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            scenario: Duration::from_secs(60).into(),
            reply: Duration::from_secs(20).into(),
            startup: Duration::from_secs(10).into(),
            grace: Duration::from_millis(500).into(),
            slack: Duration::from_secs(3).into(),
        }
    }
}

/// `[[expected_failure]]`: a scenario the adapter is known to fail. If it passes, the
/// run fails, so the list never goes stale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedFailure {
    /// Scenario name.
    pub scenario: String,
    /// Why (a bug link).
    #[serde(default)]
    pub reason: String,
}

const TOP_KEYS: &[&str] = &["adapter", "errors", "timeouts", "expected_failure"];

impl AdapterConfig {
    /// The config of the reference adapter at `binary`, with `extra_args` (e.g. a
    /// `--fault`).
    pub fn reference(binary: &Path, extra_args: &[String]) -> AdapterConfig {
        let mut command = vec![binary.display().to_string()];
        command.extend(extra_args.iter().cloned());
        let errors = [
            ("ProviderTimeoutError", Outcome::Timeout),
            ("ProviderOutputMissingError", Outcome::OutputMissing),
            ("ProviderTransientError", Outcome::Transient),
            ("ProviderAuthError", Outcome::Auth),
            ("ProviderPermanentError", Outcome::Permanent),
            ("TurnTimeoutError", Outcome::Timeout),
            ("TurnTransientError", Outcome::Transient),
            ("TurnCancelledError", Outcome::Transient),
            ("TurnAuthError", Outcome::Auth),
            ("TurnFailedError", Outcome::Permanent),
            ("BadRequestError", Outcome::Permanent),
            ("AcpAuthError", Outcome::Auth),
            ("AcpAgentExitedError", Outcome::Transient),
            ("AcpRestoreFailedError", Outcome::Permanent),
            ("AcpHistoryOnlyError", Outcome::Permanent),
            ("AcpTurnCancelledError", Outcome::Transient),
            ("AcpProtocolError", Outcome::Permanent),
            ("AcpCheckpointError", Outcome::Permanent),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        AdapterConfig {
            adapter: AdapterSection {
                name: if extra_args.is_empty() {
                    "agy-reference-adapter".into()
                } else {
                    format!("agy-reference-adapter {}", extra_args.join(" "))
                },
                command,
                profiles: vec![Profile::Oneshot, Profile::Session, Profile::Acp],
                env: BTreeMap::new(),
            },
            errors,
            timeouts: Timeouts::default(),
            expected_failures: Vec::new(),
        }
    }

    /// True when `scenario` is on the expected-failure list.
    pub fn expects_failure(&self, scenario: &str) -> Option<&ExpectedFailure> {
        self.expected_failures
            .iter()
            .find(|e| e.scenario == scenario)
    }
}

/// Reads an adapter config file.
pub fn load_adapter_config(path: &Path) -> Result<AdapterConfig, Diagnostics> {
    let display = path.display().to_string();
    let text = agy_protocol::lines::read_file_bounded(path, agy_protocol::lines::FILE_CAP)
        .map_err(|e| {
            Diagnostics(vec![Diagnostic::at_line(
                display.clone(),
                1,
                1,
                format!("failed to read adapter config: {e}"),
            )
            .with_hint("check the path given to `--adapter`")])
        })?;
    // Absolute, because the driver runs with the sandbox's work dir as its cwd.
    let base = std::fs::canonicalize(path)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    parse_adapter_config(&SourceFile::new(display, text), &base)
}

/// Parses an adapter config; relative command paths are resolved against `base`.
pub fn parse_adapter_config(src: &SourceFile, base: &Path) -> Result<AdapterConfig, Diagnostics> {
    let mut diags = Diagnostics::new();
    let doc = parse_toml_document(src, &mut diags);
    let mut root = TableWalker::new(src, doc.get_ref(), 0, "the adapter config");
    let adapter: Option<AdapterSection> = root.required(
        "adapter",
        "add `[adapter]` with `name`, `command` and `profiles`; see docs/harness.md",
        &mut diags,
    );
    let errors: BTreeMap<String, Outcome> = root.get("errors", &mut diags).unwrap_or_default();
    let timeouts: Timeouts = root.get("timeouts", &mut diags).unwrap_or_default();
    let expected_failures: Vec<ExpectedFailure> =
        root.get("expected_failure", &mut diags).unwrap_or_default();
    root.finish(TOP_KEYS, &mut diags);
    if let Some(a) = &adapter {
        if a.command.is_empty() {
            let at = doc
                .get_ref()
                .get("adapter")
                .map(|v| v.span().start)
                .unwrap_or(0);
            diags.push(
                Diagnostic::at(src, at, "`command` of `[adapter]` is empty").with_hint(
                    "give the driver's argv, e.g. `command = [\"python3\", \"driver.py\"]`",
                ),
            );
        }
    }
    let Some(mut adapter) = adapter else {
        return Err(diags);
    };
    if let Some(first) = adapter.command.first_mut() {
        if first.contains('/') && Path::new(first.as_str()).is_relative() {
            *first = base.join(first.as_str()).display().to_string();
        }
    }
    for arg in adapter.command.iter_mut().skip(1) {
        let candidate: PathBuf = base.join(arg.as_str());
        if arg.contains('/') && Path::new(arg.as_str()).is_relative() && candidate.exists() {
            *arg = candidate.display().to_string();
        }
    }
    diags.into_result(AdapterConfig {
        adapter,
        errors,
        timeouts,
        expected_failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_config_parses_and_resolves_the_command() {
        let src = SourceFile::new(
            "a.toml",
            r#"
[adapter]
name = "py"
command = ["./driver.py", "--flag"]
profiles = ["oneshot"]
[errors]
ProviderTimeoutError = "timeout"
[timeouts]
reply = "5s"
[[expected_failure]]
scenario = "oneshot/x"
reason = "bug 12"
"#,
        );
        let c = parse_adapter_config(&src, Path::new("/base")).expect("parses");
        assert_eq!(c.adapter.command[0], "/base/./driver.py");
        assert_eq!(
            c.errors.get("ProviderTimeoutError"),
            Some(&Outcome::Timeout)
        );
        assert_eq!(c.timeouts.reply.0, Duration::from_secs(5));
        assert!(c.expects_failure("oneshot/x").is_some());
    }

    #[test]
    fn every_problem_is_located() {
        let src = SourceFile::new(
            "a.toml",
            "[adapter]\nname = \"x\"\ncommand = []\nprofiles = [\"oneshot\"]\n[errors]\nE = \"timout\"\n[timeout]\n",
        );
        let err = parse_adapter_config(&src, Path::new("/")).expect_err("rejects");
        let text = err.to_string();
        assert!(text.contains("a.toml:6:"), "{text}");
        assert!(text.contains("did you mean `timeout`"), "{text}");
        assert!(text.contains("did you mean `timeouts`"), "{text}");
        assert!(text.contains("`command` of `[adapter]` is empty"), "{text}");
    }
}
