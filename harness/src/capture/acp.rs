//! An ACP transcript capture as a fake-agy-acp script. Each line is the client's or the
//! agent's (by its method, from the schema's method tables; a response is the agent's
//! unless it answers one of the agent's own requests; a recorder's `{direction, …}`
//! line by its `direction`). The agent lines before the first client line become the
//! `[opening]`; those after the Nth client request its `[[reply]]` (`when = { nth = N,
//! method }`), each a `line` step holding the bytes as stored, or a typed `error` step
//! where the typed answer renders those very bytes. fake-agy-acp, fed the client lines
//! in order, writes the agent lines byte for byte in their places (docs/fidelity.md).

use super::convert::ConvertError;
use agy_protocol::acp::script::{
    AcpScript, AgentSpec, ErrorSpec, OpeningSpec, ReplyRule, ReplyStep, RequestMatch,
};
use agy_protocol::acp::{method_sender, parse_frame, render_frame, Frame, Sender};
use agy_protocol::capture::{read_capture_file, Capture};
use serde_json::Value;

/// One transcript line: its number, who sent it, its text without the newline, and the
/// message when it is a JSON-RPC one.
struct TranscriptLine {
    number: usize,
    sender: Sender,
    text: String,
    frame: Option<Frame>,
}

fn fail<T>(number: usize, what: impl std::fmt::Display) -> Result<T, ConvertError> {
    Err(ConvertError {
        what: format!("transcript line {number}: {what}"),
    })
}

/// The script that replays the ACP transcript of `capture` (files relative to `dir`).
pub fn acp_capture_to_script(
    dir: &std::path::Path,
    capture: &Capture,
) -> Result<AcpScript, ConvertError> {
    let Some(rel) = &capture.files.transcript else {
        return Err(ConvertError {
            what: "an ACP capture without a `transcript` file".into(),
        });
    };
    let bytes = read_capture_file(dir, rel).map_err(|what| ConvertError { what })?;
    transcript_to_script(&bytes)
}

/// The script that replays a transcript's bytes.
fn transcript_to_script(bytes: &[u8]) -> Result<AcpScript, ConvertError> {
    let lines = read_lines(bytes)?;
    let mut script = AcpScript {
        // A capture holds no stderr: the replay writes none.
        agent: AgentSpec {
            stderr_noise: Some(false),
            ..AgentSpec::default()
        },
        ..AcpScript::default()
    };
    let mut current: Option<(ReplyRule, Option<&Frame>)> = None;
    let mut requests = 0;
    for line in &lines {
        if line.sender == Sender::Agent {
            let step = agent_step(line, current.as_ref().and_then(|(_, f)| *f));
            match &mut current {
                Some((rule, _)) => rule.steps.push(step),
                None => script.opening.steps.push(step),
            }
            continue;
        }
        script.replies.extend(current.take().map(|(rule, _)| rule));
        let Some(frame @ Frame::Request { method, .. }) = &line.frame else {
            // The agent answers a client notification or response itself; a capture
            // whose agent lines follow one cannot say them.
            if lines
                .get(line.number)
                .is_some_and(|l| l.sender == Sender::Agent)
            {
                return fail(
                    line.number + 1,
                    "agent lines after a client message that is no request: a `[[reply]]` answers requests only",
                );
            }
            continue;
        };
        requests += 1;
        let rule = ReplyRule {
            name: Some(format!("transcript line {}", line.number)),
            when: Some(RequestMatch {
                nth: Some(requests),
                method: Some(method.clone()),
                id: None,
            }),
            times: None,
            steps: Vec::new(),
        };
        current = Some((rule, Some(frame)));
    }
    script.replies.extend(current.map(|(rule, _)| rule));
    if script.opening == OpeningSpec::default() && script.replies.is_empty() {
        return Err(ConvertError {
            what: "the transcript holds no line".into(),
        });
    }
    Ok(script)
}

/// The transcript's lines, each with its sender; every one must end with its newline.
fn read_lines(bytes: &[u8]) -> Result<Vec<TranscriptLine>, ConvertError> {
    let text = std::str::from_utf8(bytes).map_err(|e| ConvertError {
        what: format!("the transcript is not UTF-8 ({e})"),
    })?;
    let mut open_agent_requests: Vec<Value> = Vec::new();
    let mut out = Vec::new();
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let number = i + 1;
        let Some(body) = raw.strip_suffix('\n') else {
            return fail(
                number,
                "no newline at its end, which a replayed line always has",
            );
        };
        let (sender, frame) = sender_of(number, body, &mut open_agent_requests)?;
        out.push(TranscriptLine {
            number,
            sender,
            text: body.to_string(),
            frame,
        });
    }
    Ok(out)
}

