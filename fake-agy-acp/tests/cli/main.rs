//! The fake Antigravity ACP agent (`fake-agy-acp`), driven over real pipes.

mod auth;
mod faults;
mod framing;
mod handshake;
mod no_panic;
mod permission;
mod prompt;
mod reply;
mod restore;
mod sdk_client;
mod support;
