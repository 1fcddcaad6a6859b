//! An ACP method name as a scenario writes it: a method ACP v1 defines (read from the
//! method tables of `agent-client-protocol-schema`, plus the legacy `session/set_model`
//! Antigravity still accepts, docs/agy-acp-reference.md §1.10), or an extension method
//! (a name starting with `_`, ACP's rule for methods outside the spec), taken as
//! itself. Any other name is refused where it is read, so a misspelt method fails at
//! load instead of never matching a journal entry.

use super::sender::{defined_methods, method_sender, Sender};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// A method of ACP v1 or an extension method.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AcpMethod {
    /// A method the protocol defines (either direction), or the legacy
    /// `session/set_model`.
    Defined(&'static str),
    /// An extension method: `_` followed by a name.
    Extension(String),
}

impl AcpMethod {
    /// Reads `name`; `None` for a name ACP does not define that is no extension method.
    pub fn parse(name: &str) -> Option<AcpMethod> {
        if let Some(m) = defined_methods().iter().find(|m| **m == name) {
            return Some(AcpMethod::Defined(m));
        }
        (name.len() > 1 && name.starts_with('_')).then(|| AcpMethod::Extension(name.to_string()))
    }

    /// Every method name ACP v1 defines (either direction) and the legacy ones, for
    /// messages and generators.
    pub fn defined() -> &'static [&'static str] {
        defined_methods()
    }

    /// The method's name on the wire.
    pub fn as_str(&self) -> &str {
        match self {
            AcpMethod::Defined(m) => m,
            AcpMethod::Extension(m) => m,
        }
    }

    /// Who calls it; `None` for an extension method (either side may).
    pub fn sender(&self) -> Option<Sender> {
        match self {
            AcpMethod::Defined(m) => method_sender(m),
            AcpMethod::Extension(_) => None,
        }
    }

    /// The message for a name that is not a method: the names accepted, in backticks
    /// (so the "did you mean" hint of `diag::suggest` reads them).
    fn unknown(name: &str) -> String {
        let list = defined_methods()
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "unknown ACP method `{name}`, expected one of {list} (or an extension method: \
             a name starting with an underscore)"
        )
    }
}

crate::spelling::display_as_str!(AcpMethod, ClientMethod);
crate::spelling::compare_as_str!(AcpMethod, ClientMethod);

impl Serialize for AcpMethod {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for AcpMethod {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = AcpMethod;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an ACP method name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<AcpMethod, E> {
                AcpMethod::parse(v).ok_or_else(|| E::custom(AcpMethod::unknown(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// A method the client calls on the agent (`initialize`, `session/*` calls), or an
/// extension method: what `[expect.acp]` counts. A method only the agent sends
/// (`session/update`, `session/request_permission`) is refused, since the client never
/// calls it and a check on it could never fail.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct ClientMethod(AcpMethod);

impl ClientMethod {
    /// A method of the schema's `AGENT_METHOD_NAMES` (the methods a client calls), such
    /// as `AGENT_METHOD_NAMES.session_new`, for code that names one.
    pub const fn from_schema(name: &'static str) -> ClientMethod {
        ClientMethod(AcpMethod::Defined(name))
    }

    /// Reads `name`; `None` for anything but a client → agent method or an extension.
    pub fn parse(name: &str) -> Option<ClientMethod> {
        AcpMethod::parse(name)
            .filter(|m| m.sender() != Some(Sender::Agent))
            .map(ClientMethod)
    }

    /// The method's name on the wire.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The method.
    pub fn method(&self) -> &AcpMethod {
        &self.0
    }
}

impl<'de> Deserialize<'de> for ClientMethod {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let method = AcpMethod::deserialize(d)?;
        if method.sender() == Some(Sender::Agent) {
            let list = defined_methods()
                .iter()
                .filter(|m| method_sender(m) == Some(Sender::Client))
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(de::Error::custom(format!(
                "`{method}` is sent by the agent, never called by the client, expected one of \
                 {list} (or an extension method: a name starting with an underscore)"
            )));
        }
        Ok(ClientMethod(method))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::value::{Error, StrDeserializer};

    fn read<T: for<'de> Deserialize<'de>>(name: &str) -> Result<T, String> {
        T::deserialize(StrDeserializer::<Error>::new(name)).map_err(|e| e.to_string())
    }

    #[test]
    fn defined_legacy_and_extension_methods_are_read_as_themselves() {
        for name in [
            "session/prompt",
            "session/request_permission",
            "session/set_model",
        ] {
            assert_eq!(
                read::<AcpMethod>(name).map(|m| m.to_string()),
                Ok(name.into())
            );
        }
        assert_eq!(
            read::<AcpMethod>("_zed/status"),
            Ok(AcpMethod::Extension("_zed/status".into()))
        );
    }

    #[test]
    fn a_misspelt_method_is_refused_with_the_names_accepted() {
        for name in ["session/Prompt", "session/promt", "_", "", "prompt"] {
            let e = read::<AcpMethod>(name).unwrap_err();
            assert!(e.contains(&format!("unknown ACP method `{name}`")), "{e}");
            assert!(
                e.contains("`session/prompt`") && e.contains("`initialize`"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_client_method_is_one_the_client_calls() {
        assert!(read::<ClientMethod>("session/new").is_ok());
        assert!(read::<ClientMethod>("_x").is_ok());
        let e = read::<ClientMethod>("session/update").unwrap_err();
        assert!(e.contains("sent by the agent"), "{e}");
        assert!(
            e.contains("`session/load`") && !e.contains("`session/update`,"),
            "{e}"
        );
    }
}
