//! What agy is, as data the acting code looks up: the calibration a session presents
//! (built in per range of versions, or a file: `resolve`), the model catalogue's
//! checks, the help texts and the token counts agy reports. The version table the
//! built-in calibrations were written from stays as their tests' oracle.

pub(crate) mod builtin;
#[cfg(test)]
mod builtin_equivalence;
pub(crate) mod help;
pub(crate) mod models;
pub(crate) mod resolve;
#[cfg(test)]
pub(crate) mod table_calibration;
#[cfg(test)]
pub(crate) mod tools;
pub(crate) mod usage_figures;
#[cfg(test)]
pub(crate) mod version_model;
