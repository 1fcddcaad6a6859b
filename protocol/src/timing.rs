//! Time values read from users' files, variables and options, checked once: a time
//! scale (`--time-scale`, a scenario's `time_scale`, `FAKE_AGY_TIME_SCALE`,
//! `AGY_HARNESS_TIME_SCALE`) and a number of seconds (a trace event's `t`, an adapter's
//! `kill_grace_s`). Out-of-range values (`1e300`, `1e19`, `inf`, `nan`, negative) are
//! rejected where they are read, so every duration made from them fits a `Duration`
//! and an `Instant` and nothing downstream can overflow.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;
use thiserror::Error;

/// The largest time scale accepted: every delay and timeout × 1000.
pub const MAX_TIME_SCALE: f64 = 1000.0;

/// The largest number of seconds accepted (one week): no recording, delay or grace
/// period is longer.
pub const MAX_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

/// The longest scaled duration [`TimeScale::scale`] returns (about 31 years): an
/// `Instant` plus this never overflows.
pub const MAX_SCALED: Duration = Duration::from_secs(1 << 30);

/// A value outside its range, with what would have been accepted.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{what} `{value}` is out of range: {expected}")]
pub struct RangeError {
    /// What the value is (`time scale`, `time`).
    pub what: &'static str,
    /// The value as written.
    pub value: String,
    /// The accepted range, as a fragment (`a number from 0 to 1000`).
    pub expected: String,
}

impl RangeError {
    /// What to write instead, for a diagnostic's hint.
    pub fn hint(&self) -> String {
        format!("write {}", self.expected)
    }
}

/// `value` as a reader wrote it: `1e300`, not three hundred digits.
fn show(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude.is_finite() && (magnitude >= 1e6 || (magnitude > 0.0 && magnitude < 1e-4)) {
        format!("{value:e}")
    } else {
        value.to_string()
    }
}

/// A factor multiplying every scripted delay and timeout; finite, `0..=1000`.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct TimeScale(f64);

impl TimeScale {
    /// No scaling.
    pub const ONE: TimeScale = TimeScale(1.0);

    /// A scale from `0` (no delays at all) to [`MAX_TIME_SCALE`].
    pub fn new(value: f64) -> Result<TimeScale, RangeError> {
        if value.is_finite() && (0.0..=MAX_TIME_SCALE).contains(&value) {
            Ok(TimeScale(value))
        } else {
            Err(Self::error(
                show(value),
                "a number from 0 to 1000, such as `0.05`",
            ))
        }
    }

    /// A scale that keeps every timeout above zero: `(0, 1000]`. The harness's own
    /// options take this, since a zero timeout fails every scenario.
    pub fn positive(value: f64) -> Result<TimeScale, RangeError> {
        match TimeScale::new(value) {
            Ok(s) if value > 0.0 => Ok(s),
            _ => Err(Self::error(
                show(value),
                "a number above 0 and at most 1000, such as `0.05`",
            )),
        }
    }

    /// Parses text as [`TimeScale::new`] accepts it.
    pub fn parse(text: &str) -> Result<TimeScale, RangeError> {
        Self::number(text).and_then(TimeScale::new)
    }

    /// Parses text as [`TimeScale::positive`] accepts it (a clap `value_parser`).
    pub fn parse_positive(text: &str) -> Result<TimeScale, RangeError> {
        Self::number(text).and_then(TimeScale::positive)
    }

    fn number(text: &str) -> Result<f64, RangeError> {
        text.trim()
            .parse::<f64>()
            .map_err(|_| Self::error(text.to_string(), "a number such as `0.05` or `1`"))
    }

    fn error(value: String, expected: &str) -> RangeError {
        RangeError {
            what: "time scale",
            value,
            expected: expected.to_string(),
        }
    }

    /// The factor.
    pub fn get(self) -> f64 {
        self.0
    }

    /// `d` multiplied by the scale, at most [`MAX_SCALED`].
    pub fn scale(self, d: Duration) -> Duration {
        Duration::try_from_secs_f64(d.as_secs_f64() * self.0)
            .unwrap_or(MAX_SCALED)
            .min(MAX_SCALED)
    }
}

