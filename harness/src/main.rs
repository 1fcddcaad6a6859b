//! The `agy-harness` binary: parse the command line, run, exit with the code.

use clap::Parser;

fn main() {
    // agy-harness hosts the reaper its drivers run under (agy_process::reaper).
    if let Some(code) = agy_process::reaper_main_if_requested() {
        std::process::exit(code);
    }
    // In a live run's sandbox, agy-harness itself stands in front of the real agy.
    if agy_harness::live::is_wrapper_invocation() {
        std::process::exit(agy_harness::live::wrap_agy());
    }
    // Started by the npm package's launcher: its death is passed on to this process.
    if !agy_process::die_with_launcher() {
        std::process::exit(agy_harness::exit_code::COULD_NOT_RUN);
    }
    let cli = agy_harness::cli::Cli::parse();
    std::process::exit(agy_harness::execute(cli));
}
