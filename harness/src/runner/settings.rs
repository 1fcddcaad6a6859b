//! How a run is set up: the settings every scenario of a run shares, and what they
//! make of one scenario's sandbox and driver environment.

use crate::adapter_config::AdapterConfig;
use crate::sandbox::Sandbox;
use crate::scenario::Scenario;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// How a run is set up.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// The adapter under test.
    pub config: AdapterConfig,
    /// The fake-agy binary installed as `agy`.
    pub fake_agy: PathBuf,
    /// The fake Antigravity ACP agent installed as `agy_acp_server` (acp scenarios).
    pub fake_agy_acp: Option<PathBuf>,
    /// Every scripted delay and adapter timeout is multiplied by this.
    pub time_scale: agy_protocol::TimeScale,
    /// Keep sandbox folders for inspection.
    pub keep_sandboxes: bool,
    /// Set for a live run: the real agy stands behind the live wrapper.
    pub live: Option<Arc<crate::live::LiveRun>>,
    /// The agy version fake-agy models (`FAKE_AGY_VERSION`); a script's own
    /// `[script] agy` still wins. None: fake-agy's default.
    pub agy_version: Option<agy_protocol::AgyVersion>,
    /// The side fake-agy takes on every behaviour edge the record leaves uncertain at
    /// its version (`FAKE_AGY_UNCERTAIN`); None: the side the version model chose.
    pub uncertain: Option<agy_protocol::version_evidence::UncertainSide>,
    /// The calibration file fake-agy presents as agy (`FAKE_AGY_CALIBRATION`), over the
    /// built-in one of each scenario's version. None: the built-in one.
    pub calibration: Option<PathBuf>,
}

impl RunSettings {
    /// These settings with at most `slack` added to each time-scaled bound (the
    /// adapter's `[timeouts] slack`, kept when already lower).
    pub fn with_slack_at_most(&self, slack: Duration) -> RunSettings {
        let mut s = self.clone();
        s.config.timeouts.slack = s.config.timeouts.slack.0.min(slack).into();
        s
    }
}

/// A cancellation signal shared by every scenario of a run (set on SIGINT).
pub type Cancel = watch::Receiver<bool>;