impl Default for TimeScale {
    fn default() -> Self {
        TimeScale::ONE
    }
}

impl fmt::Display for TimeScale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for TimeScale {
    type Err = RangeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TimeScale::parse(s)
    }
}

impl Serialize for TimeScale {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0)
    }
}

/// A file's `time_scale`: positive, like the harness's option it overrides.
impl<'de> Deserialize<'de> for TimeScale {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        TimeScale::positive(f64::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// A number of seconds; finite, `0..=`[`MAX_SECONDS`].
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Seconds(f64);

impl Seconds {
    /// The longest time accepted.
    pub const MAX: Seconds = Seconds(MAX_SECONDS);

    /// Seconds from `0` to [`MAX_SECONDS`].
    pub fn new(value: f64) -> Result<Seconds, RangeError> {
        if value.is_finite() && (0.0..=MAX_SECONDS).contains(&value) {
            Ok(Seconds(value))
        } else {
            Err(RangeError {
                what: "time",
                value: show(value),
                expected: "seconds from 0 to 604800 (one week), such as `0.25`".to_string(),
            })
        }
    }

    /// The number of seconds.
    pub fn get(self) -> f64 {
        self.0
    }

    /// As a duration (always representable).
    pub fn duration(self) -> Duration {
        Duration::try_from_secs_f64(self.0).unwrap_or(Duration::ZERO)
    }
}

impl Serialize for Seconds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0)
    }
}

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Seconds::new(f64::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn out_of_range_scales_are_rejected() {
        for text in [
            "1e300", "1e19", "inf", "-inf", "nan", "NaN", "-1", "-0.5", "1001", "x", "",
        ] {
            assert!(TimeScale::parse(text).is_err(), "{text} accepted");
            assert!(TimeScale::parse_positive(text).is_err(), "{text} accepted");
        }
        assert_eq!(TimeScale::parse("0").map(TimeScale::get), Ok(0.0));
        assert!(TimeScale::parse_positive("0").is_err());
        assert_eq!(
            TimeScale::parse_positive(" 0.05 ").map(TimeScale::get),
            Ok(0.05)
        );
        assert_eq!(TimeScale::parse("1000").map(TimeScale::get), Ok(1000.0));
        let e = TimeScale::parse("1e300").expect_err("rejects");
        assert_eq!(e.value, "1e300");
    }

    #[test]
    fn out_of_range_seconds_are_rejected() {
        for v in [
            1e300,
            1e19,
            f64::INFINITY,
            f64::NAN,
            -1.0,
            MAX_SECONDS + 1.0,
        ] {
            let e = Seconds::new(v).expect_err("rejects");
            assert!(e.hint().contains("604800"), "{e}");
        }
        assert_eq!(
            Seconds::new(0.25).map(Seconds::duration),
            Ok(Duration::from_millis(250))
        );
    }

    #[test]
    fn a_scale_in_a_file_is_read_through_the_same_check() {
        #[derive(Deserialize)]
        struct F {
            #[allow(dead_code)]
            s: TimeScale,
        }
        let e = toml::from_str::<F>("s = -1.0").err().expect("rejects");
        assert!(e.to_string().contains("out of range"), "{e}");
        let e = toml::from_str::<F>("s = nan").err().expect("rejects");
        assert!(e.to_string().contains("out of range"), "{e}");
    }

    proptest! {
        #[test]
        fn any_accepted_scale_times_any_go_duration_fits_an_instant(
            scale in any::<f64>(),
            secs in 0u64..=(i64::MAX as u64 / 1_000_000_000),
        ) {
            if let Ok(s) = TimeScale::new(scale) {
                let d = s.scale(Duration::from_secs(secs));
                prop_assert!(d <= MAX_SCALED);
                let _ = std::time::Instant::now() + d;
            }
        }

        #[test]
        fn any_accepted_seconds_fit_a_duration(v in any::<f64>()) {
            if let Ok(s) = Seconds::new(v) {
                prop_assert!((s.duration().as_secs_f64() - v).abs() < 1e-6);
            }
        }
    }
}
