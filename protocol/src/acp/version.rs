//! The `agentInfo.version` strings of Antigravity's ACP server, whose format changed
//! between builds (docs/agy-acp-reference.md §2.3): `agy_acp_server_20260818_01_RC01` →
//! `agy_acp_server_1.1.1` → `1.3.0`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A version of `agy_acp_server`, kept in the exact format it was written in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AcpServerVersion {
    /// A release candidate: `agy_acp_server_<date>_<build>_RC<n>` (RC01 was the first
    /// public build, 2026-08-18).
    ReleaseCandidate {
        /// `YYYYMMDD`.
        date: String,
        /// Build of the day (`01`).
        build: String,
        /// Candidate number (`01`).
        rc: String,
    },
    /// A numbered release; `prefixed` writes it as `agy_acp_server_1.1.1`, otherwise
    /// bare (`1.3.0`).
    Release {
        /// Major, minor, patch.
        parts: [u32; 3],
        /// Whether the `agy_acp_server_` prefix is written.
        prefixed: bool,
    },
}

const PREFIX: &str = "agy_acp_server_";

impl AcpServerVersion {
    /// The version modelled by default: 1.3.0, the latest build with a public probe
    /// (docs/agy-acp-reference.md §2.3, dsh-antigravity-acp probe).
    pub fn default_modelled() -> AcpServerVersion {
        AcpServerVersion::Release {
            parts: [1, 3, 0],
            prefixed: false,
        }
    }

    /// Major, minor, patch; a release candidate counts as 0.0.0 (it predates 1.1.1).
    pub fn numbers(&self) -> [u32; 3] {
        match self {
            AcpServerVersion::ReleaseCandidate { .. } => [0, 0, 0],
            AcpServerVersion::Release { parts, .. } => *parts,
        }
    }

    /// True when this build sends `usage_update` after a turn's message: absent in
    /// RC01 and 1.1.1, present in 1.3.0 (docs/agy-acp-reference.md §2.6). Builds between 1.1.1 and 1.3.0
    /// are unrecorded; 1.2.x is assumed to behave like 1.1.1.
    pub fn sends_usage_update(&self) -> bool {
        self.numbers() >= [1, 3, 0]
    }

    /// True when `available_commands_update` arrives at the start of the first prompt
    /// turn (1.3.0) rather than right after the `session/new` response (RC01; docs/agy-acp-reference.md
    /// §2.5).
    pub fn commands_at_first_prompt(&self) -> bool {
        self.numbers() >= [1, 3, 0]
    }
}

impl fmt::Display for AcpServerVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AcpServerVersion::ReleaseCandidate { date, build, rc } => {
                write!(f, "{PREFIX}{date}_{build}_RC{rc}")
            }
            AcpServerVersion::Release { parts, prefixed } => {
                let [a, b, c] = parts;
                if *prefixed {
                    f.write_str(PREFIX)?;
                }
                write!(f, "{a}.{b}.{c}")
            }
        }
    }
}

impl FromStr for AcpServerVersion {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || {
            format!(
                "`{s}` is not an agy_acp_server version: write `1.3.0`, `agy_acp_server_1.1.1` or `agy_acp_server_20260818_01_RC01`"
            )
        };
        let (rest, prefixed) = match s.strip_prefix(PREFIX) {
            Some(rest) => (rest, true),
            None => (s, false),
        };
        let numbered: Vec<&str> = rest.split('.').collect();
        if numbered.len() == 3 {
            let mut parts = [0u32; 3];
            for (slot, text) in parts.iter_mut().zip(&numbered) {
                if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad());
                }
                *slot = text.parse().map_err(|_| bad())?;
            }
            return Ok(AcpServerVersion::Release { parts, prefixed });
        }
        let fields: Vec<&str> = rest.split('_').collect();
        match fields.as_slice() {
            [date, build, rc] if prefixed => {
                let rc = rc.strip_prefix("RC").ok_or_else(bad)?;
                let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
                if !(digits(date) && digits(build) && digits(rc)) {
                    return Err(bad());
                }
                Ok(AcpServerVersion::ReleaseCandidate {
                    date: date.to_string(),
                    build: build.to_string(),
                    rc: rc.to_string(),
                })
            }
            _ => Err(bad()),
        }
    }
}

impl Serialize for AcpServerVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for AcpServerVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_three_recorded_formats_round_trip() {
        for s in [
            "agy_acp_server_20260818_01_RC01",
            "agy_acp_server_1.1.1",
            "1.3.0",
        ] {
            let v: AcpServerVersion = s.parse().expect(s);
            assert_eq!(v.to_string(), s);
        }
    }

    #[test]
    fn usage_update_starts_with_1_3_0() {
        let v = |s: &str| s.parse::<AcpServerVersion>().expect("version");
        assert!(!v("agy_acp_server_20260818_01_RC01").sends_usage_update());
        assert!(!v("agy_acp_server_1.1.1").sends_usage_update());
        assert!(v("1.3.0").sends_usage_update());
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC*") {
            let _ = s.parse::<AcpServerVersion>();
        }

        #[test]
        fn rendered_versions_parse_back(a in 0u32..100, b in 0u32..100, c in 0u32..100, prefixed: bool) {
            let v = AcpServerVersion::Release { parts: [a, b, c], prefixed };
            prop_assert_eq!(v.to_string().parse::<AcpServerVersion>(), Ok(v));
        }
    }
}
