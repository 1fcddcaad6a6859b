//! The JSON-RPC error a script answers with: a `[[reply]]` step, a failed restore, an
//! unknown session.

use serde::{Deserialize, Serialize};

/// A JSON-RPC error to answer with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorSpec {
    /// Error code.
    pub code: i32,
    /// Error message.
    pub message: String,
    /// Optional `data`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl ErrorSpec {
    /// The JSON-RPC error the agent answers with.
    pub fn rpc_error(&self) -> agent_client_protocol_schema::v1::Error {
        agent_client_protocol_schema::v1::Error::new(self.code, self.message.clone())
            .data(self.data.clone())
    }

    /// The spec that answers with `e`.
    pub fn from_rpc_error(e: &agent_client_protocol_schema::v1::Error) -> ErrorSpec {
        ErrorSpec {
            code: e.code.into(),
            message: e.message.clone(),
            data: e.data.clone(),
        }
    }
}
