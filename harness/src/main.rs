//! The `agy-harness` binary.

use agy_harness::spike::{spikes_command, SpikesArgs};
use clap::{Parser, Subcommand};

/// Conformance harness for programs that drive agy.
#[derive(Debug, Parser)]
#[command(name = "agy-harness", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Re-run the spikes S1–S8 against fake-agy or a live agy and judge every fact.
    Spikes(SpikesArgs),
}

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Spikes(args) => spikes_command(args),
    };
    std::process::exit(code);
}
