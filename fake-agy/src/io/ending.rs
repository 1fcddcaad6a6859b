//! How the process ends: the final journal record first, then the exit or the signal.

use crate::io::recorder::Recorder;
use agy_protocol::journal::ExitRecord;

/// Writes the final record and exits with `code`. When another thread already wrote
/// it (a signal arrived first), that thread ends the process and this one waits, so the
/// journal always tells how the process really ended.
pub fn exit_with(recorder: &Recorder, code: i32) -> ! {
    crate::io::children::end_turn_children();
    if !recorder.finish(ExitRecord {
        code: Some(code),
        signal: None,
    }) {
        park_forever();
    }
    std::process::exit(code)
}

fn park_forever() -> ! {
    loop {
        std::thread::park();
    }
}

/// Writes the final record and dies by `signal` (its OS default action).
pub fn die_by_signal(recorder: &Recorder, signal: i32) -> ! {
    if !recorder.finish(ExitRecord {
        code: None,
        signal: Some(signal_name(signal)),
    }) {
        park_forever();
    }
    let _ = signal_hook::low_level::emulate_default_handler(signal);
    // Only reached if the default action did not end the process.
    std::process::exit(128 + signal)
}

/// `SIGTERM`, `SIGINT`, … for a signal number.
pub fn signal_name(signal: i32) -> String {
    nix::sys::signal::Signal::try_from(signal)
        .map(|s| s.as_str().to_string())
        .unwrap_or_else(|_| format!("SIG{signal}"))
}
