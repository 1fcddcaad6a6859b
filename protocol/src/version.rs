//! agy version numbers (`1.2.6`), compared numerically.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A `major.minor.patch` agy version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AgyVersion {
    /// Major.
    pub major: u32,
    /// Minor.
    pub minor: u32,
    /// Patch.
    pub patch: u32,
}

impl AgyVersion {
    /// The version fake-agy models when nothing else is asked for: the one spikes S1–S8
    /// were run against (docs/spike-records.md).
    pub const DEFAULT: AgyVersion = AgyVersion::new(1, 2, 6);

    /// A version from its parts.
    pub const fn new(major: u32, minor: u32, patch: u32) -> AgyVersion {
        AgyVersion {
            major,
            minor,
            patch,
        }
    }
}

impl FromStr for AgyVersion {
    type Err = String;

    /// Accepts `1.2.6`, `v1.2.6` and `agy 1.2.6`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let t = t.strip_prefix("agy ").unwrap_or(t);
        let t = t.strip_prefix('v').unwrap_or(t);
        let parts: Vec<&str> = t.split('.').collect();
        let bad = || format!("`{s}` is not an agy version: write it as `1.2.6`");
        if parts.len() != 3 {
            return Err(bad());
        }
        let n = |p: &str| p.parse::<u32>().map_err(|_| bad());
        Ok(AgyVersion::new(n(parts[0])?, n(parts[1])?, n(parts[2])?))
    }
}

impl fmt::Display for AgyVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl Serialize for AgyVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for AgyVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// A set of agy versions a scenario applies to: comma-separated clauses that must all
/// hold, each a version with an optional comparison (`">=1.2.0"`, `">=1.2.0, <1.3.0"`,
/// `"1.2.6"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionRange {
    clauses: Vec<(Comparison, AgyVersion)>,
    text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comparison {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

impl VersionRange {
    /// True when `v` satisfies every clause.
    pub fn contains(&self, v: AgyVersion) -> bool {
        self.clauses.iter().all(|(c, x)| match c {
            Comparison::Eq => v == *x,
            Comparison::Lt => v < *x,
            Comparison::Le => v <= *x,
            Comparison::Gt => v > *x,
            Comparison::Ge => v >= *x,
        })
    }
}

impl FromStr for VersionRange {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut clauses = Vec::new();
        for part in s.split(',') {
            let t = part.trim();
            let (c, rest) = [
                (">=", Comparison::Ge),
                ("<=", Comparison::Le),
                (">", Comparison::Gt),
                ("<", Comparison::Lt),
                ("=", Comparison::Eq),
            ]
            .iter()
            .find_map(|(p, c)| t.strip_prefix(p).map(|r| (*c, r)))
            .unwrap_or((Comparison::Eq, t));
            let v = rest.trim().parse::<AgyVersion>().map_err(|_| {
                format!("`{t}` is not a version clause: write e.g. `>=1.2.0`, `<1.3.0` or `1.2.6`, joined by commas")
            })?;
            clauses.push((c, v));
        }
        Ok(VersionRange {
            clauses,
            text: s.trim().to_string(),
        })
    }
}

impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for VersionRange {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for VersionRange {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// The agy versions fake-agy models distinctly, oldest first: one on each side of every
/// edge of its version model (docs/agy-versions.md). `agy-harness matrix` runs these by
/// default.
pub const MODELLED_VERSIONS: &[AgyVersion] = &[
    AgyVersion::new(1, 0, 2),
    AgyVersion::new(1, 0, 16),
    AgyVersion::new(1, 1, 9),
    AgyVersion::new(1, 1, 18),
    AgyVersion::new(1, 1, 27),
    AgyVersion::new(1, 2, 6),
    AgyVersion::new(1, 2, 13),
    AgyVersion::new(1, 2, 16),
    AgyVersion::new(1, 2, 17),
    AgyVersion::new(1, 3, 1),
    AgyVersion::new(1, 3, 2),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_numerically() {
        let a: AgyVersion = "1.1.24".parse().unwrap();
        let b: AgyVersion = "v1.2.6".parse().unwrap();
        let c: AgyVersion = "1.10.0".parse().unwrap();
        assert!(a < b && b < c);
        assert!("1.2".parse::<AgyVersion>().is_err());
    }

    #[test]
    fn ranges_hold_every_clause() {
        let r: VersionRange = ">=1.2.0, <1.3.0".parse().unwrap();
        let v = |s: &str| s.parse::<AgyVersion>().unwrap();
        assert!(r.contains(v("1.2.6")) && !r.contains(v("1.3.1")) && !r.contains(v("1.1.27")));
        assert!("1.2.6"
            .parse::<VersionRange>()
            .unwrap()
            .contains(v("1.2.6")));
        let e = ">=1.x".parse::<VersionRange>().unwrap_err();
        assert!(e.contains("`>=1.x`"), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_range_text_never_panics(s in "\\PC{0,20}") {
            let _ = s.parse::<VersionRange>();
        }
    }
}
