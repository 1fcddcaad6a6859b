//! The agent's out-of-band knobs, read from the environment once at start.

use super::error::AcpFakeError;
use agy_protocol::acp::script::{parse_acp_script_file, AcpScript};
use agy_protocol::acp::AcpServerVersion;
use agy_protocol::env::{
    FAKE_AGY_ACP_JOURNAL, FAKE_AGY_ACP_SCRIPT, FAKE_AGY_ACP_SCRIPT_TABLE, FAKE_AGY_ACP_VERSION,
    FAKE_AGY_TIME_SCALE,
};
use agy_protocol::TimeScale;
use std::path::PathBuf;
use std::time::Duration;

/// Everything the agent needs from its environment.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub(crate) script: AcpScript,
    pub(crate) journal: Option<PathBuf>,
    pub(crate) version: AcpServerVersion,
    pub(crate) time_scale: TimeScale,
    /// `$GEMINI_HOME`, else `$HOME/.gemini` (docs/agy-acp-reference.md §2.2).
    pub(crate) state_root: PathBuf,
}

impl Settings {
    /// Reads the environment; a bad knob or script is the fake's own failure.
    pub(crate) fn from_env() -> Result<Settings, AcpFakeError> {
        let script = match std::env::var_os(FAKE_AGY_ACP_SCRIPT) {
            Some(path) if !path.is_empty() => {
                let table = std::env::var(FAKE_AGY_ACP_SCRIPT_TABLE)
                    .ok()
                    .filter(|t| !t.is_empty());
                parse_acp_script_file(&PathBuf::from(path), table.as_deref())
                    .map_err(AcpFakeError::Script)?
            }
            _ => AcpScript::default(),
        };
        let version = match (&script.agent.version, std::env::var(FAKE_AGY_ACP_VERSION)) {
            (Some(v), _) => v.clone(),
            (None, Ok(text)) if !text.is_empty() => {
                text.parse().map_err(|message| AcpFakeError::Knob {
                    name: FAKE_AGY_ACP_VERSION,
                    message,
                })?
            }
            _ => AcpServerVersion::default_modelled(),
        };
        let time_scale = match std::env::var_os(FAKE_AGY_TIME_SCALE) {
            Some(text) if !text.is_empty() => {
                let text = text.to_string_lossy();
                TimeScale::parse(&text).map_err(|e| AcpFakeError::Knob {
                    name: FAKE_AGY_TIME_SCALE,
                    message: format!("{e}; {}", e.hint()),
                })?
            }
            _ => TimeScale::ONE,
        };
        let state_root = match (std::env::var_os("GEMINI_HOME"), std::env::var_os("HOME")) {
            (Some(g), _) if !g.is_empty() => PathBuf::from(g),
            (_, Some(h)) if !h.is_empty() => PathBuf::from(h).join(".gemini"),
            _ => {
                return Err(AcpFakeError::Knob {
                    name: "HOME",
                    message: "neither `GEMINI_HOME` nor `HOME` is set; sessions need a home".into(),
                })
            }
        };
        Ok(Settings {
            script,
            journal: std::env::var_os(FAKE_AGY_ACP_JOURNAL)
                .filter(|p| !p.is_empty())
                .map(PathBuf::from),
            version,
            time_scale,
            state_root,
        })
    }

    /// A scripted delay after the time scale.
    pub(crate) fn scaled(&self, d: Duration) -> Duration {
        self.time_scale.scale(d)
    }
}
