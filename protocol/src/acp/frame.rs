//! JSON-RPC 2.0 frames as ACP sends them: one JSON object per line (docs/agy-acp-reference.md §1.1).
//!
//! [`parse_frame`] sorts a line into request, notification or response without
//! looking at the method's params (those are typed per method by the reader);
//! [`render_frame`] writes a frame back as one line without its newline.

use agent_client_protocol_schema::v1::{Error as RpcError, RequestId};
use serde_json::{Map, Value};

/// One JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// A call expecting a response.
    Request {
        /// Correlation id.
        id: RequestId,
        /// Method name.
        method: String,
        /// Params (`null` when absent).
        params: Value,
    },
    /// A call without an id.
    Notification {
        /// Method name.
        method: String,
        /// Params (`null` when absent).
        params: Value,
    },
    /// The answer to a request.
    Response {
        /// The id of the request answered.
        id: RequestId,
        /// The result, or the error object.
        outcome: Result<Value, RpcError>,
    },
}

impl Frame {
    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Frame::Request { method, .. } | Frame::Notification { method, .. } => Some(method),
            Frame::Response { .. } => None,
        }
    }

    /// The id of a request or response.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Frame::Request { id, .. } | Frame::Response { id, .. } => Some(id),
            Frame::Notification { .. } => None,
        }
    }

    /// The frame as a JSON value.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("jsonrpc".into(), Value::String("2.0".into()));
        match self {
            Frame::Request { id, method, params } => {
                m.insert("id".into(), id_value(id));
                m.insert("method".into(), Value::String(method.clone()));
                if !params.is_null() {
                    m.insert("params".into(), params.clone());
                }
            }
            Frame::Notification { method, params } => {
                m.insert("method".into(), Value::String(method.clone()));
                if !params.is_null() {
                    m.insert("params".into(), params.clone());
                }
            }
            Frame::Response { id, outcome } => {
                m.insert("id".into(), id_value(id));
                match outcome {
                    Ok(result) => {
                        m.insert("result".into(), result.clone());
                    }
                    Err(e) => {
                        m.insert(
                            "error".into(),
                            serde_json::to_value(e).unwrap_or(Value::Null),
                        );
                    }
                }
            }
        }
        Value::Object(m)
    }
}

fn id_value(id: &RequestId) -> Value {
    serde_json::to_value(id).unwrap_or(Value::Null)
}

/// Why a line is not a JSON-RPC frame. The JSON-RPC code to answer with is
/// [`FrameError::code`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// Not JSON at all (-32700).
    #[error("line is not JSON: {message} at column {column}")]
    NotJson {
        /// 1-based column where parsing failed.
        column: usize,
        /// What serde said.
        message: String,
    },
    /// JSON, but not a JSON-RPC 2.0 message (-32600).
    #[error("not a JSON-RPC 2.0 message: {0}")]
    Invalid(String),
    /// A line the bounded reader did not take as text (not UTF-8, or over the cap),
    /// with its located report (-32700, as for any line that cannot be parsed).
    #[error("{0}")]
    Unreadable(String),
}

impl FrameError {
    /// The JSON-RPC error code for this problem.
    pub fn code(&self) -> i32 {
        match self {
            FrameError::NotJson { .. } | FrameError::Unreadable(_) => -32700,
            FrameError::Invalid(_) => -32600,
        }
    }
}

/// Parses one line (with or without its newline).
pub fn parse_frame(line: &str) -> Result<Frame, FrameError> {
    let value: Value = serde_json::from_str(line.trim_end_matches(['\r', '\n'])).map_err(|e| {
        FrameError::NotJson {
            column: e.column(),
            message: e.to_string(),
        }
    })?;
    let Value::Object(mut m) = value else {
        return Err(FrameError::Invalid(
            "a message must be a JSON object".into(),
        ));
    };
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(FrameError::Invalid("`jsonrpc` must be \"2.0\"".into()));
    }
    let id =
        match m.remove("id") {
            None => None,
            Some(v) => Some(serde_json::from_value::<RequestId>(v).map_err(|_| {
                FrameError::Invalid("`id` must be a string, integer or null".into())
            })?),
        };
    let params = m.remove("params").unwrap_or(Value::Null);
    if !matches!(params, Value::Null | Value::Object(_) | Value::Array(_)) {
        return Err(FrameError::Invalid(
            "`params` must be an object or array".into(),
        ));
    }
    match (m.remove("method"), id) {
        (Some(Value::String(method)), Some(id)) => Ok(Frame::Request { id, method, params }),
        (Some(Value::String(method)), None) => Ok(Frame::Notification { method, params }),
        (Some(_), _) => Err(FrameError::Invalid("`method` must be a string".into())),
        (None, None) => Err(FrameError::Invalid(
            "a message needs `method` (call) or `id` (response)".into(),
        )),
        (None, Some(id)) => match (m.remove("result"), m.remove("error")) {
            (Some(result), None) => Ok(Frame::Response {
                id,
                outcome: Ok(result),
            }),
            (None, Some(error)) => serde_json::from_value::<RpcError>(error)
                .map(|e| Frame::Response {
                    id,
                    outcome: Err(e),
                })
                .map_err(|e| FrameError::Invalid(format!("`error` is not an error object: {e}"))),
            (Some(_), Some(_)) => Err(FrameError::Invalid(
                "a response has `result` or `error`, not both".into(),
            )),
            (None, None) => Err(FrameError::Invalid(
                "a response needs `result` or `error`".into(),
            )),
        },
    }
}

