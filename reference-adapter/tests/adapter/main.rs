//! Process-level tests of the reference adapter: the real driver binary, driven over
//! driver protocol v1, running small Python stand-ins for `agy` in a temporary sandbox,
//! and the `acp` profile against the real fake ACP agent (`fake-agy-acp`).

mod acp;
mod cli;
mod fake_agy;
mod no_panic;
mod oneshot;
mod session;
mod support;
