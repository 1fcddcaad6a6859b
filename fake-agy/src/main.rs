//! The `fake-agy` binary (install it on a sandbox `PATH` as `agy`).

fn main() {
    // A child started for a scripted tool run only waits to be killed.
    if fake_agy::act_as_tool_child() {
        return;
    }
    // The harness's live guard asks first (agy_protocol::identity).
    if let Some(line) =
        agy_protocol::identity::answer_identity(env!("CARGO_BIN_NAME"), env!("CARGO_PKG_VERSION"))
    {
        println!("{line}");
        return;
    }
    fake_agy::main_with_os(std::env::args_os().collect())
}
