//! agy-harness: runs an adapter against fake-agy scenario by scenario and judges it.

pub mod image;
pub mod spike;
