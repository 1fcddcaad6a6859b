//! Reads an ACP JSON-RPC transcript as people paste it from `agy_acp_server`'s stdio:
//! one message per line, client → agent and agent → client, with or without a label
//! saying which (`>` / `<`, `-->` / `<--`, `→` / `←`, `client:` / `agent:`, `stdin:` /
//! `stdout:`). Unlabelled messages are placed by their method (docs/agy-acp-reference.md
//! §1, the schema's method tables through `agy_protocol::acp::method_sender`: the client
//! calls `initialize`, `session/*`; the agent sends `session/update` and
//! `session/request_permission`) and responses by the request whose id they answer.
//! Other lines (prose, agent stderr) are ignored; every malformed message is reported
//! at once at `file:line:col` with a hint.

use crate::repro::paste::{error_offset, without_location};
use agy_protocol::acp::{method_sender, Sender};
use agy_protocol::diag::{Diagnostic, Diagnostics, SourceFile};
use serde_json::{Map, Value};

/// Who sent a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The client (the adapter under test) to the agent.
    ToAgent,
    /// The agent (`agy_acp_server`) to the client.
    ToClient,
}

/// One JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: method, id, params.
    Request {
        /// The method.
        method: String,
        /// The id.
        id: Value,
        /// The params (`null` when absent).
        params: Value,
    },
    /// A notification: method, params.
    Notification {
        /// The method.
        method: String,
        /// The params (`null` when absent).
        params: Value,
    },
    /// A response to the request `method`.
    Response {
        /// The method of the request it answers.
        method: String,
        /// The result.
        result: Value,
    },
    /// An error response to the request `method`.
    Error {
        /// The method of the request it answers.
        method: String,
        /// The error code.
        code: i64,
        /// The error message.
        message: String,
    },
}

/// One message of the transcript and where it was pasted.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Line of the paste (1-based).
    pub line: usize,
    /// Who sent it.
    pub dir: Direction,
    /// The message.
    pub message: Message,
}

/// Labels people put before a message, and the direction each means.
const LABELS: [(&str, Direction); 16] = [
    ("client -> agent:", Direction::ToAgent),
    ("agent -> client:", Direction::ToClient),
    ("client→agent:", Direction::ToAgent),
    ("agent→client:", Direction::ToClient),
    ("client:", Direction::ToAgent),
    ("agent:", Direction::ToClient),
    ("server:", Direction::ToClient),
    ("stdin:", Direction::ToAgent),
    ("stdout:", Direction::ToClient),
    ("-->", Direction::ToAgent),
    ("<--", Direction::ToClient),
    ("->", Direction::ToAgent),
    ("<-", Direction::ToClient),
    ("→", Direction::ToAgent),
    ("←", Direction::ToClient),
    (">", Direction::ToAgent),
];

/// The label of a line and where its body starts (`<` is listed apart: it also starts
/// `<--`).
fn label(line: &str) -> (Option<Direction>, usize) {
    let trimmed = line.trim_start();
    let at = line.len() - trimmed.len();
    let lower = trimmed.to_ascii_lowercase();
    let found = LABELS
        .iter()
        .chain(&[("<", Direction::ToClient)])
        .find(|(word, _)| lower.starts_with(word));
    match found {
        Some((word, dir)) => {
            let rest = &trimmed[word.len()..];
            let skipped = rest.len() - rest.trim_start().len();
            (Some(*dir), at + word.len() + skipped)
        }
        None => (None, at),
    }
}

/// True when the paste holds an ACP JSON-RPC message (a line whose JSON names
/// `jsonrpc`).
pub fn is_acp_transcript(text: &str) -> bool {
    text.lines().any(|l| {
        let (_, at) = label(l);
        let body = &l[at..];
        body.starts_with('{') && body.contains("\"jsonrpc\"")
    })
}

/// A request not answered yet: who sent it, its id and method.
struct Open {
    dir: Direction,
    id: Value,
    method: String,
}

/// Reads a transcript; `Err` lists every problem found.
pub fn read_transcript(src: &SourceFile) -> Result<Vec<Line>, Diagnostics> {
    let text = src.text();
    let mut diags = Diagnostics::new();
    let mut out = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
        let line = &text[pos..end];
        let (dir, at) = label(line);
        if line[at..].starts_with('{') {
            match message_at(src, pos + at, dir, &mut open) {
                Ok(m) => out.push(m),
                Err(d) => diags.push(d),
            }
        }
        pos = end + 1;
    }
    if out.is_empty() && diags.is_empty() {
        diags.push(
            Diagnostic::at_line(src.path(), 1, 1, "the transcript holds no JSON-RPC message")
                .with_hint("paste the lines the client and `agy_acp_server` exchanged, one JSON message per line"),
        );
    }
    diags.into_result(out)
}

