//! What every profile's oracle shares for `repro`: the evidence a bug report gives
//! ([`evidence`]), the reproduction as agy processes and script steps ([`case`]), what
//! each step shows ([`seen`]) and the plan an oracle writes from it ([`plan`]).

pub mod case;
pub mod evidence;
pub mod plan;
pub mod seen;
