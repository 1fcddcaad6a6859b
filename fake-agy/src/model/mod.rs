//! What agy is, version by version, as data the acting code looks up: which versioned
//! behaviours a version has and their sources, the model catalogue, the tool list, the
//! help texts and the token counts agy reports.

pub(crate) mod help;
pub(crate) mod models;
#[cfg(test)]
pub(crate) mod table_calibration;
pub(crate) mod tools;
pub(crate) mod usage_figures;
pub(crate) mod version_model;
// Read by the session from the next change on; the equivalence test reads it now.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod builtin;
#[cfg(test)]
mod builtin_equivalence;
