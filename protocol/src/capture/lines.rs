//! Reading every stdout line of a capture with the protocol types and writing it back:
//! the types are lossless when the bytes come back unchanged.

use crate::envelope::Envelope;
use crate::stream::StreamEvent;

/// What became of one stdout line.
#[derive(Debug, Clone, PartialEq)]
pub enum LineCheck {
    /// Parsed and re-rendered byte for byte.
    RoundTrips,
    /// Not a JSON object (model text, a table, a truncated line): no type applies.
    Text,
    /// Parsed, but rendered differently.
    Differs {
        /// What the types rendered.
        rendered: String,
    },
    /// A JSON object the types rejected.
    Rejected {
        /// Why.
        error: String,
    },
}

/// Parses `line` (without its newline) as a stream-json event when it has an `event`
/// key, else as an envelope, and renders it back with Go's encoding.
pub fn check_stdout_line(line: &str) -> LineCheck {
    let Ok(serde_json::Value::Object(obj)) = serde_json::from_str::<serde_json::Value>(line) else {
        return LineCheck::Text;
    };
    let rendered = if obj.contains_key("event") {
        StreamEvent::parse(line).map(|e| e.to_line())
    } else {
        Envelope::parse(line).map(|e| e.to_line())
    };
    match rendered {
        Ok(r) if r.strip_suffix('\n') == Some(line) => LineCheck::RoundTrips,
        Ok(rendered) => LineCheck::Differs { rendered },
        Err(e) => LineCheck::Rejected {
            error: e.to_string(),
        },
    }
}
