//! What the oracles of the profiles whose adapters run agy print by print or turn by
//! turn share for `fuzz`: the generated agy behaviours and ops ([`case`]), what a
//! correct adapter answers to them ([`oracle`]) and the scenario written from both
//! ([`render`]).

pub mod case;
pub mod oracle;
pub mod render;
