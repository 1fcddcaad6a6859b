//! `agy-harness spikes` against fake-agy: fidelity, drift detection, reports, recording,
//! notify, live guards.

mod support;
pub use support::fake_agy;

mod cli;
mod drift;
mod fidelity;
mod hygiene;
mod junit;
mod notify;
mod record;
mod secrets;
mod sign_in;
