//! fake-agy-acp: the fake Antigravity ACP agent, what Google's separate `agy_acp_server`
//! does when an ACP client drives it (docs/agy-acp-reference.md §2), plus scriptable
//! faults. The binary is `fake-agy-acp`; a sandbox installs it as `agy_acp_server`. See
//! `docs/acp-fake-agent.md`.

mod agent;
mod catalog;
mod error;
mod inbox;
mod reply;
mod rpc_error;
mod settings;
mod setup;
mod signals;
mod store;
mod turn;
mod updates;
mod usage;
mod wire;

pub use error::AcpFakeError;
pub use usage::answer_info_flag;

/// Runs the agent on this process's stdio until stdin closes; returns the exit code.
/// A broken fake (bad script or knob) is an error for `main` to report.
pub fn run_acp_agent() -> Result<i32, AcpFakeError> {
    let settings = settings::Settings::from_env()?;
    Ok(agent::Agent::start(settings).run())
}
