//! Live agy runs only on explicit request: `--live`, and in CI also
//! `AGY_HARNESS_ALLOW_LIVE=1`, so CI never spends quota by accident.

use agy_protocol::env::AGY_HARNESS_ALLOW_LIVE;
use std::path::Path;

/// Refuses a live run that was not asked for explicitly; the error carries a hint.
pub fn check_live_allowed(agy: &Path, live: bool) -> Result<(), String> {
    if !live {
        return Err(format!(
            "`--agy {}` runs a real agy, which spends your quota\nhelp: add --live to mean it (and --budget N to cap the runs)",
            agy.display()
        ));
    }
    if std::env::var_os("CI").is_some()
        && std::env::var(AGY_HARNESS_ALLOW_LIVE).as_deref() != Ok("1")
    {
        return Err(format!(
            "a live run in CI needs {AGY_HARNESS_ALLOW_LIVE}=1 as well as --live\nhelp: this keeps CI from spending quota by accident"
        ));
    }
    Ok(())
}
