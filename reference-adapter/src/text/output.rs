//! What one finished run printed, read in the output format it was asked for: the
//! result envelope (json, stream-json), the conversation id, the text that streamed.

use super::argv::OutputMode;
use agy_protocol::stream::{StepType, StreamEvent};
use agy_protocol::Envelope;

/// stdout of a run, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunOutput {
    /// The result: the envelope (json) or the `result` event's payload (stream-json);
    /// `None` in text mode, or when none came.
    pub envelope: Option<Envelope>,
    /// Why stdout holds no result where one was due (json, stream-json).
    pub unreadable: Option<String>,
    /// The conversation agy named (envelope, `init`), when it named one.
    pub conversation_id: Option<String>,
    /// The answer text as printed (text mode), or streamed in `agent_response` steps
    /// (stream-json).
    pub streamed: String,
}

/// Reads `stdout` as `mode` prints it.
pub fn read_output(mode: OutputMode, stdout: &str) -> RunOutput {
    match mode {
        OutputMode::Text => RunOutput {
            streamed: stdout.to_string(),
            ..RunOutput::default()
        },
        OutputMode::Json => read_json(stdout),
        OutputMode::StreamJson => read_stream(stdout),
    }
}

fn named(id: &str) -> Option<String> {
    Some(id.to_string()).filter(|id| !id.is_empty())
}

fn read_json(stdout: &str) -> RunOutput {
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return RunOutput {
            unreadable: Some("stdout is empty".into()),
            ..RunOutput::default()
        };
    }
    match Envelope::parse(trimmed) {
        Ok(env) => RunOutput {
            conversation_id: named(&env.conversation_id),
            envelope: Some(env),
            ..RunOutput::default()
        },
        Err(e) => RunOutput {
            unreadable: Some(format!(
                "stdout is not an envelope ({e}): {:?}",
                crate::failure::head(trimmed, 200)
            )),
            streamed: trimmed.to_string(),
            ..RunOutput::default()
        },
    }
}

fn read_stream(stdout: &str) -> RunOutput {
    let mut out = RunOutput::default();
    for line in stdout.lines().filter(|l| !l.trim().is_empty()) {
        match StreamEvent::parse(line) {
            Ok(StreamEvent::Init {
                conversation_id, ..
            }) => out.conversation_id = out.conversation_id.take().or(named(&conversation_id)),
            Ok(StreamEvent::StepUpdate(step)) if step.step_type == StepType::AgentResponse => {
                out.streamed
                    .push_str(step.text_delta.as_deref().unwrap_or(""));
            }
            Ok(StreamEvent::Result(env)) => {
                out.conversation_id = named(&env.conversation_id).or(out.conversation_id.take());
                out.envelope = Some(env);
            }
            Ok(_) => {}
            Err(e) => {
                out.unreadable = Some(format!(
                    "a stdout line is not a stream-json event ({e}): {:?}",
                    crate::failure::head(line, 200)
                ));
            }
        }
    }
    if out.envelope.is_none() && out.unreadable.is_none() {
        out.unreadable = Some("no `result` event".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_envelope_gives_its_conversation() {
        let o = read_output(
            OutputMode::Json,
            r#"{"conversation_id":"c1","status":"SUCCESS","response":"hi\n","duration_seconds":1,"num_turns":1,"usage":{"input_tokens":1,"output_tokens":2,"thinking_tokens":0,"cache_read_tokens":0,"total_tokens":3}}"#,
        );
        assert_eq!(o.conversation_id.as_deref(), Some("c1"));
        assert_eq!(o.envelope.map(|e| e.response), Some("hi\n".into()));
    }

    #[test]
    fn a_cut_stream_has_its_text_and_no_result() {
        let o = read_output(
            OutputMode::StreamJson,
            "{\"event\":\"init\",\"conversation_id\":\"c2\",\"init\":{\"cwd\":\"/w\",\"tools\":[],\"permission_mode\":\"request-review\"}}\n",
        );
        assert_eq!(o.conversation_id.as_deref(), Some("c2"));
        assert!(o.envelope.is_none());
        assert!(o.unreadable.is_some());
    }

    #[test]
    fn garbage_is_unreadable_not_a_panic() {
        assert!(read_output(OutputMode::Json, "not json")
            .unreadable
            .is_some());
        assert!(read_output(OutputMode::Json, "").unreadable.is_some());
    }
}
