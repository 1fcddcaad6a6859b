//! A JSON object written as text in a script (`extra = '{"subagent_info":{…}}'`,
//! `json_schema`, a `command_result`'s `data`): TOML has no `null` and its tables do not
//! keep key order, JSON text keeps both.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// Keys and values to add to a wire object, in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JsonObject(pub Map<String, Value>);

impl Serialize for JsonObject {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::gojson::to_go_json(&self.0))
    }
}

impl<'de> Deserialize<'de> for JsonObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => Ok(JsonObject(m)),
            Ok(_) => Err(serde::de::Error::custom(
                "expected a JSON object as text, e.g. '{\"subagent_info\":{}}'",
            )),
            Err(e) => Err(serde::de::Error::custom(format!(
                "not JSON ({e}); write a JSON object as text, e.g. '{{\"subagent_info\":{{}}}}'"
            ))),
        }
    }
}
