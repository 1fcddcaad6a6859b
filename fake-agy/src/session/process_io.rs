//! The process's input and output: stdout and stderr, stdin (read by a thread started
//! on first use), the journal record and the signal dispositions. Everything here
//! reports to the same journal record.

use crate::io::output::Output;
use crate::io::recorder::Recorder;
use crate::io::signals::SignalControl;
use crate::io::stdin_reader::StdinReader;
use std::sync::Arc;

/// The process's streams, journal and signals.
#[derive(Debug)]
pub struct ProcessIo {
    out: Output,
    recorder: Arc<Recorder>,
    signals: Arc<SignalControl>,
    stdin: Option<StdinReader>,
}

impl ProcessIo {
    /// The streams of a process journalled by `recorder`; stdin is read at once when
    /// `read_stdin` (for the journal), otherwise on first use.
    pub fn new(
        recorder: Arc<Recorder>,
        signals: Arc<SignalControl>,
        read_stdin: bool,
    ) -> ProcessIo {
        ProcessIo {
            out: Output::new(recorder.clone()),
            stdin: read_stdin.then(|| StdinReader::start(recorder.clone())),
            recorder,
            signals,
        }
    }

    /// stdout and stderr.
    pub(super) fn out(&self) -> &Output {
        &self.out
    }

    /// The journal record.
    pub(super) fn recorder(&self) -> &Arc<Recorder> {
        &self.recorder
    }

    /// The signal dispositions.
    pub(super) fn signals(&self) -> &Arc<SignalControl> {
        &self.signals
    }

    /// The stdin thread, started on first use.
    pub(super) fn stdin(&mut self) -> &mut StdinReader {
        let recorder = &self.recorder;
        self.stdin
            .get_or_insert_with(|| StdinReader::start(recorder.clone()))
    }
}
