//! Live agy runs only on explicit request: `--live`, and in CI also
//! `AGY_HARNESS_ALLOW_LIVE=1`, so CI never spends quota by accident.

use crate::fatal::HarnessError;
use agy_protocol::env::AGY_HARNESS_ALLOW_LIVE;
use std::path::{Path, PathBuf};

/// Why a live run was refused. Shown as the message, then `help:` and the hint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LiveRefused {
    /// `--agy` without `--live`.
    #[error("{}\nhelp: {}", self.message(), self.hint())]
    NotAsked(PathBuf),
    /// In CI, `--live` without the environment's consent.
    #[error("{}\nhelp: {}", self.message(), self.hint())]
    CiWithoutConsent,
}

impl LiveRefused {
    /// What was refused.
    pub fn message(&self) -> String {
        match self {
            LiveRefused::NotAsked(agy) => format!(
                "`--agy {}` runs a real agy, which spends your quota",
                agy.display()
            ),
            LiveRefused::CiWithoutConsent => {
                format!("a live run in CI needs {AGY_HARNESS_ALLOW_LIVE}=1 as well as --live")
            }
        }
    }

    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            LiveRefused::NotAsked(_) => "add --live to mean it (and --budget N to cap the runs)",
            LiveRefused::CiWithoutConsent => "this keeps CI from spending quota by accident",
        }
    }
}

/// A refused live run ends the command: bad input, with its hint.
impl From<LiveRefused> for HarnessError {
    fn from(e: LiveRefused) -> HarnessError {
        HarnessError::bad_input(e.message()).with_hint(e.hint())
    }
}

/// Refuses a live run that was not asked for explicitly; the error carries a hint.
pub fn check_live_allowed(agy: &Path, live: bool) -> Result<(), LiveRefused> {
    if !live {
        return Err(LiveRefused::NotAsked(agy.to_path_buf()));
    }
    if std::env::var_os("CI").is_some()
        && std::env::var(AGY_HARNESS_ALLOW_LIVE).as_deref() != Ok("1")
    {
        return Err(LiveRefused::CiWithoutConsent);
    }
    Ok(())
}

#[cfg(test)]
mod refusal_tests {
    use super::*;

    #[test]
    fn a_refusal_reads_as_the_message_then_its_help_line() {
        let e = check_live_allowed(Path::new("/opt/agy"), false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "`--agy /opt/agy` runs a real agy, which spends your quota\nhelp: add --live to mean it (and --budget N to cap the runs)"
        );
        let fatal = HarnessError::from(e);
        assert_eq!(fatal.exit_code(), crate::exit_code::BAD_INPUT);
        assert_eq!(
            fatal.hint.as_deref(),
            Some("add --live to mean it (and --budget N to cap the runs)")
        );
    }
}
