//! `fake-agy-acp --help` and `--version`: answered at once, without reading stdin, so a
//! user trying the binary by hand does not meet a silent process waiting for JSON-RPC.

use agy_protocol::env::{
    FAKE_AGY_ACP_JOURNAL, FAKE_AGY_ACP_SCRIPT, FAKE_AGY_ACP_SCRIPT_TABLE, FAKE_AGY_ACP_VERSION,
    FAKE_AGY_TIME_SCALE,
};
use std::ffi::OsString;

/// The help text.
pub fn help_text() -> String {
    format!(
        "fake-agy-acp {version}: a stand-in for Antigravity's ACP server (`agy_acp_server`).

Speaks ACP (JSON-RPC 2.0, one message a line) on stdin/stdout until stdin closes.
Install it as `agy_acp_server` on a sandbox PATH, or point an ACP client's agent
command at it. docs/acp-fake-agent.md describes what it does.

Usage: fake-agy-acp            (no arguments: serve ACP on stdio)
       fake-agy-acp --help     (this text)
       fake-agy-acp --version

Environment:
  {FAKE_AGY_ACP_SCRIPT}        the ACP script file (default: a well-behaved agent)
  {FAKE_AGY_ACP_SCRIPT_TABLE}  the table of that file holding the script (a scenario's `acp`)
  {FAKE_AGY_ACP_JOURNAL}       where to write the ACP journal (JSON lines)
  {FAKE_AGY_ACP_VERSION}       the agentInfo.version to model
  {FAKE_AGY_TIME_SCALE}        multiply every scripted delay
  GEMINI_HOME, HOME          where session state lives (`$GEMINI_HOME`, else `$HOME/.gemini`)
",
        version = env!("CARGO_PKG_VERSION")
    )
}

/// Answers `--help`/`-h` or `--version`/`-V` when that is the whole command line: the
/// exit code, after printing to stdout. `None` means serve ACP.
pub fn answer_info_flag(args: &[OsString]) -> Option<i32> {
    let [only] = args else {
        return None;
    };
    match only.to_str()? {
        "--help" | "-h" => print!("{}", help_text()),
        "--version" | "-V" => println!("fake-agy-acp {}", env!("CARGO_PKG_VERSION")),
        _ => return None,
    }
    Some(0)
}