/// Renders a frame as one line, without the newline.
pub fn render_frame(frame: &Frame) -> String {
    frame.to_value().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn request_notification_and_response_are_told_apart() {
        let req =
            parse_frame(r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/"}}"#)
                .expect("request");
        assert_eq!(req.method(), Some("session/new"));
        assert_eq!(req.id(), Some(&RequestId::Number(1)));
        let note = parse_frame(
            r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#,
        )
        .expect("notification");
        assert!(matches!(note, Frame::Notification { .. }));
        let resp = parse_frame(
            r#"{"jsonrpc":"2.0","id":"a","result":{"outcome":{"outcome":"cancelled"}}}"#,
        )
        .expect("response");
        assert!(matches!(resp, Frame::Response { outcome: Ok(_), .. }));
        let err = parse_frame(r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Authentication required"}}"#)
            .expect("error response");
        let Frame::Response {
            outcome: Err(e), ..
        } = err
        else {
            panic!("expected an error response");
        };
        assert_eq!(i32::from(e.code), -32000);
    }

    #[test]
    fn bad_lines_get_the_jsonrpc_code_to_answer_with() {
        assert_eq!(parse_frame("{oops").map_err(|e| e.code()), Err(-32700));
        assert_eq!(parse_frame("[1,2]").map_err(|e| e.code()), Err(-32600));
        assert_eq!(
            parse_frame(r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#).map_err(|e| e.code()),
            Err(-32600)
        );
        assert_eq!(
            parse_frame(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#).map_err(|e| e.code()),
            Err(-32600)
        );
    }

    fn arb_id() -> impl Strategy<Value = RequestId> {
        prop_oneof![
            Just(RequestId::Null),
            any::<i64>().prop_map(RequestId::Number),
            "\\PC{0,8}".prop_map(RequestId::Str),
        ]
    }

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            "\\PC{0,10}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("[a-zA-Z_]{1,6}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn arb_params() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            proptest::collection::btree_map("[a-zA-Z_]{1,6}", arb_json(), 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    }

    fn arb_frame() -> impl Strategy<Value = Frame> {
        prop_oneof![
            (arb_id(), "[a-z/_]{1,20}", arb_params())
                .prop_map(|(id, method, params)| Frame::Request { id, method, params }),
            ("[a-z/_]{1,20}", arb_params())
                .prop_map(|(method, params)| Frame::Notification { method, params }),
            (arb_id(), arb_json()).prop_map(|(id, result)| Frame::Response {
                id,
                outcome: Ok(result)
            }),
            (arb_id(), any::<i32>(), "\\PC{0,12}").prop_map(|(id, code, message)| {
                Frame::Response {
                    id,
                    outcome: Err(RpcError::new(code, message)),
                }
            }),
        ]
    }

    proptest! {
        #[test]
        fn arbitrary_lines_never_panic(s in "\\PC*") {
            let _ = parse_frame(&s);
        }

        #[test]
        fn json_shaped_lines_never_panic(v in arb_json()) {
            let _ = parse_frame(&v.to_string());
        }

        #[test]
        fn rendered_frames_parse_back_equal(frame in arb_frame()) {
            let line = render_frame(&frame);
            prop_assert!(!line.contains('\n'), "one line: {}", line);
            let back = parse_frame(&line).map_err(|e| TestCaseError::fail(format!("{e}: {line}")))?;
            prop_assert_eq!(back, frame);
        }
    }
}
