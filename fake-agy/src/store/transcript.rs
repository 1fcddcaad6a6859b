//! The conversation's step log in its brain folder:
//! `brain/<id>/.system_generated/logs/transcript.jsonl` and `transcript_full.jsonl`, one
//! JSON line per step, for headless runs too (docs/agy-reference.md §5, *measured*: FM,
//! specstory PR #222).
//!
//! A line, as optio-antigravity 0.3.8 describes the layout it captured from agy
//! (`conversation.py:28-41`): `step_index`, `source` (`USER_EXPLICIT`, `MODEL`), `type`
//! (`USER_INPUT`, `PLANNER_RESPONSE`), `status`, `created_at` (UTC, whole seconds),
//! `content`; a user's input wraps the request as `<USER_REQUEST>\n…\n</USER_REQUEST>`
//! (ai-hats-agy 0.2.0 `parser.py` unwraps the same). The key order, `status` `DONE`, the
//! time's precision, and leaving out the `<ADDITIONAL_METADATA>` agy appends (its content
//! is not recorded) are **unverified**. Only the user's input and the model's answers are
//! written (not the `CONVERSATION_HISTORY`, `CHECKPOINT` and tool lines). `transcript.jsonl`
//! shortens large fields where `transcript_full.jsonl` never does, and how large is not
//! recorded, so both hold the same lines.

use crate::error::FakeError;
use crate::store::brain::AppDir;
use crate::store::conversation_db::StepRow;
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;

/// The two logs, as agy names them.
const FILES: [&str; 2] = ["transcript.jsonl", "transcript_full.jsonl"];

/// The line of one step, or none for a step the fake does not log.
fn line(step: &StepRow, prompt: &str, created_at: &str) -> Option<Value> {
    if step.is_user_input() {
        Some(json!({
            "step_index": step.idx,
            "source": "USER_EXPLICIT",
            "type": "USER_INPUT",
            "status": "DONE",
            "created_at": created_at,
            "content": format!("<USER_REQUEST>\n{prompt}\n</USER_REQUEST>"),
        }))
    } else if step.is_planner_response() {
        Some(json!({
            "step_index": step.idx,
            "source": "MODEL",
            "type": "PLANNER_RESPONSE",
            "status": "DONE",
            "created_at": created_at,
            "content": step.text,
        }))
    } else {
        None
    }
}

/// Appends a finished turn's lines to both logs of conversation `id`; returns the paths.
pub fn append_turn(
    app: &AppDir,
    id: &str,
    prompt: &str,
    steps: &[StepRow],
    created_at: &str,
) -> Result<Vec<PathBuf>, FakeError> {
    let mut text = String::new();
    for value in steps.iter().filter_map(|s| line(s, prompt, created_at)) {
        text.push_str(&value.to_string());
        text.push('\n');
    }
    let dir = app.brain(id).join(".system_generated/logs");
    std::fs::create_dir_all(&dir).map_err(|e| FakeError::io("create brain dir", &dir, e))?;
    let mut written = Vec::new();
    for name in FILES {
        let path = dir.join(name);
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| FakeError::io("write transcript", &path, e))?;
        written.push(path);
    }
    Ok(written)
}

/// Now in UTC to the second, as the transcript's `created_at` (`2026-07-06T10:00:00Z`).
pub fn now_in_seconds() -> String {
    let now = time::OffsetDateTime::now_utc();
    now.replace_nanosecond(0)
        .unwrap_or(now)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}
