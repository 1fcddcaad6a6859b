//! What agy is, version by version, as data the acting code looks up: which versioned
//! behaviours a version has and their sources, the model catalogue, the tool list, the
//! help texts and the token counts agy reports.

pub(crate) mod help;
pub(crate) mod models;
pub(crate) mod tools;
pub(crate) mod usage_figures;
pub(crate) mod version_model;
