//! The answer of a turn as `agent_response` steps, shared by the default turn and the
//! image subagent's delegation message.

use crate::error::FakeError;
use crate::session::Session;
use agy_protocol::stream::{StepState, StepType, StepUpdate};
use agy_protocol::Usage;

/// The answer as `agent_response` steps: ACTIVE chunks, then DONE with the last chunk
/// (the trailing `\n`, as in the PB PONG trace) and the step's usage.
pub fn stream_answer(
    s: &mut Session,
    id: &str,
    response: &str,
    chunks: Option<u32>,
    usage: Usage,
    duration: f64,
) -> Result<(), FakeError> {
    let i = s.next_step_index()?;
    let (body, tail) = match response.strip_suffix('\n') {
        Some(b) => (b, "\n"),
        None => (response, ""),
    };
    let pieces = split_chars(body, chunks.unwrap_or(1).max(1) as usize);
    for piece in pieces {
        let mut a = StepUpdate::new(id, i, StepState::Active, StepType::AgentResponse);
        a.text_delta = Some(piece);
        s.emit_step(a);
    }
    let mut done = StepUpdate::new(id, i, StepState::Done, StepType::AgentResponse);
    if !tail.is_empty() {
        done.text_delta = Some(tail.to_string());
    }
    done.duration_seconds = Some(duration);
    done.usage = Some(usage);
    s.emit_step(done);
    Ok(())
}

fn split_chars(text: &str, n: usize) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    let chars: Vec<char> = text.chars().collect();
    let n = n.min(chars.len());
    let size = chars.len().div_ceil(n);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_splits_into_the_asked_number_of_chunks() {
        assert_eq!(split_chars("abcdef", 3), vec!["ab", "cd", "ef"]);
        assert_eq!(split_chars("ab", 5), vec!["a", "b"]);
        assert!(split_chars("", 2).is_empty());
    }
}
