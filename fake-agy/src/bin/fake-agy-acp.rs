//! The `fake-agy-acp` binary: a stand-in for Antigravity's ACP server. Install it on a
//! sandbox `PATH` (or point the client's agent command at it) as `agy_acp_server`;
//! real `agy` has no ACP mode (ACP.md §2.1).

fn main() {
    match fake_agy::acp::run_acp_agent() {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("fake-agy-acp: {e}");
            std::process::exit(agy_protocol::script::FAKE_BROKEN_EXIT);
        }
    }
}
