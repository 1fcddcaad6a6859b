//! Out-of-band control: the `FAKE_AGY_*` environment variables (docs/fake-agy.md).

use crate::error::FakeError;
use agy_protocol::env::{
    FAKE_AGY_CALIBRATION, FAKE_AGY_IMAGE_DURATION, FAKE_AGY_INIT_AT, FAKE_AGY_JOURNAL,
    FAKE_AGY_QUOTA_EXHAUSTED, FAKE_AGY_SCRIPT, FAKE_AGY_SCRIPT_TABLE, FAKE_AGY_SIGNED_OUT,
    FAKE_AGY_STATE_DIR, FAKE_AGY_TIME_SCALE, FAKE_AGY_TURN_DURATION, FAKE_AGY_UNCERTAIN,
    FAKE_AGY_VERSION,
};
use agy_protocol::script::InitAt;
use agy_protocol::version_evidence::UncertainSide;
use agy_protocol::{AgyVersion, GoDuration, TimeScale};
use std::path::PathBuf;
use std::time::Duration;

/// How long a default text turn takes when nothing else says (before the time scale).
/// Real turns take seconds (docs/agy-reference.md §6: 2.7 s for "PONG"); the fake is quick by
/// default so suites stay fast, and a test that needs a slow turn sets a knob.
pub const DEFAULT_TURN_DURATION: Duration = Duration::from_millis(20);
/// How long a default image turn takes (real: 32–40 s, docs/spike-records.md S7).
pub const DEFAULT_IMAGE_DURATION: Duration = Duration::from_millis(50);

/// Every knob, read once at start.
#[derive(Debug, Clone, PartialEq)]
pub struct Knobs {
    /// `FAKE_AGY_SCRIPT`: the script file.
    pub script: Option<PathBuf>,
    /// `FAKE_AGY_SCRIPT_TABLE`: the table of that file holding the script (`agy`).
    pub script_table: Option<String>,
    /// `FAKE_AGY_JOURNAL`: the JSON-lines journal.
    pub journal: Option<PathBuf>,
    /// `FAKE_AGY_STATE_DIR`: cross-invocation state of one scenario.
    pub state_dir: Option<PathBuf>,
    /// `FAKE_AGY_VERSION`: the modelled agy version.
    pub version: AgyVersion,
    /// `FAKE_AGY_CALIBRATION`: the calibration file, over the version's built-in one.
    pub calibration: Option<PathBuf>,
    /// `FAKE_AGY_UNCERTAIN`: the side taken on the version model's edges the record
    /// leaves open at `version`; `None` keeps the modelled side.
    pub uncertain: Option<UncertainSide>,
    /// `FAKE_AGY_TIME_SCALE`: multiplies every delay.
    pub time_scale: TimeScale,
    /// `FAKE_AGY_TURN_DURATION`: default text turn length.
    pub turn_duration: Duration,
    /// `FAKE_AGY_IMAGE_DURATION`: default image turn length.
    pub image_duration: Duration,
    /// `FAKE_AGY_QUOTA_EXHAUSTED`: the account's quota is used up (`1`/`true`).
    pub quota_exhausted: bool,
    /// `FAKE_AGY_SIGNED_OUT`: agy has no credentials (`1`/`true`).
    pub signed_out: bool,
    /// `FAKE_AGY_INIT_AT`: when persistent mode writes `init`; `None`: the modelled side.
    pub init_at: Option<InitAt>,
    /// `HOME`.
    pub home: Option<PathBuf>,
    /// `ANTIGRAVITY_APP_DATA_DIR` (docs/agy-reference.md §5).
    pub app_data_dir: Option<PathBuf>,
}

