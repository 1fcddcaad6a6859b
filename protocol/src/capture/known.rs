//! A metadata value that may be the word `unknown`.

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A value the publisher gave, or `"unknown"` when the record is silent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Known<T> {
    /// The recorded value.
    Known(T),
    /// The record does not say.
    Unknown,
}

impl<T> Known<T> {
    /// The value, when known.
    pub fn get(&self) -> Option<&T> {
        match self {
            Known::Known(v) => Some(v),
            Known::Unknown => None,
        }
    }
}

impl<T: Serialize> Serialize for Known<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Known::Known(v) => v.serialize(s),
            Known::Unknown => s.serialize_str("unknown"),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Known<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = toml::Value::deserialize(d)?;
        if value.as_str() == Some("unknown") {
            return Ok(Known::Unknown);
        }
        T::deserialize(value)
            .map(Known::Known)
            .map_err(|e| D::Error::custom(format!("{} (or the word \"unknown\")", e.message())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct T {
        exit: Known<i32>,
    }

    #[test]
    fn the_word_unknown_or_a_value_is_accepted() {
        let t: T = toml::from_str("exit = \"unknown\"").expect("parses");
        assert_eq!(t.exit, Known::Unknown);
        let t: T = toml::from_str("exit = 3").expect("parses");
        assert_eq!(t.exit, Known::Known(3));
        let err = toml::from_str::<T>("exit = \"three\"")
            .err()
            .expect("rejects");
        assert!(err.to_string().contains("unknown"), "{err}");
    }
}
