//! Signals: each is journalled with its arrival time (live copy at once, so a later
//! SIGKILL still leaves it), then acted on as the script says (`on_sigterm`,
//! `on_sigint`). Without a script word, SIGTERM, SIGINT and SIGHUP end the process
//! by the signal, as an agy without handlers would (unrecorded: PROTOCOL.md §4.4).

use crate::clock::Clock;
use crate::ending::{die_by_signal, exit_with, signal_name};
use crate::recorder::Recorder;
use agy_protocol::script::{SignalAction, SignalNamed};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The current signal dispositions.
#[derive(Debug)]
pub struct SignalControl {
    actions: Mutex<HashMap<i32, SignalAction>>,
}

impl SignalControl {
    /// Installs the handlers and starts the signal thread.
    pub fn start(recorder: Arc<Recorder>, clock: Clock) -> Arc<SignalControl> {
        let control = Arc::new(SignalControl {
            actions: Mutex::new(HashMap::new()),
        });
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) else {
            return control;
        };
        let c = control.clone();
        std::thread::spawn(move || {
            for sig in signals.forever() {
                recorder.signal(&signal_name(sig));
                let action = c
                    .actions
                    .lock()
                    .ok()
                    .and_then(|m| m.get(&sig).cloned())
                    .unwrap_or(SignalAction::Named(SignalNamed::Default));
                act(&recorder, clock, sig, action);
            }
        });
        control
    }

    /// Sets what `signal` does from now on.
    pub fn set(&self, signal: i32, action: SignalAction) {
        if let Ok(mut m) = self.actions.lock() {
            m.insert(signal, action);
        }
    }
}

fn act(recorder: &Arc<Recorder>, clock: Clock, sig: i32, action: SignalAction) {
    match action {
        SignalAction::Named(SignalNamed::Ignore) => {}
        SignalAction::Named(SignalNamed::Exit) => exit_with(recorder, 128 + sig),
        SignalAction::Named(SignalNamed::Default) => die_by_signal(recorder, sig),
        SignalAction::ExitAfter { exit_after, code } => {
            let r = recorder.clone();
            std::thread::spawn(move || {
                clock.sleep(exit_after.0);
                exit_with(&r, code.unwrap_or(128 + sig))
            });
        }
    }
}

/// SIGTERM's number, for `on_sigterm`.
pub const TERM: i32 = SIGTERM;
/// SIGINT's number, for `on_sigint`.
pub const INT: i32 = SIGINT;
