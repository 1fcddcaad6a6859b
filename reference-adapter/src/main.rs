//! `agy-reference-adapter`: the reference adapter's driver binary.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = agy_reference_adapter::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("agy-reference-adapter: failed to start the runtime: {e}");
            return ExitCode::from(3);
        }
    };
    match runtime.block_on(agy_reference_adapter::run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agy-reference-adapter: {e:#}");
            ExitCode::from(3)
        }
    }
}