/// Why a scenario's sandbox could not be prepared; the words are those a report shows
/// after [`crate::report::SETUP_FAILURE`].
#[derive(Debug, thiserror::Error)]
pub(crate) enum PrepareError {
    /// The sandbox folder could not be made.
    #[error("failed to create the sandbox: {0}")]
    Sandbox(#[source] std::io::Error),
    /// fake-agy-acp could not be installed in the sandbox as `agy_acp_server`.
    #[error("failed to install fake-agy-acp in the sandbox: {0}")]
    InstallAcp(#[source] std::io::Error),
    /// `bin/agy` could not be made the launcher that carries the fakes' settings.
    #[error("failed to write the fakes' launchers in the sandbox: {0}")]
    Launchers(#[source] std::io::Error),
    /// The signed-in agy's token file and earlier log could not be laid.
    #[error("failed to lay the signed-in agy's files in the sandbox: {0}")]
    SignIn(#[source] std::io::Error),
    /// The scenario needs fake-agy-acp and the run has none.
    #[error(
        "no fake-agy-acp binary: build it with `cargo build -p fake-agy-acp`, or set `{}`",
        agy_protocol::env::AGY_HARNESS_FAKE_AGY_ACP
    )]
    NoFakeAcp,
}

/// Whether the scenario's fake agy is signed in: its script's `signed_out` decides (the
/// adapter's configuration cannot set `FAKE_AGY_SIGNED_OUT`, a sandbox-owned variable).
fn signed_in(s: &Scenario) -> bool {
    s.script
        .as_ref()
        .and_then(|script| script.script.signed_out)
        != Some(true)
}

/// The environment the driver is started with.
pub(crate) type Env = Vec<(String, String)>;

/// The sandbox, the driver's environment and the time scale of one run (of a scenario,
/// or of the bench's driver alone).
pub(crate) fn prepare(
    s: &Scenario,
    settings: &RunSettings,
) -> Result<(Sandbox, Env, f64), PrepareError> {
    // A live run installs agy-harness itself as `agy`: the wrapper in front of the
    // real binary (crate::live).
    let installed = match &settings.live {
        Some(_) => std::env::current_exe().unwrap_or_else(|_| settings.fake_agy.clone()),
        None => settings.fake_agy.clone(),
    };
    let sandbox = Sandbox::create(Some(&installed)).map_err(PrepareError::Sandbox)?;
    let scale = s.meta.time_scale.unwrap_or(settings.time_scale).get();
    let fake = s.fake_script();
    let mut env = sandbox.env(fake.as_ref().map(|(f, t)| (f.as_path(), *t)), scale);
    // The sandbox's own variables win: a config file setting one is refused when read
    // (adapter_config), and one built in code cannot replace them either.
    env.extend(
        settings
            .config
            .adapter
            .env
            .iter()
            .filter(|(k, _)| !agy_protocol::env::is_sandbox_owned(k))
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    if let Some(live) = &settings.live {
        let mut extra = live.env(&sandbox.home());
        extra.extend(live.record_env(&sandbox.fake_state()));
        env.retain(|(k, _)| !extra.iter().any(|(e, _)| e == k));
        env.extend(extra);
    }
    // The run's version (a matrix column) wins over the version the scenario models.
    if let Some(v) = settings.agy_version.or(s.meta.agy) {
        env.push((
            agy_protocol::env::FAKE_AGY_VERSION.to_string(),
            v.to_string(),
        ));
    }
    if let Some(file) = &settings.calibration {
        env.push((
            agy_protocol::env::FAKE_AGY_CALIBRATION.to_string(),
            file.display().to_string(),
        ));
    }
    if let Some(side) = settings.uncertain {
        env.push((
            agy_protocol::env::FAKE_AGY_UNCERTAIN.to_string(),
            side.as_str().to_string(),
        ));
    }
    // A scenario's own `[script] init_at` still wins inside fake-agy.
    if let Some(side) = settings.config.adapter.init_at {
        env.push((
            agy_protocol::env::FAKE_AGY_INIT_AT.to_string(),
            side.as_str().to_string(),
        ));
    }
    if s.meta.agy_installed == Some(false) {
        sandbox.without_agy(&mut env);
    } else if settings.live.is_none() && signed_in(s) {
        sandbox.lay_signed_in().map_err(PrepareError::SignIn)?;
    }
    if crate::profile::unit(s.meta.profile).needs_fake_acp() {
        match &settings.fake_agy_acp {
            Some(fake) => sandbox
                .install_acp_agent(fake, s.fake_acp_script().as_deref(), &mut env)
                .map_err(PrepareError::InstallAcp)?,
            None => return Err(PrepareError::NoFakeAcp),
        }
    }
    // A scenario without fake-agy-acp still finds no real Antigravity ACP server by name.
    crate::launch::stand_in(&sandbox, crate::locate::AGY_ACP_SERVER)
        .map_err(PrepareError::InstallAcp)?;
    if settings.live.is_none() {
        sandbox
            .bake_launchers(&env)
            .map_err(PrepareError::Launchers)?;
    }
    Ok((sandbox, env, scale))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::diag::SourceFile;
    use std::path::Path;

    fn settings(fake_agy_acp: Option<PathBuf>) -> RunSettings {
        let fake = std::env::current_exe().expect("this test binary");
        RunSettings {
            config: AdapterConfig::reference(&fake, &[]),
            fake_agy: fake,
            fake_agy_acp,
            time_scale: agy_protocol::TimeScale::default(),
            keep_sandboxes: false,
            live: None,
            agy_version: None,
            uncertain: None,
            calibration: None,
        }
    }

    fn oneshot(script: &str) -> Scenario {
        let text = format!(
            "[scenario]\nname = \"t/s\"\nprofile = \"oneshot\"\n{script}\n[[op]]\ngenerate = {{ prompt = \"p\" }}\n"
        );
        crate::scenario::parse_scenario(
            &SourceFile::new("t.toml", text.as_str()),
            Path::new("t.toml"),
        )
        .expect("parses")
    }

    /// The earlier log and the token a sandbox's agy profile holds.
    fn sign_in_traces(sandbox: &Sandbox) -> (Option<String>, bool) {
        let profile = crate::sandbox::profile_dir(&sandbox.home());
        let log = profile
            .join(agy_protocol::app_files::LOG_DIR)
            .join(agy_protocol::app_files::LOG_LINK);
        let token = profile.join(agy_protocol::app_files::TOKEN_FILE);
        (std::fs::read_to_string(log).ok(), token.is_file())
    }

    #[test]
    fn a_signed_in_scenario_s_sandbox_shows_an_earlier_sign_in_before_agy_runs() {
        let (sandbox, _, _) = prepare(&oneshot(""), &settings(None)).expect("prepared");
        let (log, token) = sign_in_traces(&sandbox);
        let log = log.expect("an earlier log");
        assert!(
            log.contains("authenticated successfully as fake-agy@example.com"),
            "{log}"
        );
        assert!(token, "the token file is there");
        assert!(
            !sandbox.journal().exists(),
            "no agy has run in the sandbox yet"
        );
    }

    #[test]
    fn a_signed_out_scenario_s_sandbox_holds_no_sign_in() {
        let scripted = oneshot("[agy.script]\nsigned_out = true\n");
        let (sandbox, _, _) = prepare(&scripted, &settings(None)).expect("prepared");
        assert_eq!(sign_in_traces(&sandbox), (None, false));
    }

    #[test]
    fn an_acp_scenario_without_fake_agy_acp_is_refused_before_it_runs() {
        let text = "[scenario]\nname = \"t/acp\"\nprofile = \"acp\"\n\n[[op]]\nacp_new = {}\n";
        let s =
            crate::scenario::parse_scenario(&SourceFile::new("t.toml", text), Path::new("t.toml"))
                .expect("parses");
        assert!(matches!(
            prepare(&s, &settings(None)),
            Err(PrepareError::NoFakeAcp)
        ));
        let missing = Some(PathBuf::from("/nonexistent/fake-agy-acp"));
        assert!(matches!(
            prepare(&s, &settings(missing)),
            Err(PrepareError::InstallAcp(_))
        ));
    }
}
