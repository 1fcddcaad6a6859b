//! The commands behind the CLI, dispatched by [`execute`]; each returns an exit code
//! from [`crate::exit_code`]. What the commands share is in `binaries`,
//! `catalogue_run` and `fatal`.

use crate::cli::{Cli, ColorWhen, Command};
use crate::exit_code;
use anstream::ColorChoice;

/// Runs the parsed command line; returns the exit code.
pub fn execute(cli: Cli) -> i32 {
    let choice = match cli.color {
        ColorWhen::Auto => ColorChoice::Auto,
        ColorWhen::Always => ColorChoice::Always,
        ColorWhen::Never => ColorChoice::Never,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: failed to start the async runtime: {e}");
            return exit_code::COULD_NOT_RUN;
        }
    };
    runtime.block_on(async move {
        match cli.command {
            Command::Run(args) => crate::run_command::run_command(args, choice).await,
            Command::Faults(args) => crate::faults::faults_command(args, choice).await,
            Command::Check(args) => crate::check_command::check_command(args).await,
            Command::Init(args) => crate::init::init_command(args),
            Command::Bench(args) => crate::bench::bench_command(args).await,
            Command::Fuzz(args) => crate::fuzz::fuzz_command(args).await,
            Command::Spikes(args) => crate::spike::spikes_command(args, choice).await,
            Command::Fidelity(args) => crate::fidelity::fidelity_command(args).await,
            Command::Calibrate(args) => crate::calibrate::calibrate_command(args).await,
            Command::Learn(args) => crate::learn::learn_command(args),
            Command::Convert(args) => crate::capture::convert_command(args),
            Command::Matrix(args) => crate::matrix::matrix_command(args, choice).await,
            Command::Repro(args) => crate::repro::repro_command(args).await,
            Command::Scenarios(args) => crate::scenarios_command::scenarios_command(args),
            Command::Bridge(args) => crate::bridge::bridge_command(args).await,
        }
    })
}
