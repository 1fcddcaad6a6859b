//! The `status` field of an envelope or `result` event.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A run status. The documented set is closed in the docs but not on the wire, so an
/// unknown value is kept verbatim in [`Status::Other`] instead of failing the parse.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Status {
    /// The turn finished (which does not mean it produced anything: S6c, S7).
    Success,
    /// The run failed; `error` says why.
    Error,
    /// The turn was cancelled (1.1.22 denials, issue #902 drops).
    Canceled,
    /// Documented, never captured.
    Interrupted,
    /// Documented, never captured.
    Invalid,
    /// Documented, never captured.
    Waiting,
    /// Documented, never captured.
    Running,
    /// Anything else agy may print.
    Other(String),
}

impl Status {
    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            Status::Success => "SUCCESS",
            Status::Error => "ERROR",
            Status::Canceled => "CANCELED",
            Status::Interrupted => "INTERRUPTED",
            Status::Invalid => "INVALID",
            Status::Waiting => "WAITING",
            Status::Running => "RUNNING",
            Status::Other(s) => s,
        }
    }

    /// Parses the wire spelling; never fails.
    pub fn parse(s: &str) -> Status {
        match s {
            "SUCCESS" => Status::Success,
            "ERROR" => Status::Error,
            "CANCELED" => Status::Canceled,
            "INTERRUPTED" => Status::Interrupted,
            "INVALID" => Status::Invalid,
            "WAITING" => Status::Waiting,
            "RUNNING" => Status::Running,
            other => Status::Other(other.to_string()),
        }
    }
}

crate::spelling::display_as_str!(Status);

impl Serialize for Status {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Status {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(Status::parse(&s))
    }
}
