//! Files in `brain/<conversation_id>/`: generated images named
//! `<ImageName>_<epoch_ms>.<ext>` (docs/spike-records.md S2) with their `generate_image` tool steps
//! (S3: parameters `ImageName` and `Prompt`, no output), arbitrary scripted files, and
//! scripted lines of the `--log-file` file.

use crate::error::FakeError;
use crate::session::Session;
use crate::turn::image::{corrupt, encode, extension};
use agy_protocol::prompt::read_prompt;
use agy_protocol::script::{FileSpec, ImageSpec};
use agy_protocol::stream::{StepState, StepType, StepUpdate, ToolInfo};
use std::path::{Component, Path};
use std::time::{SystemTime, UNIX_EPOCH};

/// Writes the images `spec` asks for; in stream-json with `tool_steps`, each is framed
/// by a `generate_image` ACTIVE and DONE step.
pub fn write_images(
    s: &mut Session,
    spec: &ImageSpec,
) -> Result<Vec<std::path::PathBuf>, FakeError> {
    let id = s.conversation_id()?;
    write_images_in(s, spec, &id)
}

/// Writes the images into `brain/<conversation>/` (the run's own conversation, or a
/// subagent's); tool steps, when asked for, are the run's.
pub fn write_images_in(
    s: &mut Session,
    spec: &ImageSpec,
    conversation: &str,
) -> Result<Vec<std::path::PathBuf>, FakeError> {
    let reading = read_prompt(s.turn().prompt());
    let (w, h) = (
        spec.width.unwrap_or(reading.image_size.0),
        spec.height.unwrap_or(reading.image_size.1),
    );
    let name = spec.name.clone().unwrap_or(reading.image_name);
    let id = s.conversation_id()?;
    let dir = s.app().create_brain(conversation)?;
    let mut written = Vec::new();
    let mut last_ms = 0u128;
    for n in 0..spec.count {
        let parameters = serde_json::json!({ "ImageName": name, "Prompt": s.turn().prompt() });
        let index = if spec.tool_steps {
            let i = s.next_step_index()?;
            let mut active = StepUpdate::new(id.clone(), i, StepState::Active, StepType::Tool);
            active.tool_name = Some("generate_image".into());
            active.tool_info = Some(ToolInfo {
                name: "generate_image".into(),
                parameters: parameters.clone(),
                output: None,
                error: None,
                extra: Default::default(),
            });
            s.emit_step(active);
            Some(i)
        } else {
            None
        };
        let started = std::time::Instant::now();
        let bytes = if spec.corrupt {
            corrupt(spec.format)
        } else {
            encode(w, h, spec.format, n).map_err(FakeError::Step)?
        };
        // Distinct names even when two images land in the same millisecond.
        let mut ms = epoch_ms();
        if ms <= last_ms {
            ms = last_ms + 1;
        }
        last_ms = ms;
        let path = dir.join(format!("{name}_{ms}.{}", extension(spec.format)));
        std::fs::write(&path, &bytes).map_err(|e| FakeError::io("write image", &path, e))?;
        s.record_file(&path, bytes.len() as u64);
        if let Some(i) = index {
            let mut done = StepUpdate::new(id.clone(), i, StepState::Done, StepType::Tool);
            done.tool_name = Some("generate_image".into());
            done.duration_seconds = Some(started.elapsed().as_secs_f64());
            done.tool_info = Some(ToolInfo {
                name: "generate_image".into(),
                parameters,
                output: None,
                error: None,
                extra: Default::default(),
            });
            s.emit_step(done);
        }
        written.push(path);
    }
    Ok(written)
}

/// Writes a scripted file inside the brain dir; paths may not leave it.
pub fn write_brain_file(s: &mut Session, spec: &FileSpec) -> Result<(), FakeError> {
    let rel = Path::new(&spec.path);
    if rel.is_absolute() || rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err(FakeError::Step(format!(
            "`file` path `{}` must be relative to brain/<conversation_id>/ and stay inside it",
            spec.path
        )));
    }
    let id = s.conversation_id()?;
    let dir = s.app().create_brain(&id)?;
    let path = dir.join(rel);
    let bytes: Vec<u8> = match (&spec.text, &spec.hex) {
        (Some(t), _) => t.as_bytes().to_vec(),
        (None, Some(h)) => h.0.clone(),
        (None, None) => Vec::new(),
    };
    crate::store::brain::write_file(&path, &bytes)?;
    s.record_file(&path, bytes.len() as u64);
    Ok(())
}

/// Appends `text` to the file `--log-file` names (relative to the cwd, created when
/// missing); without the flag agy keeps its log elsewhere and the text goes nowhere.
pub fn append_log(s: &mut Session, text: &str) -> Result<(), FakeError> {
    let Some(path) = s.setup().args().log_file.clone() else {
        return Ok(());
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| FakeError::io("open the --log-file", &path, e))?;
    std::io::Write::write_all(&mut file, text.as_bytes())
        .map_err(|e| FakeError::io("append to the --log-file", &path, e))?;
    let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
    s.record_file(Path::new(&path), bytes);
    Ok(())
}

fn epoch_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}
