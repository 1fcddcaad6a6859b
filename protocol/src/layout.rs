//! The key order of a parsed wire object, kept so a line agy printed renders back byte
//! for byte even where agy's order differs from the types' own (agy 1.3.1 prints
//! `structured_output` before `usage`, for example).
//!
//! Types keep keys they do not name in a flattened `extra` map, in wire order; a
//! [`Layout`] remembers where every key stood, including those of nested objects.

use serde_json::{Map, Value};

/// The wire order of an object and the objects inside it; empty when it equals the
/// types' order. Formatting, not content: every layout compares equal.
#[derive(Debug, Clone, Default)]
pub struct Layout(Option<Box<Value>>);

impl PartialEq for Layout {
    fn eq(&self, _: &Layout) -> bool {
        true
    }
}

impl Eq for Layout {}

impl Layout {
    /// The layout of `original` where it differs from `canonical` (the same content as
    /// the types render it).
    pub fn capture(original: &Value, canonical: &Value) -> Layout {
        if same_order(original, canonical) {
            Layout(None)
        } else {
            Layout(Some(Box::new(skeleton(original))))
        }
    }

    /// A layout that puts `keys` first, in this order (a script's `key_order`); the
    /// other keys follow in the types' order, and nested objects keep theirs.
    pub fn from_keys(keys: &[String]) -> Layout {
        if keys.is_empty() {
            return Layout(None);
        }
        let order: Map<String, Value> = keys.iter().map(|k| (k.clone(), Value::Null)).collect();
        Layout(Some(Box::new(Value::Object(order))))
    }

    /// The top-level keys of `original` when its order differs from `canonical`'s at
    /// the top level only: what [`Layout::from_keys`] restores. `None` when the orders
    /// agree, or when a nested object's order differs too.
    pub fn top_level_keys(original: &Value, canonical: &Value) -> Option<Vec<String>> {
        let Value::Object(m) = original else {
            return None;
        };
        let keys: Vec<String> = m.keys().cloned().collect();
        let restored = Layout::from_keys(&keys).apply(canonical.clone());
        (!same_order(original, canonical) && same_order(original, &restored)).then_some(keys)
    }

    /// True when the wire order is the types' own.
    pub fn is_canonical(&self) -> bool {
        self.0.is_none()
    }

    /// `canonical` with its keys moved to the recorded order; keys the record does not
    /// know keep their place after the known ones.
    pub fn apply(&self, canonical: Value) -> Value {
        match &self.0 {
            None => canonical,
            Some(sk) => reorder(canonical, sk),
        }
    }
}

fn same_order(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((ka, va), (kb, vb))| ka == kb && same_order(va, vb))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_order(a, b))
        }
        _ => true,
    }
}

/// Objects and arrays with every leaf replaced by `null`.
fn skeleton(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), skeleton(v))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(skeleton).collect()),
        _ => Value::Null,
    }
}

fn reorder(value: Value, sk: &Value) -> Value {
    match (value, sk) {
        (Value::Object(mut m), Value::Object(order)) => {
            let mut out = Map::with_capacity(m.len());
            for (k, child) in order {
                if let Some(v) = m.shift_remove(k) {
                    out.insert(k.clone(), reorder(v, child));
                }
            }
            out.extend(m);
            Value::Object(out)
        }
        (Value::Array(items), Value::Array(order)) => Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| match order.get(i) {
                    Some(child) => reorder(v, child),
                    None => v,
                })
                .collect(),
        ),
        (v, _) => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_recorded_order_is_restored_at_every_depth() {
        let original: Value =
            serde_json::from_str(r#"{"b":1,"a":{"y":[{"q":1,"p":2}],"x":2}}"#).expect("json");
        let canonical: Value =
            serde_json::from_str(r#"{"a":{"x":2,"y":[{"p":2,"q":1}]},"b":1}"#).expect("json");
        let layout = Layout::capture(&original, &canonical);
        assert!(!layout.is_canonical());
        assert_eq!(layout.apply(canonical).to_string(), original.to_string());
        assert!(Layout::capture(&original, &original).is_canonical());
    }

    #[test]
    fn a_top_level_key_order_is_restored_and_a_nested_one_is_not_offered() {
        let canonical = json!({"cwd": "/", "tools": [], "agent": "a"});
        let original = json!({"cwd": "/", "agent": "a", "tools": []});
        let keys = Layout::top_level_keys(&original, &canonical).expect("top level only");
        assert_eq!(keys, ["cwd", "agent", "tools"]);
        assert_eq!(
            Layout::from_keys(&keys)
                .apply(canonical.clone())
                .to_string(),
            original.to_string()
        );
        assert_eq!(Layout::top_level_keys(&canonical, &canonical), None);
        let nested = json!({"a": {"y": 1, "x": 2}, "b": 1});
        let nested_canonical = json!({"b": 1, "a": {"x": 2, "y": 1}});
        assert_eq!(Layout::top_level_keys(&nested, &nested_canonical), None);
    }

    #[test]
    fn keys_the_record_does_not_know_follow_the_known_ones() {
        let layout = Layout::capture(&json!({"b": 1, "a": 2}), &json!({"a": 2, "b": 1}));
        assert_eq!(
            layout.apply(json!({"a": 2, "c": 3, "b": 1})).to_string(),
            r#"{"b":1,"a":2,"c":3}"#
        );
    }
}
