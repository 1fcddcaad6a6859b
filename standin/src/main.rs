//! `agy-standin`: answers as the recorded agy version in `AGY_STANDIN_TRACES`.

use agy_protocol::standin::STANDIN_UNSERVED_EXIT;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match agy_standin::run(&args) {
        Ok(exit) => {
            if let Some(name) = exit.signal {
                if let Ok(sig) = name.parse::<nix::sys::signal::Signal>() {
                    // The recorded run died by a signal: so does the replay.
                    let _ = nix::sys::signal::raise(sig);
                }
                std::process::exit(128);
            }
            std::process::exit(exit.code.unwrap_or(0));
        }
        Err(e) => {
            eprintln!("agy-standin: {e}");
            std::process::exit(STANDIN_UNSERVED_EXIT);
        }
    }
}
