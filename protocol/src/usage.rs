//! Token usage as agy reports it: five integer counters, in a fixed order.

use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The `usage` object of an envelope, a `result` event or an `agent_response` step.
///
/// Exactly five keys, in this order; `total_tokens = input_tokens + output_tokens`,
/// thinking is part of output, cache reads are in neither (docs/agy-reference.md §2.1, docs/spike-records.md S8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Prompt tokens sent to the model.
    pub input_tokens: u64,
    /// Tokens the model produced, thinking included.
    pub output_tokens: u64,
    /// The thinking part of `output_tokens`.
    pub thinking_tokens: u64,
    /// Tokens served from the prompt cache (not counted in input or total).
    pub cache_read_tokens: u64,
    /// `input_tokens + output_tokens`.
    pub total_tokens: u64,
    /// agy 1.0.16 printed no `cache_read_tokens` key: true when a parsed usage lacked it,
    /// so it renders back without it.
    pub cache_read_absent: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UsageWire {
    input_tokens: u64,
    output_tokens: u64,
    thinking_tokens: u64,
    #[serde(default)]
    cache_read_tokens: Option<u64>,
    total_tokens: u64,
}

impl<'de> Deserialize<'de> for Usage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = UsageWire::deserialize(d)?;
        Ok(Usage {
            input_tokens: w.input_tokens,
            output_tokens: w.output_tokens,
            thinking_tokens: w.thinking_tokens,
            cache_read_tokens: w.cache_read_tokens.unwrap_or(0),
            total_tokens: w.total_tokens,
            cache_read_absent: w.cache_read_tokens.is_none(),
        })
    }
}

impl Serialize for Usage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Usage", 5)?;
        st.serialize_field("input_tokens", &self.input_tokens)?;
        st.serialize_field("output_tokens", &self.output_tokens)?;
        st.serialize_field("thinking_tokens", &self.thinking_tokens)?;
        if !self.cache_read_absent {
            st.serialize_field("cache_read_tokens", &self.cache_read_tokens)?;
        }
        st.serialize_field("total_tokens", &self.total_tokens)?;
        st.end()
    }
}

impl Usage {
    /// All five counters zero: pre-turn errors, slash commands, print timeouts.
    pub const ZERO: Usage = Usage {
        input_tokens: 0,
        output_tokens: 0,
        thinking_tokens: 0,
        cache_read_tokens: 0,
        total_tokens: 0,
        cache_read_absent: false,
    };

    /// Builds a usage whose total follows agy's rule (`input + output`).
    pub fn new(input: u64, output: u64, thinking: u64, cache_read: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            thinking_tokens: thinking,
            cache_read_tokens: cache_read,
            total_tokens: input.saturating_add(output),
            cache_read_absent: false,
        }
    }

    /// True when every counter is zero.
    pub fn is_zero(&self) -> bool {
        *self == Usage::ZERO
    }

    /// Adds another usage counter by counter (cumulative `result.usage`, §3.4).
    pub fn add(&self, other: &Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
            thinking_tokens: self.thinking_tokens.saturating_add(other.thinking_tokens),
            cache_read_tokens: self
                .cache_read_tokens
                .saturating_add(other.cache_read_tokens),
            total_tokens: self.total_tokens.saturating_add(other.total_tokens),
            cache_read_absent: self.cache_read_absent && other.cache_read_absent,
        }
    }

    /// True when `total_tokens == input_tokens + output_tokens`.
    pub fn total_is_consistent(&self) -> bool {
        self.input_tokens.checked_add(self.output_tokens) == Some(self.total_tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agy_1_0_16_usage_without_cache_reads_renders_back_without_them() {
        let text =
            r#"{"input_tokens":16791,"output_tokens":4,"thinking_tokens":0,"total_tokens":16795}"#;
        let u: Usage = serde_json::from_str(text).expect("parses");
        assert!(u.cache_read_absent);
        assert_eq!(serde_json::to_string(&u).expect("renders"), text);
        let full = r#"{"input_tokens":1,"output_tokens":2,"thinking_tokens":0,"cache_read_tokens":5,"total_tokens":3}"#;
        let u: Usage = serde_json::from_str(full).expect("parses");
        assert_eq!(serde_json::to_string(&u).expect("renders"), full);
        assert!(serde_json::from_str::<Usage>(r#"{"input_tokens":1}"#).is_err());
    }

    #[test]
    fn cumulative_usage_matches_the_resume_trace() {
        // clowder-ai resume-turn: 21234 + 5036 = 26270 input tokens after turn 2.
        let first = Usage::new(21234, 455, 393, 12206);
        let second = Usage::new(5036, 728, 719, 12199);
        let sum = first.add(&second);
        assert_eq!(sum.input_tokens, 26270);
        assert_eq!(sum.total_tokens, 27453);
        assert!(sum.total_is_consistent());
    }
}
