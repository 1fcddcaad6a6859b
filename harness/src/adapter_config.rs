//! The adapter config file: how to start the driver, which profiles it implements, how
//! its error names map to outcome classes, timeouts, and the expected-failure list.
//! Format reference: docs/harness.md.

use crate::mcp_table::{read_mcp_table, McpTable};
use crate::profile::Client;
use crate::scenario::Profile;
use agy_protocol::diag::{
    closest, deserialize_value, parse_toml_document, Diagnostic, Diagnostics, SourceFile,
    TableWalker,
};
use agy_protocol::driver::Outcome;
use agy_protocol::{GoDuration, Seconds};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;
use toml::de::DeValue;

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
    /// `[mcp]`: the tool of an MCP server (the `mcp` profile).
    pub mcp: Option<McpTable>,
}

/// `[adapter]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterSection {
    /// A name for reports.
    pub name: String,
    /// The driver's argv. A first word with a `/` is relative to the config file, and so
    /// is an argument that names a file there ([`crate::adapter_command`]).
    pub command: Vec<String>,
    /// Profiles the adapter implements; scenarios of other profiles are skipped.
    pub profiles: Vec<Profile>,
    /// Extra environment for the driver.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Strict mode: expectations that encode a seed's implementation choice
    /// (`strict = "…"` in a scenario) fail the scenario instead of being advice.
    #[serde(default)]
    pub strict: bool,
    /// The agy versions the adapter supports (`">=1.1.18"`): a scenario modelling
    /// another version is skipped as unsupported, and `matrix` marks such columns
    /// `unsupported` instead of running them. None: every version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agy_versions: Option<agy_protocol::VersionRange>,
    /// The side of a split record the adapter relies on: when agy writes `init` in
    /// persistent mode (docs/agy-reference.md, "When `init` is written"). fake-agy takes
    /// that side in every scenario that does not state its own. None: fake-agy's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_at: Option<agy_protocol::script::InitAt>,
    /// What the adapter offers its caller (docs/contract.md, "Premises and
    /// capabilities"): a scenario that requires anything else is not applicable. None
    /// (not declared): the adapter is taken to offer everything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offers: Option<Vec<agy_protocol::Premise>>,
    /// The calibration file (docs/calibration-format.md) fake-agy presents as agy in
    /// every scenario, relative to the config file; `run --calibration` overrides it.
    /// None: the built-in calibration of each scenario's version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agy_calibration: Option<std::path::PathBuf>,
    /// The reference adapter: a driverless profile's adapter is its subcommand named for
    /// the profile (`agy-reference-adapter acp-agent …`). Never read from a file.
    #[serde(skip)]
    pub reference: bool,
}

impl AdapterSection {
    /// Whether the adapter supports agy `v`.
    pub fn supports(&self, v: agy_protocol::AgyVersion) -> bool {
        self.agy_versions.as_ref().is_none_or(|r| r.contains(v))
    }

    /// The adapter's command line for scenarios of `profile`: [`AdapterSection::command`],
    /// with the profile's subcommand after the program for the reference adapter of a
    /// driverless profile.
    pub fn command_for(&self, profile: Profile) -> Vec<String> {
        let driverless = matches!(
            crate::profile::unit(profile).reach,
            crate::profile::Reach::Driverless { .. }
        );
        let mut command = self.command.clone();
        if self.reference && driverless && !command.is_empty() {
            command.insert(1, profile.as_str().to_string());
        }
        command
    }
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
    /// Seconds the adapter waits beyond an op's `timeout_s` before it kills agy, a
    /// constant it cannot scale (e.g. a fixed kill grace of 30). Added, unscaled, to the
    /// reply bound of every op that carries `timeout_s`, and to the scenario's limit.
    pub kill_grace_s: Seconds,
    /// `false`: the adapter applies `timeout_s` as given, without the time scale; the
    /// reply bound of an op with `timeout_s` then grows by `timeout_s` itself.
    pub scales_timeout_s: bool,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            scenario: Duration::from_secs(60).into(),
            reply: Duration::from_secs(20).into(),
            startup: Duration::from_secs(10).into(),
            grace: Duration::from_millis(500).into(),
            slack: Duration::from_secs(3).into(),
            kill_grace_s: Seconds::default(),
            scales_timeout_s: true,
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
    /// The adapter fails it on a race of its own, not every time: a pass is reported
    /// with the reason and does not fail the run.
    #[serde(default)]
    pub intermittent: bool,
    /// The expectations (`outcome`, `argv_lacks`, `driver`, …) the scenario fails on
    /// when it fails for the listed reason. Empty: any failure is the expected one.
    /// Listed: a failure on any other expectation is not the expected failure (a broken
    /// install, a new bug), and fails the run.
    #[serde(default)]
    pub fails_on: Vec<String>,
    /// Where `scenario` is written, for errors about the name.
    #[serde(skip)]
    pub site: Option<Diagnostic>,
}

