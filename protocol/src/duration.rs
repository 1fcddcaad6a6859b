//! Go `time.Duration` syntax, as `--print-timeout` takes it and prints it back
//! (`1s`, `5m`, `1h30m`, `250ms`; printed as `5m0s`, docs/agy-reference.md §2.4).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::time::Duration;
use thiserror::Error;

/// A duration written in Go syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct GoDuration(pub Duration);

/// Why a duration did not parse; the text follows Go's `time.ParseDuration`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("time: invalid duration \"{0}\"")]
pub struct DurationError(pub String);

const UNITS: &[(&str, u128)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("μs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

impl GoDuration {
    /// Parses Go duration syntax. Negative durations are rejected (no flag takes them).
    pub fn parse(s: &str) -> Result<GoDuration, DurationError> {
        let err = || DurationError(s.to_string());
        let mut rest = s.strip_prefix('+').unwrap_or(s);
        if rest == "0" {
            return Ok(GoDuration(Duration::ZERO));
        }
        if rest.is_empty() {
            return Err(err());
        }
        let mut total: u128 = 0;
        while !rest.is_empty() {
            let digits_end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .ok_or_else(err)?;
            let number = &rest[..digits_end];
            if number.is_empty() || number == "." || number.matches('.').count() > 1 {
                return Err(err());
            }
            rest = &rest[digits_end..];
            let unit_end = rest
                .find(|c: char| c.is_ascii_digit() || c == '.')
                .unwrap_or(rest.len());
            let unit = &rest[..unit_end];
            rest = &rest[unit_end..];
            let scale = UNITS
                .iter()
                .find(|(u, _)| *u == unit)
                .map(|(_, n)| *n)
                .ok_or_else(err)?;
            let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
            let whole: u128 = if whole.is_empty() {
                0
            } else {
                whole.parse().map_err(|_| err())?
            };
            let mut nanos = whole.checked_mul(scale).ok_or_else(err)?;
            if !frac.is_empty() {
                let digits = frac.len().min(30) as u32;
                let f: u128 = frac[..digits as usize].parse().map_err(|_| err())?;
                nanos = nanos
                    .checked_add(f.saturating_mul(scale) / 10u128.pow(digits))
                    .ok_or_else(err)?;
            }
            total = total.checked_add(nanos).ok_or_else(err)?;
        }
        // Go's durations are i64 nanoseconds (about 292 years); longer ones are
        // invalid there too, and every scaled delay stays representable.
        if total > i64::MAX as u128 {
            return Err(err());
        }
        let secs = u64::try_from(total / 1_000_000_000).map_err(|_| err())?;
        Ok(GoDuration(Duration::new(
            secs,
            (total % 1_000_000_000) as u32,
        )))
    }

    /// The duration as Go's `Duration.String()` prints it: `8s`, `5m0s`, `1h30m0s`,
    /// `250ms`, `1.5s`.
    pub fn go_string(&self) -> String {
        let nanos = self.0.as_nanos();
        if nanos == 0 {
            return "0s".to_string();
        }
        if nanos < 1_000 {
            return format!("{nanos}ns");
        }
        if nanos < 1_000_000 {
            return format!("{}µs", trim_fraction(nanos, 1_000));
        }
        if nanos < 1_000_000_000 {
            return format!("{}ms", trim_fraction(nanos, 1_000_000));
        }
        let hours = nanos / 3_600_000_000_000;
        let rem = nanos % 3_600_000_000_000;
        let minutes = rem / 60_000_000_000;
        let secs_nanos = rem % 60_000_000_000;
        let secs = trim_fraction(secs_nanos, 1_000_000_000);
        if hours > 0 {
            format!("{hours}h{minutes}m{secs}s")
        } else if minutes > 0 {
            format!("{minutes}m{secs}s")
        } else {
            format!("{secs}s")
        }
    }
}

fn trim_fraction(value: u128, unit: u128) -> String {
    let whole = value / unit;
    let frac = value % unit;
    if frac == 0 {
        return whole.to_string();
    }
    let width = unit.to_string().len() - 1;
    let frac = format!("{frac:0width$}");
    format!("{whole}.{}", frac.trim_end_matches('0'))
}

impl fmt::Display for GoDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.go_string())
    }
}

impl From<Duration> for GoDuration {
    fn from(d: Duration) -> Self {
        GoDuration(d)
    }
}

impl Serialize for GoDuration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.go_string())
    }
}

impl<'de> Deserialize<'de> for GoDuration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        GoDuration::parse(&s).map_err(|e| {
            serde::de::Error::custom(format!(
                "{e}: write a Go duration such as `250ms`, `8s`, `5m` or `1h30m`"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn go_forms_parse() {
        assert_eq!(GoDuration::parse("1s").unwrap().0, Duration::from_secs(1));
        assert_eq!(
            GoDuration::parse("1h30m").unwrap().0,
            Duration::from_secs(5400)
        );
        assert_eq!(
            GoDuration::parse("250ms").unwrap().0,
            Duration::from_millis(250)
        );
        assert_eq!(
            GoDuration::parse("1.5s").unwrap().0,
            Duration::from_millis(1500)
        );
        assert!(GoDuration::parse("5").is_err());
        assert!(GoDuration::parse("5x").is_err());
        assert!(GoDuration::parse("").is_err());
        // Go's limit: i64 nanoseconds.
        assert!(GoDuration::parse("2562047h").is_ok());
        assert!(GoDuration::parse("2562048h").is_err());
        assert!(GoDuration::parse("18446744073709551615s").is_err());
    }

    #[test]
    fn go_string_matches_go() {
        assert_eq!(GoDuration(Duration::from_secs(8)).go_string(), "8s");
        assert_eq!(GoDuration(Duration::from_secs(300)).go_string(), "5m0s");
        assert_eq!(GoDuration(Duration::from_secs(5400)).go_string(), "1h30m0s");
        assert_eq!(GoDuration(Duration::from_millis(250)).go_string(), "250ms");
        assert_eq!(GoDuration(Duration::from_millis(1500)).go_string(), "1.5s");
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC{0,20}") {
            let _ = GoDuration::parse(&s);
        }

        #[test]
        fn go_string_parses_back(ms in 0u64..10_000_000_000) {
            let d = GoDuration(Duration::from_millis(ms));
            prop_assert_eq!(GoDuration::parse(&d.go_string()).unwrap(), d);
        }
    }
}
