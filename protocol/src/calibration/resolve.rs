//! A calibration at a version: the side `FAKE_AGY_UNCERTAIN` takes of every edge the
//! record leaves open there, laid over the calibration.

use super::model::Calibration;
use crate::version::AgyVersion;
use crate::version_evidence::UncertainSide;

/// A calibration whose sides could not be laid over it.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// The calibration does not serialize.
    #[error("the calibration does not serialize: {0}")]
    Serialize(#[from] toml::ser::Error),
    /// A side does not fit the calibration.
    #[error("a side of an unrecorded edge does not fit the calibration: {0}")]
    Side(#[from] toml::de::Error),
}

impl Calibration {
    /// What this calibration shows at `version`: with a `side`, that side of every
    /// edge open at `version` laid over it; without, itself.
    pub fn at(
        &self,
        version: AgyVersion,
        side: Option<UncertainSide>,
    ) -> Result<Calibration, ResolveError> {
        let Some(side) = side else {
            return Ok(self.clone());
        };
        let mut table = toml::Table::try_from(self)?;
        for u in self.unrecorded.iter().filter(|u| u.open_at(version)) {
            merge(&mut table, u.side(side));
        }
        let mut out: Calibration = table.try_into()?;
        out.unrecorded = self.unrecorded.clone();
        Ok(out)
    }
}

fn merge(base: &mut toml::Table, over: &toml::Table) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}
