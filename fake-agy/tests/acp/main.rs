//! Integration tests of the fake Antigravity ACP agent, driven over real pipes.

mod auth;
mod faults;
mod framing;
mod handshake;
mod permission;
mod prompt;
mod restore;
mod sdk_client;
mod support;
