//! Signals: each is journalled with its arrival time (live copy at once, so a later
//! SIGKILL still leaves it), then acted on as the script says (`on_sigterm`,
//! `on_sigint`). Without a script word, SIGTERM, SIGINT and SIGHUP end the process
//! by the signal, as an agy without handlers would (unrecorded: docs/agy-reference.md §4.4).

use crate::io::clock::Clock;
use crate::io::ending::{die_by_signal, exit_with, signal_name};
use crate::io::recorder::Recorder;
use agy_protocol::script::{SignalAction, SignalNamed};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, Once};

/// The current signal dispositions.
#[derive(Debug)]
pub struct SignalControl {
    actions: Mutex<HashMap<i32, SignalAction>>,
    recorder: Arc<Recorder>,
    clock: Clock,
    started: Once,
    /// Set while a turn waits to be interrupted: SIGINT and SIGTERM are handed to it.
    awaiting: AtomicBool,
    interrupt: Mutex<Option<i32>>,
    arrived: Condvar,
}

impl SignalControl {
    /// Signal handling that starts on first need ([`SignalControl::ensure_started`]):
    /// until then the OS defaults apply, which is also the default disposition.
    pub fn new(recorder: Arc<Recorder>, clock: Clock) -> Arc<SignalControl> {
        Arc::new(SignalControl {
            actions: Mutex::new(HashMap::new()),
            recorder,
            clock,
            started: Once::new(),
            awaiting: AtomicBool::new(false),
            interrupt: Mutex::new(None),
            arrived: Condvar::new(),
        })
    }

    /// Installs the handlers and starts the signal thread (once).
    pub fn ensure_started(self: &Arc<Self>) {
        let c = self.clone();
        self.started.call_once(move || {
            let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])
            else {
                return;
            };
            std::thread::spawn(move || {
                for sig in signals.forever() {
                    if c.recorder.is_finished() {
                        // The final record is out and the process is exiting as it says.
                        continue;
                    }
                    c.recorder.signal(&signal_name(sig));
                    if c.awaiting.load(Ordering::SeqCst) && (sig == SIGINT || sig == SIGTERM) {
                        if let Ok(mut slot) = c.interrupt.lock() {
                            *slot = Some(sig);
                        }
                        c.arrived.notify_all();
                        continue;
                    }
                    let action = c
                        .actions
                        .lock()
                        .ok()
                        .and_then(|m| m.get(&sig).cloned())
                        .unwrap_or(SignalAction::Named(SignalNamed::Default));
                    act(&c.recorder, c.clock, sig, action);
                }
            });
        });
    }

    /// Sets what `signal` does from now on.
    pub fn set(self: &Arc<Self>, signal: i32, action: SignalAction) {
        if let Ok(mut m) = self.actions.lock() {
            m.insert(signal, action);
        }
        self.ensure_started();
    }
}

impl SignalControl {
    /// From now on SIGINT and SIGTERM interrupt the turn instead of acting: call before
    /// showing what the interrupter waits for, so no signal arrives unhandled.
    pub fn arm_interrupt(self: &Arc<Self>) {
        self.awaiting.store(true, Ordering::SeqCst);
        self.ensure_started();
    }

    /// Blocks until SIGINT or SIGTERM arrives (after [`SignalControl::arm_interrupt`]);
    /// returns it.
    pub fn wait_interrupt(&self) -> i32 {
        let Ok(mut slot) = self.interrupt.lock() else {
            return SIGTERM;
        };
        loop {
            if let Some(sig) = *slot {
                return sig;
            }
            slot = match self.arrived.wait(slot) {
                Ok(g) => g,
                Err(_) => return SIGTERM,
            };
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
