//! Per-request adapter settings (`[providers.antigravity]` in ADR 0013 decision 7).

use serde::Deserialize;

/// The ADR's default `timeout_s`.
pub const DEFAULT_TIMEOUT_S: f64 = 600.0;

/// Settings a `generate` request may carry; unknown keys are ignored.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct OneshotSettings {
    /// `--model`, when set.
    #[serde(default)]
    pub model: Option<String>,
    /// `--effort`, when set.
    #[serde(default)]
    pub effort: Option<String>,
    /// Pass `--dangerously-skip-permissions`; default false (ADR 0013 decision 7, S5).
    #[serde(default)]
    pub skip_permissions: Option<bool>,
    /// Adapter timeout in seconds when the request has none.
    #[serde(default)]
    pub timeout_s: Option<f64>,
}

impl OneshotSettings {
    /// Reads the request's settings object; the error names the offending key.
    pub fn from_map(map: &serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        serde_json::from_value(serde_json::Value::Object(map.clone()))
            .map_err(|e| format!("invalid `settings`: {e}"))
    }

    /// The timeout to use: the request's, else the settings', else 600 s; must be positive.
    pub fn resolve_timeout(&self, request_timeout_s: Option<f64>) -> Result<f64, String> {
        let t = request_timeout_s
            .or(self.timeout_s)
            .unwrap_or(DEFAULT_TIMEOUT_S);
        if t.is_finite() && t > 0.0 {
            Ok(t)
        } else {
            Err(format!(
                "invalid `timeout_s` {t}: expected a positive number of seconds"
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        v.as_object().cloned().expect("object")
    }

    #[test]
    fn defaults_follow_the_adr() {
        let s = OneshotSettings::from_map(&map(json!({}))).expect("parses");
        assert_eq!(s.skip_permissions, None);
        assert_eq!(s.resolve_timeout(None), Ok(600.0));
    }

    #[test]
    fn request_timeout_wins_over_settings() {
        let s = OneshotSettings::from_map(&map(json!({"timeout_s": 5, "extra": 1}))).expect("ok");
        assert_eq!(s.resolve_timeout(Some(1.0)), Ok(1.0));
        assert_eq!(s.resolve_timeout(None), Ok(5.0));
    }

    #[test]
    fn wrong_types_and_bad_timeouts_are_errors() {
        let err = OneshotSettings::from_map(&map(json!({"skip_permissions": "yes"})))
            .expect_err("rejects");
        assert!(err.contains("invalid `settings`"), "{err}");
        assert!(OneshotSettings::default()
            .resolve_timeout(Some(0.0))
            .is_err());
        assert!(OneshotSettings::default()
            .resolve_timeout(Some(f64::NAN))
            .is_err());
    }
}