const TOP_KEYS: &[&str] = &["adapter", "errors", "timeouts", "expected_failure", "mcp"];

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
                profiles: Profile::ALL.to_vec(),
                env: BTreeMap::new(),
                strict: true,
                agy_versions: None,
                init_at: None,
                offers: None,
                agy_calibration: None,
                reference: true,
            },
            errors,
            timeouts: Timeouts::default(),
            expected_failures: Vec::new(),
            mcp: Some(McpTable {
                tool: "agy".into(),
                prompt_arg: "prompt".into(),
                model_arg: Some("model".into()),
                conversation_arg: Some("conversation".into()),
                timeout_arg: Some("timeout_s".into()),
                continue_tool: None,
                conversation_from: Default::default(),
                arguments: Default::default(),
                command: Some(reference_subcommand(binary, "mcp", extra_args)),
                outside_profile: None,
                conversation_field: None,
            }),
        }
    }

    /// The driverless adapter's command line for `client` in scenarios of `profile`:
    /// `[mcp] command` when given, else the adapter's (see
    /// [`AdapterSection::command_for`]).
    pub fn driverless_command(&self, client: Client, profile: Profile) -> Vec<String> {
        match (client, &self.mcp) {
            (
                Client::Mcp,
                Some(McpTable {
                    command: Some(c), ..
                }),
            ) => c.clone(),
            _ => self.adapter.command_for(profile),
        }
    }

    /// The bridge's own options for `client` (`[mcp]` as `--tool NAME …`).
    pub fn bridge_options(&self, client: Client) -> Vec<String> {
        match (client, &self.mcp) {
            (Client::Mcp, Some(t)) => t.bridge_options(),
            _ => Vec::new(),
        }
    }

    /// True when `scenario` is on the expected-failure list.
    pub fn expects_failure(&self, scenario: &str) -> Option<&ExpectedFailure> {
        self.expected_failures
            .iter()
            .find(|e| e.scenario == scenario)
    }
}

/// The reference adapter's server for a driverless profile: its subcommand, then the
/// fault switches.
fn reference_subcommand(binary: &Path, subcommand: &str, extra_args: &[String]) -> Vec<String> {
    let mut command = vec![binary.display().to_string(), subcommand.to_string()];
    command.extend(extra_args.iter().cloned());
    command
}

/// `[[expected_failure]]` entries, each remembering where its `scenario` is written.
fn read_expected_failures(
    src: &SourceFile,
    root: &mut TableWalker<'_, '_>,
    diags: &mut Diagnostics,
) -> Vec<ExpectedFailure> {
    let mut out = Vec::new();
    for (i, element) in root
        .elements("expected_failure", diags)
        .into_iter()
        .enumerate()
    {
        let what = format!("`[[expected_failure]]` {}", i + 1);
        let Some(mut entry) = deserialize_value::<ExpectedFailure>(src, element, &what, diags)
        else {
            continue;
        };
        let at = match element.get_ref() {
            DeValue::Table(t) => t.get("scenario").map(|v| v.span().start),
            _ => None,
        };
        entry.site = Some(Diagnostic::at(src, at.unwrap_or(element.span().start), ""));
        out.push(entry);
    }
    out
}

/// Checks that every `[[expected_failure]]` names a scenario of the catalogue; an
/// unknown name is located, with the closest known name as the hint.
pub fn check_expected_failures<'a>(
    config: &AdapterConfig,
    names: impl Iterator<Item = &'a str> + Clone,
) -> Result<(), Diagnostics> {
    let mut diags = Diagnostics::new();
    for e in &config.expected_failures {
        if names.clone().any(|n| n == e.scenario) {
            continue;
        }
        let hint = match closest(&e.scenario, names.clone()) {
            Some(best) => format!("did you mean `{best}`?"),
            None => "give a scenario's `name` (see `agy-harness check` for the catalogue)".into(),
        };
        let message = format!(
            "`[[expected_failure]]` names scenario `{}`, which is not in the catalogue",
            e.scenario
        );
        let d = match &e.site {
            Some(site) => Diagnostic {
                message,
                ..site.clone()
            },
            None => Diagnostic::at_line("the adapter config", 1, 1, message),
        };
        diags.push(d.with_hint(hint));
    }
    diags.into_result(())
}

