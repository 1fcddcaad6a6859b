//! The `agy-harness` binary: parse the command line, run, exit with the code.

use clap::Parser;

fn main() {
    let cli = agy_harness::cli::Cli::parse();
    std::process::exit(agy_harness::execute(cli));
}
