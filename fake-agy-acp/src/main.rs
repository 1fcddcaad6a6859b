//! The `fake-agy-acp` binary: a stand-in for Antigravity's ACP server. Install it on a
//! sandbox `PATH` (or point the client's agent command at it) as `agy_acp_server`;
//! real `agy` has no ACP mode (docs/agy-acp-reference.md §2.1).

fn main() {
    // The harness's live guard asks first (agy_protocol::identity).
    if let Some(line) =
        agy_protocol::identity::answer_identity(env!("CARGO_BIN_NAME"), env!("CARGO_PKG_VERSION"))
    {
        println!("{line}");
        return;
    }
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if let Some(code) = fake_agy_acp::answer_info_flag(&args) {
        std::process::exit(code);
    }
    match fake_agy_acp::run_acp_agent() {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("fake-agy-acp: {e}");
            std::process::exit(agy_protocol::script::FAKE_BROKEN_EXIT);
        }
    }
}
