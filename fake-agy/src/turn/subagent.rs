//! Image generation delegated to the built-in `image-generator` subagent (agy 1.2.16 on,
//! `ImageSubagent` in docs/agy-versions.md): the parent turn shows a `subagent` step, a
//! delegation message and a `system_message` when the child reports back, and the
//! image lands in the child conversation's brain dir, not the parent's.

use crate::error::FakeError;
use crate::session::Session;
use crate::turn::answer_stream::stream_answer;
use crate::turn::artifact::write_images_in;
use agy_protocol::script::{ImageSpec, SUBAGENT_TOOL};
use agy_protocol::stream::{StepState, StepType, StepUpdate};
use agy_protocol::Usage;
use serde_json::{json, Map, Value};

/// The parent's message after delegating (cp-1.2.16-image-subagent, verbatim).
pub const DELEGATION_TEXT: &str = "I have delegated the image generation task to the image-generator subagent and will wait for it to complete.\n";

/// The delegation message's usage (cp-1.2.16-image-subagent, step 3).
const DELEGATION_USAGE: Usage = Usage {
    input_tokens: 12963,
    output_tokens: 22,
    thinking_tokens: 0,
    cache_read_tokens: 0,
    total_tokens: 12985,
    cache_read_absent: false,
};

/// Delegates the image to a child conversation: `subagent` ACTIVE (type, role, prompt),
/// the images written to `brain/<child id>/`, `subagent` DONE (adds the child's
/// conversation id, log uri and workspace uris), the delegation message, then the
/// `system_message` of the child's report. Returns the delegation text, which agy
/// puts at the head of `result.response`.
pub fn delegate_image(s: &mut Session, id: &str, spec: &ImageSpec) -> Result<String, FakeError> {
    let mut entry = Map::new();
    entry.insert("type_name".into(), json!(IMAGE_GENERATOR));
    entry.insert("role".into(), json!("Image Generator"));
    entry.insert("initial_prompt".into(), json!(s.turn().prompt()));
    start_subagent(s, id, entry, spec)?;
    // The recorded message came in two text chunks before its DONE line.
    stream_answer(
        s,
        id,
        DELEGATION_TEXT,
        Some(2),
        DELEGATION_USAGE,
        2.492446384,
    )?;
    report_back(s, id)?;
    Ok(DELEGATION_TEXT.to_string())
}

/// The built-in image subagent's type name.
pub const IMAGE_GENERATOR: &str = "image-generator";

/// Starts a subagent the model launched: `subagent` ACTIVE with `entry` (its type, role
/// and prompt), the child's work (an `image-generator` writes the image `spec` asks for
/// into `brain/<child id>/`), then `subagent` DONE adding the child's conversation id,
/// log uri and workspace uris (cp-1.2.16-image-subagent, ut-1.3.1-subagent).
pub fn start_subagent(
    s: &mut Session,
    id: &str,
    mut entry: Map<String, Value>,
    spec: &ImageSpec,
) -> Result<(), FakeError> {
    let child = uuid::Uuid::new_v4().to_string();
    let i = s.next_step_index()?;
    let step = |state: StepState, entry: &Map<String, Value>| {
        let mut u = StepUpdate::new(id, i, state, StepType::Other("subagent".into()));
        u.tool_name = Some(SUBAGENT_TOOL.into());
        u.extra
            .insert("subagent_info".into(), json!({ "subagents": [entry] }));
        u
    };
    s.emit_step(step(StepState::Active, &entry));
    let started = std::time::Instant::now();
    if entry.get("type_name").and_then(Value::as_str) == Some(IMAGE_GENERATOR) {
        let child_spec = ImageSpec {
            tool_steps: false,
            ..spec.clone()
        };
        write_images_in(s, &child_spec, &child)?;
    }
    let log = s
        .app()
        .brain(&child)
        .join(".system_generated/logs/transcript.jsonl");
    entry.insert("conversation_id".into(), json!(child));
    entry.insert("log_uri".into(), json!(format!("file://{}", log.display())));
    entry.insert(
        "workspace_uris".into(),
        json!([format!("file://{}", s.setup().workspace())]),
    );
    let mut done = step(StepState::Done, &entry);
    done.duration_seconds = Some(started.elapsed().as_secs_f64());
    // The recorded DONE line has duration_seconds before subagent_info.
    s.emit_step(done);
    Ok(())
}

/// The `system_message` step of a subagent's report reaching the parent.
pub fn report_back(s: &mut Session, id: &str) -> Result<(), FakeError> {
    let i = s.next_step_index()?;
    let mut report = StepUpdate::new(id, i, StepState::Done, StepType::SystemMessage);
    report.duration_seconds = Some(0.000103848);
    s.emit_step(report);
    Ok(())
}
