//! Spikes against fake-agy: fidelity, drift detection, reports, recording, notify, guards.

mod support;

mod cli;
mod drift;
mod fidelity;
mod notify;
mod record;
