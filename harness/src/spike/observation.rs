//! What one probe run showed: output, exit, files, timing.

use serde::Serialize;
use serde_json::Value;

/// One run of a probe, as observed from outside the process.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Observation {
    /// 1-based run number within the probe.
    pub run: u32,
    /// Exit code, when the process exited.
    pub exit_code: Option<i32>,
    /// Signal that ended it, when one did (`SIGKILL` after a timeout).
    pub signal: Option<String>,
    /// True when the harness killed it for running past the probe's timeout.
    pub timed_out: bool,
    /// stdout, lossy UTF-8.
    pub stdout: String,
    /// stderr, lossy UTF-8.
    pub stderr: String,
    /// Start, seconds since the first run of the probe started.
    pub started: f64,
    /// End, same clock.
    pub ended: f64,
    /// The envelope (json mode) or the `result` payload (stream-json), as raw JSON so
    /// unknown keys stay visible.
    pub envelope: Option<Value>,
    /// Every stream-json event, raw.
    pub events: Vec<Value>,
    /// Images found under the app data dir.
    pub images: Vec<ImageInfo>,
    /// Entry names directly inside `brain/<conversation_id>/` (folders end in `/`).
    pub brain_entries: Vec<String>,
    /// Files in the probe's `{workdir}`, relative.
    pub workdir_files: Vec<String>,
    /// Files under the app data dir's `scratch/`.
    pub scratch_files: Vec<String>,
    /// Why the run could not be made (spawn failure, skipped for budget).
    pub not_run: Option<String>,
}

/// One image file agy left behind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageInfo {
    /// Path relative to the app data dir (`brain/<id>/x_1.jpg`).
    pub path: String,
    /// `jpeg`, `png`, or `unknown`.
    pub format: String,
    /// Pixel size, when a decoder read it.
    pub size: Option<(u32, u32)>,
    /// True when a decoder read the whole image.
    pub decodes: bool,
}

impl Observation {
    /// The conversation id the run reported.
    pub fn conversation_id(&self) -> Option<&str> {
        self.envelope
            .as_ref()
            .and_then(|e| e.get("conversation_id"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    }

    /// The payload of the `init` event, when there was one.
    pub fn init(&self) -> Option<&Value> {
        self.events
            .iter()
            .find(|e| e.get("event").and_then(Value::as_str) == Some("init"))
            .and_then(|e| e.get("init"))
    }

    /// Tool steps in order: `(tool_name, tool_info)` of each DONE/ERROR tool step, or of
    /// an ACTIVE one that never finished.
    pub fn tool_calls(&self) -> Vec<(String, Value)> {
        let mut calls: Vec<(u64, String, Value)> = Vec::new();
        for e in &self.events {
            let Some(step) = e.get("step_update") else {
                continue;
            };
            if step.get("step_type").and_then(Value::as_str) != Some("tool") {
                continue;
            }
            let index = step.get("step_index").and_then(Value::as_u64).unwrap_or(0);
            let name = step
                .get("tool_name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let info = step.get("tool_info").cloned().unwrap_or(Value::Null);
            match calls.iter_mut().find(|(i, _, _)| *i == index) {
                Some(slot) => *slot = (index, name, info),
                None => calls.push((index, name, info)),
            }
        }
        calls.into_iter().map(|(_, n, i)| (n, i)).collect()
    }

    /// True when the run was a completed agy turn: it printed an envelope (json) or a
    /// `result` event (stream-json) with a status. Only such runs can show that agy's
    /// behaviour changed; a crash or a binary that is not agy shows nothing about agy.
    pub fn completed_turn(&self) -> bool {
        self.envelope
            .as_ref()
            .and_then(|e| e.get("status"))
            .is_some_and(Value::is_string)
    }

    /// True when the run happened (it may still have failed).
    pub fn was_run(&self) -> bool {
        self.not_run.is_none()
    }
}