/// Refuses an `env` entry that would replace a variable the sandbox owns
/// (`agy_protocol::env::is_sandbox_owned`): `HOME`, `PATH` or `AGY_BIN` there would run
/// a real agy, or reach the user's profile, without `--live`.
fn check_env(
    src: &SourceFile,
    section: Option<&toml::Spanned<DeValue<'_>>>,
    adapter: &AdapterSection,
    diags: &mut Diagnostics,
) {
    let env = match section.map(|s| s.get_ref()) {
        Some(DeValue::Table(t)) => match t.get("env").map(|v| v.get_ref()) {
            Some(DeValue::Table(env)) => Some(env),
            _ => None,
        },
        _ => None,
    };
    for name in adapter.env.keys() {
        let entry = env.and_then(|t| t.get_key_value(name.as_str()));
        let fallback = section.map(|s| s.span().start).unwrap_or(0);
        if !agy_protocol::env::is_valid_name(name) {
            let at = entry.map_or(fallback, |(k, _)| k.span().start);
            diags.push(
                Diagnostic::at(
                    src,
                    at,
                    format!("`env` of `[adapter]` has the name {name:?}, which no environment can carry as one variable"),
                )
                .with_hint(
                    "a variable's name is letters, digits and `_`, not starting with a digit \
                     (`[A-Za-z_][A-Za-z0-9_]*`); a name holding `=` would become a second \
                     variable (`\"AGY_BIN=/x/agy\" = \"\"` sets `AGY_BIN`)",
                ),
            );
            continue;
        }
        if !agy_protocol::env::is_sandbox_owned(name) {
            continue;
        }
        let at = entry.map_or(fallback, |(_, v)| v.span().start);
        diags.push(
            Diagnostic::at(
                src,
                at,
                format!("`env` of `[adapter]` sets `{name}`, which the sandbox owns"),
            )
            .with_hint(
                "the harness sets `HOME`, `PATH`, `TMPDIR`, `AGY_BIN`, the driver's folders and \
                 every `FAKE_AGY_*` and `AGY_HARNESS_*` variable itself, so that every run \
                 stays in its sandbox; remove it (a real agy runs only with `--live`)",
            ),
        );
    }
}

/// The adapter config `agy-harness init` writes, and the one a command without
/// `--adapter` finds in the current folder.
pub const ADAPTER_CONFIG_FILE: &str = "agy-adapter.toml";

