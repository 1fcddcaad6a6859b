//! What a script step shows the adapter: a result, a step update, images, stderr, how
//! the process ends. The oracle judges a reproduction from these, so a step the
//! minimiser changed is judged as fake-agy will act it out (an unset field takes the
//! fake's default: `SUCCESS`, a canned answer, usage counted up).

use crate::profile::repro_kit::case::ScriptStep;
use agy_protocol::stream::StreamEvent;
use agy_protocol::Envelope;
use toml::Value;

/// A result (envelope or `result` event).
#[derive(Debug, Clone, PartialEq)]
pub struct ResultSeen {
    /// `SUCCESS`, `ERROR`, …
    pub status: String,
    /// The response; `None`: fake-agy's canned (non-empty) answer.
    pub response: Option<String>,
    /// The error text.
    pub error: String,
    /// `num_turns`; `None`: fake-agy counts the turn.
    pub num_turns: Option<u64>,
    /// The usage.
    pub usage: UsageSeen,
    /// The whole result as written, to tell a replay (the same line again).
    pub identity: String,
}

/// A usage as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageSeen {
    /// All counters zero.
    Zero,
    /// Input, output and total tokens.
    Counts(u64, u64, u64),
    /// fake-agy's default usage (not zero).
    Default,
}

impl UsageSeen {
    /// True when every counter is zero.
    pub fn is_zero(self) -> bool {
        matches!(self, UsageSeen::Zero | UsageSeen::Counts(_, _, 0))
    }
}

/// A step update.
#[derive(Debug, Clone, PartialEq)]
pub struct StepSeen {
    /// `step_index`; `None`: fake-agy's next index.
    pub index: Option<u64>,
    /// `agent_response`, `user_input`, `tool`, …
    pub step_type: String,
    /// `text_delta`.
    pub text: Option<String>,
    /// The step's usage.
    pub usage: Option<UsageSeen>,
}

/// What one step shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    /// A result.
    Result(ResultSeen),
    /// A step update.
    Step(StepSeen),
    /// Images in the brain folder: count, width, height.
    Image(u64, u32, u32),
    /// A stderr line.
    Stderr(String),
    /// The process exits with this code.
    Exit(i32),
    /// The process hangs until killed.
    Hang,
    /// The process dies by a signal.
    Crash,
    /// Nothing the oracle judges (`init`, `sleep`, plain text, `on_sigterm`).
    Other,
}

fn int(v: Option<&Value>) -> Option<u64> {
    v.and_then(Value::as_integer)
        .and_then(|i| u64::try_from(i).ok())
}

fn usage_of(v: Option<&Value>) -> UsageSeen {
    match v {
        Some(Value::String(s)) if s == "zero" => UsageSeen::Zero,
        Some(Value::Table(t)) => {
            let (i, o) = (
                int(t.get("input")).unwrap_or(0),
                int(t.get("output")).unwrap_or(0),
            );
            UsageSeen::Counts(i, o, int(t.get("total")).unwrap_or(i + o))
        }
        _ => UsageSeen::Default,
    }
}

/// What `step` shows.
pub fn seen(step: &ScriptStep) -> Seen {
    let body = step.body();
    let table = body.and_then(Value::as_table);
    let field = |k: &str| table.and_then(|t| t.get(k));
    let text = |k: &str| field(k).and_then(Value::as_str).map(str::to_string);
    match step.key() {
        "envelope" => Seen::Result(ResultSeen {
            status: text("status").unwrap_or_else(|| "SUCCESS".into()),
            response: text("response"),
            error: text("error").unwrap_or_default(),
            num_turns: int(field("num_turns")),
            usage: usage_of(field("usage")),
            identity: step.value.to_string(),
        }),
        "step_update" => Seen::Step(StepSeen {
            index: int(field("step_index")),
            step_type: text("step_type").unwrap_or_else(|| "agent_response".into()),
            text: text("text_delta"),
            usage: field("usage").map(|u| usage_of(Some(u))),
        }),
        "stdout" => body.and_then(Value::as_str).map_or(Seen::Other, seen_line),
        "stderr" => Seen::Stderr(body.and_then(Value::as_str).unwrap_or_default().to_string()),
        "image" => Seen::Image(
            int(field("count")).unwrap_or(1),
            int(field("width"))
                .and_then(|w| u32::try_from(w).ok())
                .unwrap_or(1024),
            int(field("height"))
                .and_then(|h| u32::try_from(h).ok())
                .unwrap_or(1024),
        ),
        "exit" => Seen::Exit(
            body.and_then(Value::as_integer)
                .and_then(|c| i32::try_from(c).ok())
                .unwrap_or(0),
        ),
        "hang" => Seen::Hang,
        "crash" => Seen::Crash,
        _ => Seen::Other,
    }
}

/// A plain stdout line: a stream event or an envelope written as text.
fn seen_line(line: &str) -> Seen {
    let result = |e: Envelope| {
        Seen::Result(ResultSeen {
            status: e.status.to_string(),
            response: Some(e.response.clone()),
            error: e.error.clone(),
            num_turns: Some(e.num_turns),
            usage: if e.usage.total_tokens == 0 {
                UsageSeen::Zero
            } else {
                UsageSeen::Counts(
                    e.usage.input_tokens,
                    e.usage.output_tokens,
                    e.usage.total_tokens,
                )
            },
            identity: line.to_string(),
        })
    };
    match StreamEvent::parse(line) {
        Ok(StreamEvent::Result(e)) => result(e),
        Ok(StreamEvent::StepUpdate(s)) => Seen::Step(StepSeen {
            index: Some(s.step_index),
            step_type: s.step_type.as_str().to_string(),
            text: s.text_delta,
            usage: s
                .usage
                .map(|u| UsageSeen::Counts(u.input_tokens, u.output_tokens, u.total_tokens)),
        }),
        Ok(_) => Seen::Other,
        Err(_) => Envelope::parse(line).map_or(Seen::Other, result),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repro::convert::stdout_script_step;

    #[test]
    fn a_converted_result_shows_what_its_line_says() {
        let line = r#"{"event":"result","result":{"conversation_id":"c","status":"SUCCESS","response":"","duration_seconds":0,"num_turns":1,"usage":{"input_tokens":0,"output_tokens":0,"thinking_tokens":0,"cache_read_tokens":0,"total_tokens":0}}}"#;
        let Seen::Result(r) = seen(&stdout_script_step(line, 1)) else {
            panic!("not a result");
        };
        assert_eq!(r.status, "SUCCESS");
        assert_eq!(r.response.as_deref(), Some(""));
        assert_eq!(r.num_turns, Some(1));
        assert!(r.usage.is_zero());
    }

    #[test]
    fn a_step_without_fields_takes_the_fakes_defaults() {
        let mut step = stdout_script_step(
            r#"{"conversation_id":"c","status":"ERROR","response":"","error":"x","duration_seconds":1,"num_turns":1,"usage":{"input_tokens":1,"output_tokens":2,"thinking_tokens":0,"cache_read_tokens":0,"total_tokens":3}}"#,
            1,
        );
        if let Some(Value::Table(t)) = step.body_mut() {
            t.remove("status");
            t.remove("usage");
        }
        let Seen::Result(r) = seen(&step) else {
            panic!("not a result");
        };
        assert_eq!(r.status, "SUCCESS");
        assert_eq!(r.usage, UsageSeen::Default);
    }
}
