//! How the client answered a `session/request_permission` of fake-agy-acp, as the
//! journal shows it and `[expect.acp] permission_outcomes` names it: `cancelled`, one
//! of the option ids fake-agy-acp offers (`allow` and `deny` for a tool call, `opt_<n>`
//! for the n-th answer of a question, `fake-agy-acp/src/updates.rs`), `unanswered`, or
//! `an error response`. The option ids are spelled here once, for the fake and the
//! harness.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// One answer to a permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionOutcome {
    /// The `cancelled` outcome.
    Cancelled,
    /// Option `allow` of a tool call chosen.
    Allow,
    /// Option `deny` of a tool call chosen.
    Deny,
    /// Option `opt_<n>` of a question chosen: its n-th answer (0-based).
    Answer(u32),
    /// No answer arrived.
    Unanswered,
    /// A JSON-RPC error answered it.
    ErrorResponse,
}

impl PermissionOutcome {
    /// The option id fake-agy-acp offers for a question's `n`-th answer.
    pub fn answer_option_id(n: usize) -> String {
        format!("opt_{n}")
    }

    /// Reads `text`; `None` for anything else.
    pub fn parse(text: &str) -> Option<PermissionOutcome> {
        Some(match text {
            "cancelled" => PermissionOutcome::Cancelled,
            "allow" => PermissionOutcome::Allow,
            "deny" => PermissionOutcome::Deny,
            "unanswered" => PermissionOutcome::Unanswered,
            "an error response" => PermissionOutcome::ErrorResponse,
            other => {
                let n = other.strip_prefix("opt_")?;
                if n.starts_with('+') || (n.len() > 1 && n.starts_with('0')) {
                    return None;
                }
                PermissionOutcome::Answer(n.parse().ok()?)
            }
        })
    }
}

impl fmt::Display for PermissionOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PermissionOutcome::Cancelled => f.write_str("cancelled"),
            PermissionOutcome::Allow => f.write_str("allow"),
            PermissionOutcome::Deny => f.write_str("deny"),
            PermissionOutcome::Answer(n) => write!(f, "opt_{n}"),
            PermissionOutcome::Unanswered => f.write_str("unanswered"),
            PermissionOutcome::ErrorResponse => f.write_str("an error response"),
        }
    }
}

impl Serialize for PermissionOutcome {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PermissionOutcome {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = PermissionOutcome;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a permission outcome")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<PermissionOutcome, E> {
                PermissionOutcome::parse(v).ok_or_else(|| {
                    E::custom(format!(
                        "unknown permission outcome `{v}`, expected one of `cancelled`, \
                         `allow`, `deny`, `opt_0`, `opt_1`, … (a question's answers), \
                         `unanswered`, `an error response`"
                    ))
                })
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::value::{Error, StrDeserializer};

    fn read(text: &str) -> Result<PermissionOutcome, String> {
        PermissionOutcome::deserialize(StrDeserializer::<Error>::new(text))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn every_outcome_reads_back_as_it_is_written() {
        for o in [
            PermissionOutcome::Cancelled,
            PermissionOutcome::Allow,
            PermissionOutcome::Deny,
            PermissionOutcome::Answer(0),
            PermissionOutcome::Answer(12),
            PermissionOutcome::Unanswered,
            PermissionOutcome::ErrorResponse,
        ] {
            assert_eq!(read(&o.to_string()), Ok(o));
        }
        assert_eq!(PermissionOutcome::answer_option_id(3), "opt_3");
    }

    #[test]
    fn a_misspelt_outcome_is_refused_with_the_values_accepted() {
        for text in ["canceled", "Allow", "opt_", "opt_x", "opt_01", "opt_+1", ""] {
            let e = read(text).unwrap_err();
            assert!(
                e.contains(&format!("`{text}`")) && e.contains("`cancelled`"),
                "{e}"
            );
        }
    }
}