/// Reads an adapter config file.
pub fn load_adapter_config(path: &Path) -> Result<AdapterConfig, Diagnostics> {
    let display = path.display().to_string();
    let text =
        agy_protocol::file::read_file_bounded(path, agy_protocol::file::FILE_CAP).map_err(|e| {
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
    parse_config(
        &SourceFile::new(display, text),
        &base,
        CommandFiles::MustExist,
    )
}

/// Whether reading a config checks that the files its command names are there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CommandFiles {
    /// A config file of the user's: its program and driver file must exist, so `check`
    /// says so once, located, instead of every scenario of a run failing to start.
    MustExist,
    /// A config text on its own (tests, examples): its command is only resolved.
    Unchecked,
}

/// Parses an adapter config; relative command paths are resolved against `base`
/// ([`crate::adapter_command::resolve_command`]).
pub fn parse_adapter_config(src: &SourceFile, base: &Path) -> Result<AdapterConfig, Diagnostics> {
    parse_config(src, base, CommandFiles::Unchecked)
}

fn parse_config(
    src: &SourceFile,
    base: &Path,
    files: CommandFiles,
) -> Result<AdapterConfig, Diagnostics> {
    let mut diags = Diagnostics::new();
    let Some(doc) = parse_toml_document(src, &mut diags) else {
        return Err(diags);
    };
    let mut root = TableWalker::new(src, doc.get_ref(), 0, "the adapter config");
    let adapter: Option<AdapterSection> = root.required(
        "adapter",
        "add `[adapter]` with `name`, `command` and `profiles`; see docs/harness.md",
        &mut diags,
    );
    let errors: BTreeMap<String, Outcome> = root.get("errors", &mut diags).unwrap_or_default();
    let timeouts: Timeouts = root.get("timeouts", &mut diags).unwrap_or_default();
    let expected_failures = read_expected_failures(src, &mut root, &mut diags);
    let mcp = read_mcp_table(src, root.raw("mcp"), &mut diags);
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
    check_env(src, doc.get_ref().get("adapter"), &adapter, &mut diags);
    crate::adapter_command::resolve_command(&mut adapter.command, base);
    crate::adapter_command::resolve_env(&mut adapter.env, base);
    if let Some(file) = &mut adapter.agy_calibration {
        *file = crate::adapter_calibration::resolve_calibration(file, base);
        if files == CommandFiles::MustExist {
            let section = doc.get_ref().get("adapter");
            use crate::adapter_calibration::check_config_calibration as check;
            diags.extend(check(src, section, file, base));
        }
    }
    if files == CommandFiles::MustExist {
        for d in crate::adapter_command::missing_files(
            src,
            doc.get_ref().get("adapter"),
            &adapter.command,
            base,
        ) {
            diags.push(d);
        }
    }
    diags.into_result(AdapterConfig {
        adapter,
        errors,
        timeouts,
        expected_failures,
        mcp,
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
    fn an_expected_failure_naming_no_scenario_is_located_with_the_closest_name() {
        let src = SourceFile::new(
            "a.toml",
            "[adapter]\nname = \"x\"\ncommand = [\"d\"]\nprofiles = [\"oneshot\"]\n[[expected_failure]]\nscenario = \"oneshot/sucess\"\n",
        );
        let c = parse_adapter_config(&src, Path::new("/")).expect("parses");
        let names = ["oneshot/success", "oneshot/timeout"];
        let err = check_expected_failures(&c, names.iter().copied()).expect_err("unknown");
        let text = err.to_string();
        assert!(text.contains("a.toml:6:12"), "{text}");
        assert!(text.contains("did you mean `oneshot/success`?"), "{text}");
        assert!(check_expected_failures(&c, ["oneshot/sucess"].into_iter()).is_ok());
    }

    #[test]
    fn an_env_entry_replacing_a_sandbox_variable_is_a_located_error() {
        // Regression: `AGY_BIN`, `PATH` or `HOME` in `env` ran a real agy, or wrote into
        // the user's profile, on every scenario without `--live`.
        let src = SourceFile::new(
            "a.toml",
            "[adapter]\nname = \"x\"\ncommand = [\"d\"]\nprofiles = [\"oneshot\"]\nenv = { PROVIDER_LOG = \"debug\", AGY_BIN = \"/usr/bin/agy\", HOME = \"/home/u\", FAKE_AGY_JOURNAL = \"/j\" }\n",
        );
        let err = parse_adapter_config(&src, Path::new("/")).expect_err("refused");
        let text = err.to_string();
        for (name, col) in [("AGY_BIN", 43), ("HOME", 66), ("FAKE_AGY_JOURNAL", 96)] {
            assert!(
                text.contains(&format!("sets `{name}`, which the sandbox owns"))
                    && text.contains(&format!("a.toml:5:{col}")),
                "{name}: {text}"
            );
        }
        assert!(!text.contains("sets `PROVIDER_LOG`"), "{text}");
        let ok = SourceFile::new(
            "b.toml",
            "[adapter]\nname = \"x\"\ncommand = [\"d\"]\nprofiles = [\"oneshot\"]\nenv = { PROVIDER_LOG = \"debug\" }\n",
        );
        assert!(parse_adapter_config(&ok, Path::new("/")).is_ok());
    }

    #[test]
    fn an_env_name_that_is_not_a_variable_name_is_a_located_error() {
        // Regression: `"AGY_BIN=/x/agy" = ""` passed the sandbox-owned check and became
        // a second `AGY_BIN` entry in the driver's environment.
        let err =
            parse_with("env = { \"AGY_BIN=/x/agy\" = \"\", OK_NAME = \"1\", \"2X\" = \"\" }\n")
                .expect_err("refused");
        let text = err.to_string();
        assert!(
            text.contains("has the name \"AGY_BIN=/x/agy\"") && text.contains("a.toml:5:9"),
            "{text}"
        );
        assert!(text.contains("has the name \"2X\""), "{text}");
        assert!(text.contains("[A-Za-z_][A-Za-z0-9_]*"), "{text}");
        assert!(!text.contains("has the name \"OK_NAME\""), "{text}");
        assert_eq!(err.len(), 2, "{text}");
    }

    /// A minimal `[adapter]` table in `a.toml` (`extra` at its line 5), parsed.
    fn parse_with(extra: &str) -> Result<AdapterConfig, Diagnostics> {
        let src = SourceFile::new(
            "a.toml",
            format!(
                "[adapter]\nname = \"x\"\ncommand = [\"d\"]\nprofiles = [\"oneshot\"]\n{extra}"
            ),
        );
        parse_adapter_config(&src, Path::new("/base"))
    }

    #[test]
    fn supported_agy_versions_are_read_and_bound_what_runs() {
        let parse = parse_with;
        let v = |s: &str| s.parse::<agy_protocol::AgyVersion>().expect("version");
        let c = parse("agy_versions = \">=1.1.18\"\n").expect("parses");
        assert!(c.adapter.supports(v("1.2.6")));
        assert!(!c.adapter.supports(v("1.1.9")));
        assert!(parse("").expect("parses").adapter.supports(v("1.0.16")));
        let bad = parse("agy_versions = \">=one\"\n").expect_err("a bad range");
        assert!(bad.to_string().contains("a.toml:5"), "{bad}");
    }

    #[test]
    fn the_calibration_file_is_relative_to_the_config() {
        let c = parse_with("agy_calibration = \"cal/agy.toml\"\n").expect("parses");
        assert_eq!(
            c.adapter.agy_calibration.as_deref(),
            Some(Path::new("/base/cal/agy.toml"))
        );
        let c = parse_with("agy_calibration = \"/abs/agy.toml\"\n").expect("parses");
        assert_eq!(
            c.adapter.agy_calibration.as_deref(),
            Some(Path::new("/abs/agy.toml"))
        );
        assert_eq!(
            parse_with("").expect("parses").adapter.agy_calibration,
            None
        );
    }

    #[test]
    fn the_init_side_an_adapter_relies_on_is_read_and_a_wrong_one_located() {
        let parse = parse_with;
        let c = parse("init_at = \"start\"\n").expect("parses");
        assert_eq!(c.adapter.init_at, Some(agy_protocol::script::InitAt::Start));
        assert_eq!(parse("").expect("parses").adapter.init_at, None);
        let bad = parse("init_at = \"before_stdin\"\n").expect_err("not a side");
        assert!(bad.to_string().contains("a.toml:5"), "{bad}");
    }

    #[test]
    fn what_the_adapter_offers_is_read_and_a_misspelt_premise_located_with_a_guess() {
        use agy_protocol::Premise;
        let parse = parse_with;
        assert_eq!(parse("").expect("parses").adapter.offers, None);
        let c = parse("offers = [\"output-mode:json\", \"model-choice\"]\n").expect("parses");
        assert_eq!(
            c.adapter.offers,
            Some(vec![Premise::OutputJson, Premise::ModelChoice])
        );
        let bad = parse("offers = [\"output-mode:json\", \"model-choise\"]\n").expect_err("typo");
        let text = bad.to_string();
        assert!(text.contains("a.toml:5:"), "{text}");
        assert!(text.contains("did you mean `model-choice`?"), "{text}");
    }

    #[test]
    fn strict_mode_and_unscalable_timeouts_are_read() {
        let src = SourceFile::new(
            "a.toml",
            "[adapter]\nname = \"x\"\ncommand = [\"d\"]\nprofiles = [\"oneshot\"]\nstrict = true\n[timeouts]\nkill_grace_s = 30\nscales_timeout_s = false\n",
        );
        let c = parse_adapter_config(&src, Path::new("/")).expect("parses");
        assert!(c.adapter.strict);
        assert_eq!(c.timeouts.kill_grace_s.get(), 30.0);
        assert!(!c.timeouts.scales_timeout_s);
        let plain = SourceFile::new(
            "b.toml",
            "[adapter]\nname = \"x\"\ncommand = [\"d\"]\nprofiles = [\"oneshot\"]\n",
        );
        let c = parse_adapter_config(&plain, Path::new("/")).expect("parses");
        assert!(!c.adapter.strict);
        assert_eq!(c.timeouts.kill_grace_s.get(), 0.0);
        assert!(c.timeouts.scales_timeout_s);
    }

    #[test]
    fn an_out_of_range_kill_grace_is_located() {
        // Regression: `1e300` and `nan` were accepted silently.
        for value in ["1e300", "nan", "-1"] {
            let src = SourceFile::new(
                "a.toml",
                format!("[adapter]\nname = \"x\"\ncommand = [\"d\"]\nprofiles = [\"oneshot\"]\n[timeouts]\nkill_grace_s = {value}\n"),
            );
            let err = parse_adapter_config(&src, Path::new("/")).expect_err(value);
            let text = err.to_string();
            assert!(text.contains("out of range"), "{value}: {text}");
            assert!(text.contains("a.toml:6:"), "{value}: {text}");
        }
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