/// The message whose JSON starts at `at`.
fn message_at(
    src: &SourceFile,
    at: usize,
    label: Option<Direction>,
    open: &mut Vec<Open>,
) -> Result<Line, Diagnostic> {
    let text = src.text();
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let body = text[at..end].trim_end();
    let value: Value = serde_json::from_str(body).map_err(|e| {
        Diagnostic::at(
            src,
            (at + error_offset(body, &e)).min(text.len()),
            format!("malformed JSON: {}", without_location(&e)),
        )
        .with_hint("paste each JSON-RPC message on one line, unchanged")
    })?;
    let line = src.location(at).0;
    let Value::Object(obj) = value else {
        return Err(
            Diagnostic::at(src, at, "a JSON value that is not an object").with_hint(
                "a JSON-RPC message is an object with `jsonrpc`, and `method` or `result`/`error`",
            ),
        );
    };
    let (dir, message) = classify(obj, label, open)
        .map_err(|(message, hint)| Diagnostic::at(src, at, message).with_hint(hint))?;
    Ok(Line { line, dir, message })
}

type Problem = (String, String);

fn classify(
    mut obj: Map<String, Value>,
    label: Option<Direction>,
    open: &mut Vec<Open>,
) -> Result<(Direction, Message), Problem> {
    let id = obj.remove("id");
    if let Some(method) = obj
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_string)
    {
        let dir = match label {
            Some(d) => d,
            None => match method_sender(&method) {
                Some(Sender::Client) => Direction::ToAgent,
                Some(Sender::Agent) => Direction::ToClient,
                None => {
                    return Err((
                        format!("`{method}` is not an ACP v1 method: who sent it is unknown"),
                        "label the line `client:` or `agent:` (or `>` / `<`)".into(),
                    ))
                }
            },
        };
        let params = obj.remove("params").unwrap_or(Value::Null);
        return Ok(match id {
            Some(id) if !id.is_null() => {
                open.push(Open {
                    dir,
                    id: id.clone(),
                    method: method.clone(),
                });
                (dir, Message::Request { method, id, params })
            }
            _ => (dir, Message::Notification { method, params }),
        });
    }
    let answer = obj
        .remove("result")
        .map(Ok)
        .or_else(|| obj.remove("error").map(Err));
    let (Some(answer), Some(id)) = (answer, id) else {
        return Err((
            "a JSON object that is no JSON-RPC message".into(),
            "a message has `method` (request, notification) or `id` with `result`/`error` (response)".into(),
        ));
    };
    // A response travels the other way from its request.
    let found = open
        .iter()
        .rposition(|o| o.id == id && label.is_none_or(|l| l != o.dir))
        .ok_or_else(|| {
            (
                format!("a response to request id {id}, which the transcript does not show"),
                "paste the request too, or drop the response".to_string(),
            )
        })?;
    let request = open.remove(found);
    let dir = match request.dir {
        Direction::ToAgent => Direction::ToClient,
        Direction::ToClient => Direction::ToAgent,
    };
    let message = match answer {
        Ok(result) => Message::Response {
            method: request.method,
            result,
        },
        Err(e) => Message::Error {
            method: request.method,
            code: e.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: e
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        },
    };
    Ok((dir, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<Line>, Diagnostics> {
        read_transcript(&SourceFile::new("t.txt", text))
    }

    #[test]
    fn labelled_and_unlabelled_lines_get_their_direction() {
        let lines = read(concat!(
            "the client sent:\n",
            "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/prompt\",\"params\":{}}\n",
            "agent: {\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"stopReason\":\"end_turn\"}}\n",
            "<-- {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"session/request_permission\"}\n",
            "--> {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n",
        ))
        .expect("reads");
        let dirs: Vec<Direction> = lines.iter().map(|l| l.dir).collect();
        use Direction::*;
        assert_eq!(dirs, [ToAgent, ToClient, ToClient, ToClient, ToAgent]);
        assert!(
            matches!(&lines[2].message, Message::Response { method, .. } if method == "session/prompt")
        );
        assert!(
            matches!(&lines[4].message, Message::Response { method, .. } if method == "session/request_permission")
        );
        assert_eq!(lines[1].line, 3);
    }

    #[test]
    fn every_malformed_line_is_located_with_a_hint() {
        let err = read(concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/new\"\n",
            "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n",
            "  {\"jsonrpc\":\"2.0\",\"method\":\"x/y\"}\n",
            "{\"jsonrpc\":\"2.0\"}\n",
        ))
        .expect_err("rejects");
        let at: Vec<(usize, usize)> = err.iter().map(|d| (d.line, d.column)).collect();
        // Line 1 is cut after its 46th character, where the JSON ends too soon.
        assert_eq!(at, [(1, 46), (2, 1), (3, 3), (4, 1)], "{err}");
        assert!(err.iter().all(|d| d.hint.is_some()));
    }

    #[test]
    fn acp_is_told_from_agy_output() {
        assert!(is_acp_transcript(
            "x\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
        ));
        assert!(!is_acp_transcript(
            "{\"status\":\"SUCCESS\",\"response\":\"\"}\n"
        ));
    }
}
