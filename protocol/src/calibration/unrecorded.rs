//! Edges the record leaves open: between the last version seen on one side and the
//! first seen on the other, what agy shows is not recorded. A calibration carries both
//! sides of such an edge as partial calibrations (`before`, `after`) laid over its own
//! sections; `FAKE_AGY_UNCERTAIN` takes one side for every edge open at the version.

use crate::version::AgyVersion;
use crate::version_evidence::UncertainSide;
use serde::{Deserialize, Serialize};

/// `[[unrecorded]]`: one open edge and what each side shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unrecorded {
    /// What changes, in words (its row in docs/agy-versions.md).
    pub change: String,
    /// The last version seen on the before side; absent when nothing earlier is
    /// recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_before: Option<AgyVersion>,
    /// The first version seen on the after side.
    pub first_after: AgyVersion,
    /// The captures of each side.
    pub evidence: String,
    /// What the before side shows: sections and fields laid over the calibration's.
    #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
    pub before: toml::Table,
    /// What the after side shows.
    #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
    pub after: toml::Table,
}

impl Unrecorded {
    /// True when the record does not say which side `v` is on.
    pub fn open_at(&self, v: AgyVersion) -> bool {
        v < self.first_after && self.last_before.is_none_or(|l| l < v)
    }

    /// What `side` shows.
    pub fn side(&self, side: UncertainSide) -> &toml::Table {
        match side {
            UncertainSide::Before => &self.before,
            UncertainSide::After => &self.after,
        }
    }
}
