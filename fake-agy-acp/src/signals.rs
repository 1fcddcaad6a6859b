//! SIGTERM and SIGINT: journaled, then obeyed, or ignored when the script says so
//! (RC01 ignored SIGTERM, docs/agy-acp-reference.md §2.2).

use super::wire::Wire;
use agy_protocol::acp::{AcpDirection, AcpKind};
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::sync::Arc;

/// Starts the watcher thread.
pub(crate) fn watch(wire: Arc<Wire>, ignore_sigterm: bool) {
    let Ok(mut signals) = Signals::new([SIGTERM, SIGINT]) else {
        return;
    };
    std::thread::spawn(move || {
        for sig in signals.forever() {
            let name = if sig == SIGTERM { "SIGTERM" } else { "SIGINT" };
            if sig == SIGTERM && ignore_sigterm {
                wire.event(
                    AcpDirection::Event,
                    AcpKind::Stderr,
                    &format!("{name} ignored"),
                );
                continue;
            }
            wire.event(
                AcpDirection::Event,
                AcpKind::Exit,
                &format!("{name}: exit {}", 128 + sig),
            );
            std::process::exit(128 + sig);
        }
    });
}