impl Knobs {
    /// Reads the knobs through `get` (the process environment in the binary).
    pub fn read(get: impl Fn(&str) -> Option<String>) -> Result<Knobs, FakeError> {
        let non_empty = |name: &str| get(name).filter(|v| !v.is_empty());
        let version = match non_empty(FAKE_AGY_VERSION) {
            None => AgyVersion::DEFAULT,
            Some(v) => v.parse().map_err(|hint| FakeError::Knob {
                name: FAKE_AGY_VERSION,
                value: v.clone(),
                hint,
            })?,
        };
        let uncertain = match non_empty(FAKE_AGY_UNCERTAIN) {
            None => None,
            Some(v) => Some(UncertainSide::parse(&v).ok_or_else(|| FakeError::Knob {
                name: FAKE_AGY_UNCERTAIN,
                value: v.clone(),
                hint: "write `before` or `after`".into(),
            })?),
        };
        let init_at = match non_empty(FAKE_AGY_INIT_AT) {
            None => None,
            Some(v) => Some(InitAt::parse(&v).ok_or_else(|| FakeError::Knob {
                name: FAKE_AGY_INIT_AT,
                value: v.clone(),
                hint: "write `first_line` or `start`".into(),
            })?),
        };
        let time_scale = match non_empty(FAKE_AGY_TIME_SCALE) {
            None => TimeScale::ONE,
            Some(v) => TimeScale::parse(&v).map_err(|e| FakeError::Knob {
                name: FAKE_AGY_TIME_SCALE,
                value: v.clone(),
                hint: e.hint(),
            })?,
        };
        let duration = |name: &'static str, default: Duration| match non_empty(name) {
            None => Ok(default),
            Some(v) => GoDuration::parse(&v)
                .map(|d| d.0)
                .map_err(|_| FakeError::Knob {
                    name,
                    value: v,
                    hint: "write a Go duration such as `250ms`, `3s` or `1m30s`".into(),
                }),
        };
        let flag = |name: &'static str, hint: &str| match non_empty(name).as_deref() {
            None | Some("0" | "false") => Ok(false),
            Some("1" | "true") => Ok(true),
            Some(v) => Err(FakeError::Knob {
                name,
                value: v.to_string(),
                hint: hint.into(),
            }),
        };
        Ok(Knobs {
            script: non_empty(FAKE_AGY_SCRIPT).map(PathBuf::from),
            script_table: non_empty(FAKE_AGY_SCRIPT_TABLE),
            journal: non_empty(FAKE_AGY_JOURNAL).map(PathBuf::from),
            state_dir: non_empty(FAKE_AGY_STATE_DIR).map(PathBuf::from),
            version,
            calibration: non_empty(FAKE_AGY_CALIBRATION).map(PathBuf::from),
            uncertain,
            time_scale,
            turn_duration: duration(FAKE_AGY_TURN_DURATION, DEFAULT_TURN_DURATION)?,
            image_duration: duration(FAKE_AGY_IMAGE_DURATION, DEFAULT_IMAGE_DURATION)?,
            quota_exhausted: flag(FAKE_AGY_QUOTA_EXHAUSTED, "write `1` (quota used up) or `0`")?,
            signed_out: flag(FAKE_AGY_SIGNED_OUT, "write `1` (signed out) or `0`")?,
            init_at,
            home: non_empty("HOME").map(PathBuf::from),
            app_data_dir: non_empty("ANTIGRAVITY_APP_DATA_DIR").map(PathBuf::from),
        })
    }

    /// agy's data directory: `ANTIGRAVITY_APP_DATA_DIR`, else
    /// `$HOME/.gemini/antigravity-cli` (docs/agy-reference.md §5, docs/spike-records.md S2).
    pub fn app_dir(&self) -> Result<PathBuf, FakeError> {
        if let Some(d) = &self.app_data_dir {
            return Ok(d.clone());
        }
        match &self.home {
            Some(h) => Ok(h.join(".gemini").join("antigravity-cli")),
            None => Err(FakeError::Knob {
                name: "HOME",
                value: String::new(),
                hint: "set HOME (a temporary directory) or ANTIGRAVITY_APP_DATA_DIR".into(),
            }),
        }
    }

    /// Where cross-invocation state lives: `FAKE_AGY_STATE_DIR`, else `<journal>.state`
    /// beside the journal, else `<app dir>/.fake-agy-state` (inside the sandboxed HOME).
    pub fn state_dir(&self) -> Result<PathBuf, FakeError> {
        if let Some(d) = &self.state_dir {
            return Ok(d.clone());
        }
        if let Some(j) = &self.journal {
            let mut name = j.as_os_str().to_owned();
            name.push(".state");
            return Ok(PathBuf::from(name));
        }
        Ok(self.app_dir()?.join(".fake-agy-state"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn knobs(pairs: &[(&str, &str)]) -> Result<Knobs, FakeError> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Knobs::read(|k| map.get(k).cloned())
    }

    #[test]
    fn defaults_model_the_spike_version() {
        let k = knobs(&[("HOME", "/h")]).expect("reads");
        assert_eq!(k.version, AgyVersion::DEFAULT);
        assert_eq!(k.time_scale, TimeScale::ONE);
        assert_eq!(
            k.app_dir().expect("dir"),
            PathBuf::from("/h/.gemini/antigravity-cli")
        );
        assert_eq!(
            k.state_dir().expect("dir"),
            PathBuf::from("/h/.gemini/antigravity-cli/.fake-agy-state")
        );
    }

    #[test]
    fn app_data_dir_overrides_home_and_state_sits_beside_the_journal() {
        let k = knobs(&[
            ("HOME", "/h"),
            ("ANTIGRAVITY_APP_DATA_DIR", "/data"),
            (FAKE_AGY_JOURNAL, "/j/journal.jsonl"),
        ])
        .expect("reads");
        assert_eq!(k.app_dir().expect("dir"), PathBuf::from("/data"));
        assert_eq!(
            k.state_dir().expect("dir"),
            PathBuf::from("/j/journal.jsonl.state")
        );
    }

    #[test]
    fn bad_knobs_name_the_variable() {
        let e = knobs(&[(FAKE_AGY_TIME_SCALE, "-1")]).expect_err("rejects");
        assert!(e.to_string().contains(FAKE_AGY_TIME_SCALE), "{e}");
        // Regression: finite but absurd scales made every delay overflow.
        for v in ["1e300", "1e19", "inf", "nan", "-0.5"] {
            let e = knobs(&[(FAKE_AGY_TIME_SCALE, v)]).expect_err("rejects");
            assert!(e.to_string().contains("from 0 to 1000"), "{v}: {e}");
        }
        let e = knobs(&[(FAKE_AGY_UNCERTAIN, "later")]).expect_err("rejects");
        assert!(e.to_string().contains(FAKE_AGY_UNCERTAIN), "{e}");
        let e = knobs(&[(FAKE_AGY_VERSION, "one")]).expect_err("rejects");
        assert!(e.to_string().contains(FAKE_AGY_VERSION), "{e}");
        let e = knobs(&[(FAKE_AGY_TURN_DURATION, "soon")]).expect_err("rejects");
        assert!(e.to_string().contains(FAKE_AGY_TURN_DURATION), "{e}");
    }
}