/// Who sent one line, and its message when it is a JSON-RPC one.
fn sender_of(
    number: usize,
    body: &str,
    open_agent_requests: &mut Vec<Value>,
) -> Result<(Sender, Option<Frame>), ConvertError> {
    let value: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) => return fail(number, format!("not JSON ({e})")),
    };
    if value.get("jsonrpc").is_none() {
        // A recorder's own form, such as `{"direction": "agent", "method": …}`.
        return match value.get("direction").and_then(Value::as_str) {
            Some("agent") => Ok((Sender::Agent, None)),
            Some("client") => Ok((Sender::Client, None)),
            _ => fail(
                number,
                "neither a JSON-RPC message nor a recorded line with `direction` `agent` or `client`",
            ),
        };
    }
    let frame = parse_frame(body).or_else(|e| fail(number, e))?;
    let sender = match &frame {
        Frame::Request { method, .. } | Frame::Notification { method, .. } => {
            match method_sender(method) {
                Some(s) => s,
                None => return fail(number, format!("`{method}` is not an ACP v1 method")),
            }
        }
        Frame::Response { id, .. } => {
            let id = serde_json::to_value(id).unwrap_or(Value::Null);
            match open_agent_requests.iter().position(|open| *open == id) {
                Some(at) => {
                    open_agent_requests.remove(at);
                    Sender::Client
                }
                None => Sender::Agent,
            }
        }
    };
    if let (Frame::Request { id, .. }, Sender::Agent) = (&frame, sender) {
        open_agent_requests.push(serde_json::to_value(id).unwrap_or(Value::Null));
    }
    Ok((sender, Some(frame)))
}

/// An agent line as a step: a typed `error` answering `request` when it renders these
/// very bytes (after the script's own TOML round trip), the stored `line` otherwise.
fn agent_step(line: &TranscriptLine, request: Option<&Frame>) -> ReplyStep {
    if let (
        Some(Frame::Response {
            id,
            outcome: Err(e),
        }),
        Some(Frame::Request { id: asked, .. }),
    ) = (&line.frame, request)
    {
        let spec = ErrorSpec::from_rpc_error(e);
        let back = toml::to_string(&spec)
            .ok()
            .and_then(|t| toml::from_str::<ErrorSpec>(&t).ok());
        let rendered = back.map(|b| {
            render_frame(&Frame::Response {
                id: id.clone(),
                outcome: Err(b.rpc_error()),
            })
        });
        if id == asked && rendered.as_deref() == Some(line.text.as_str()) {
            return ReplyStep::Error(spec);
        }
    }
    ReplyStep::Line(line.text.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convert(text: &str) -> Result<AcpScript, ConvertError> {
        transcript_to_script(text.as_bytes())
    }

    #[test]
    fn agent_lines_follow_the_client_request_they_come_after() {
        let script = convert(concat!(
            "{\"direction\": \"agent\", \"method\": \"session/update\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"session/request_permission\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"outcome\":{\"outcome\":\"cancelled\"}}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/cancel\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}\n",
        ))
        .expect("converts");
        assert_eq!(script.agent.stderr_noise, Some(false));
        assert_eq!(script.opening.steps.len(), 1);
        let whens: Vec<_> = script
            .replies
            .iter()
            .map(|r| r.when.clone().unwrap_or_default())
            .map(|w| (w.nth, w.method))
            .collect();
        // The permission answer (line 5) is the client's: it answers the agent's id 4,
        // and being no request it gets no rule.
        assert_eq!(
            whens,
            [
                (Some(1), Some("initialize".into())),
                (Some(2), Some("session/cancel".into())),
            ]
        );
        let names: Vec<&str> = script.replies[0]
            .steps
            .iter()
            .map(ReplyStep::name)
            .collect();
        assert_eq!(names, ["line", "line"]);
        assert!(matches!(
            &script.replies[1].steps[..],
            [ReplyStep::Error(e)] if e.code == -32601 && e.message == "Method not found"
        ));
    }

    #[test]
    fn an_error_answering_another_id_stays_a_verbatim_line() {
        let line = "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32000,\"message\":\"x\"}}";
        let script = convert(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"authenticate\"}}\n{line}\n"
        ))
        .expect("converts");
        assert_eq!(script.replies[0].steps, [ReplyStep::Line(line.into())]);
    }

    #[test]
    fn what_a_script_cannot_say_is_named_with_its_line() {
        let cases = [
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}", "line 1: no newline"),
            ("{\"jsonrpc\":\"2.0\",\"method\":\"x/y\"}\n", "line 1: `x/y` is not an ACP v1 method"),
            ("{\"direction\": \"up\"}\n", "line 1: neither a JSON-RPC message"),
            ("[1\n", "line 1: not JSON"),
            (
                "{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
                "line 2: agent lines after a client message that is no request",
            ),
            ("", "holds no line"),
        ];
        for (text, want) in cases {
            let err = convert(text).expect_err(want);
            assert!(err.what.contains(want), "{want}: {err}");
        }
    }
}
