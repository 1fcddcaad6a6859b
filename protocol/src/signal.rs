//! The signals an agy process can be seen to receive: the ones fake-agy handles and
//! journals (`fake-agy/src/io/signals.rs`) and the live wrapper forwards and journals
//! (`harness/src/live/wrapper.rs`). SIGKILL is not among them: a process cannot observe
//! it, so an expectation naming it could never hold (`killed` judges it instead).

use serde::{Deserialize, Serialize};

/// A signal as a journal names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SignalName {
    /// `SIGTERM`.
    #[serde(rename = "SIGTERM")]
    Term,
    /// `SIGINT`.
    #[serde(rename = "SIGINT")]
    Int,
    /// `SIGHUP`.
    #[serde(rename = "SIGHUP")]
    Hup,
}

impl SignalName {
    /// Every signal that can be observed, in declaration order.
    pub const ALL: [SignalName; 3] = [SignalName::Term, SignalName::Int, SignalName::Hup];

    /// The name as journalled (`SIGTERM`).
    pub fn as_str(self) -> &'static str {
        match self {
            SignalName::Term => "SIGTERM",
            SignalName::Int => "SIGINT",
            SignalName::Hup => "SIGHUP",
        }
    }
}

crate::spelling::display_as_str!(SignalName);

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::value::{Error, StrDeserializer};

    #[test]
    fn the_serde_spelling_is_the_journal_spelling() {
        for s in SignalName::ALL {
            assert_eq!(
                SignalName::deserialize(StrDeserializer::<Error>::new(s.as_str())),
                Ok(s)
            );
            assert_eq!(
                serde_json::to_value(s).ok(),
                Some(serde_json::Value::String(s.as_str().into()))
            );
        }
        // The names nix gives the signals fake-agy journals.
        for (s, n) in SignalName::ALL.iter().zip([
            nix::sys::signal::Signal::SIGTERM,
            nix::sys::signal::Signal::SIGINT,
            nix::sys::signal::Signal::SIGHUP,
        ]) {
            assert_eq!(s.as_str(), n.as_str());
        }
        assert!(SignalName::deserialize(StrDeserializer::<Error>::new("SIGKILL")).is_err());
    }
}
