//! Step payloads written as `true` or as a table of options.

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::marker::PhantomData;

/// A payload that is only ever `true` (`hang = true`, `close_stdout = true`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct True;

impl Serialize for True {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(true)
    }
}

impl<'de> Deserialize<'de> for True {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match bool::deserialize(d)? {
            true => Ok(True),
            false => Err(de::Error::custom(
                "this step only takes `true`; leave the step out instead of writing `false`",
            )),
        }
    }
}

/// A payload written as `true` (all options at their defaults) or as a table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Flag<T>(pub T);

impl<T: Serialize + Default + PartialEq> Serialize for Flag<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 == T::default() {
            s.serialize_bool(true)
        } else {
            self.0.serialize(s)
        }
    }
}

impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for Flag<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for V<T> {
            type Value = Flag<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`true` or a table of options")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                if v {
                    Ok(Flag(T::default()))
                } else {
                    Err(E::custom(
                        "this step takes `true` or a table; leave it out instead of writing `false`",
                    ))
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Flag)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}
