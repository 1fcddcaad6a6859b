//! What the driver learns from its environment: the agy binary, the work and state
//! directories, the time scale, and where agy keeps its data.

use crate::answer_source::AnswerSource;
use agy_protocol::env::{
    AGY_BIN, AGY_DRIVER_STATE_DIR, AGY_DRIVER_WORK_DIR, AGY_HARNESS_TIME_SCALE,
};
use agy_protocol::timing::MAX_SCALED;
use agy_protocol::TimeScale;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// agy's data directory override (docs/agy-reference.md §5: plannotator-tui v0.9.6 release note).
pub const ENV_APP_DATA_DIR: &str = "ANTIGRAVITY_APP_DATA_DIR";

/// The driver's environment, read once at start-up.
#[derive(Debug, Clone, PartialEq)]
pub struct Environment {
    /// The agy binary (`AGY_BIN`, default `agy` on `PATH`).
    pub agy_bin: PathBuf,
    /// The adapter's workspace: cwd and `--add-dir` of every agy run.
    pub work_dir: PathBuf,
    /// Where delivered images are copied (the asset store).
    pub state_dir: PathBuf,
    /// Every timeout and grace period is multiplied by this.
    pub time_scale: TimeScale,
    /// agy's data directory: `$ANTIGRAVITY_APP_DATA_DIR`, else `$HOME/.gemini/antigravity-cli`.
    pub app_data_dir: PathBuf,
    /// Where a session turn's answer is read from (`--answers-from`, not an environment
    /// variable; the command line sets it after reading the environment).
    pub answers: AnswerSource,
}

impl Environment {
    /// Reads the environment through `var` (injectable for tests).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Environment {
        let nonempty = |name: &str| var(name).filter(|v| !v.is_empty());
        let work_dir = nonempty(AGY_DRIVER_WORK_DIR)
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."));
        let state_dir = nonempty(AGY_DRIVER_STATE_DIR)
            .map(PathBuf::from)
            .unwrap_or_else(|| work_dir.join(".agy-reference-adapter"));
        // The harness checked the scale it passes; anything else runs in real time.
        let time_scale = nonempty(AGY_HARNESS_TIME_SCALE)
            .and_then(|v| TimeScale::parse_positive(&v).ok())
            .unwrap_or(TimeScale::ONE);
        let app_data_dir = match nonempty(ENV_APP_DATA_DIR) {
            Some(dir) => PathBuf::from(dir),
            None => Path::new(&nonempty("HOME").unwrap_or_else(|| ".".to_string()))
                .join(".gemini")
                .join("antigravity-cli"),
        };
        Environment {
            agy_bin: PathBuf::from(nonempty(AGY_BIN).unwrap_or_else(|| "agy".to_string())),
            work_dir,
            state_dir,
            time_scale,
            app_data_dir,
            answers: AnswerSource::default(),
        }
    }

    /// Reads the process environment.
    pub fn from_process() -> Environment {
        Environment::from_vars(|name| std::env::var(name).ok())
    }

    /// `seconds` of adapter time, scaled.
    pub fn scaled(&self, seconds: f64) -> Duration {
        // A request's `timeout_s` can be any number: an absurd one waits the longest
        // bounded time rather than overflowing a deadline.
        let d = Duration::try_from_secs_f64(seconds.max(0.0)).unwrap_or(MAX_SCALED);
        self.time_scale.scale(d)
    }

    /// `brain/<conversation_id>/`, where agy puts generated images (docs/spike-records.md S2).
    pub fn brain_dir(&self, conversation_id: &str) -> PathBuf {
        self.app_data_dir.join("brain").join(conversation_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> Environment {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Environment::from_vars(|k| map.get(k).cloned())
    }

    #[test]
    fn brain_dir_is_under_home_by_default() {
        let env = env_of(&[("HOME", "/h"), (AGY_DRIVER_WORK_DIR, "/w")]);
        assert_eq!(
            env.brain_dir("c1"),
            PathBuf::from("/h/.gemini/antigravity-cli/brain/c1")
        );
        assert_eq!(env.agy_bin, PathBuf::from("agy"));
        assert_eq!(env.state_dir, PathBuf::from("/w/.agy-reference-adapter"));
    }

    #[test]
    fn app_data_dir_override_is_honoured() {
        let env = env_of(&[("HOME", "/h"), (ENV_APP_DATA_DIR, "/data")]);
        assert_eq!(env.brain_dir("c1"), PathBuf::from("/data/brain/c1"));
    }

    #[test]
    fn time_scale_multiplies_and_bad_values_fall_back_to_one() {
        assert_eq!(
            env_of(&[(AGY_HARNESS_TIME_SCALE, "0.1")]).scaled(30.0),
            Duration::from_secs(3)
        );
        for bad in ["x", "-2", "1e300", "inf", "nan"] {
            assert_eq!(
                env_of(&[(AGY_HARNESS_TIME_SCALE, bad)]).time_scale,
                TimeScale::ONE
            );
        }
        // Regression: an absurd `timeout_s` made a deadline that overflowed.
        let far = env_of(&[]).scaled(1e300);
        let _ = std::time::Instant::now() + far;
        assert_eq!(env_of(&[]).scaled(f64::NAN), Duration::ZERO);
    }
}
