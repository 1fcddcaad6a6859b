//! fake-agy: a scriptable stand-in for the `agy` CLI. It acts out a script or the
//! default behaviour of a plausible agy 1.2.x; it never judges.

pub mod acp;
