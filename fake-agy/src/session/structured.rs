//! `--json-schema`: the schema (inline JSON or a file path, agy 1.2.13 `--help`), the
//! minimal answer that conforms to it, and the check of an answer against it.
//!
//! agy carries the conforming answer as `structured_output` in the envelope and in the
//! stream-json `result` (docs/agy-reference.md §2.1, [D]); its position in the key order,
//! the response text and the failure texts are unverified (docs/agy-versions.md,
//! "Structured output"). Schemas are compiled and checked with the `jsonschema` crate.

use serde_json::{Map, Value};
use std::io::Read;
use std::path::Path;

/// The largest schema file read (a schema is a few kilobytes; a bigger file is a
/// mistake, not a schema).
const MAX_SCHEMA_BYTES: u64 = 1 << 20;

/// A compiled `--json-schema`.
pub struct Schema {
    document: Value,
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schema")
            .field("document", &self.document)
            .finish()
    }
}

impl Schema {
    /// Reads `arg` as inline JSON, else as a path (relative to `cwd`), and compiles it.
    /// `Err` is the text agy's pre-turn error carries (unverified wording).
    pub fn load(arg: &str, cwd: &Path) -> Result<Schema, String> {
        let document = match serde_json::from_str::<Value>(arg) {
            Ok(v) => v,
            Err(inline) => {
                let trimmed = arg.trim_start();
                if trimmed.starts_with('{') || trimmed.starts_with('[') {
                    return Err(format!("invalid --json-schema: {inline}"));
                }
                read_schema_file(&cwd.join(arg))?
            }
        };
        let validator = jsonschema::validator_for(&document)
            .map_err(|e| format!("invalid --json-schema: {e}"))?;
        Ok(Schema {
            document,
            validator,
        })
    }

    /// The schema document.
    pub fn document(&self) -> &Value {
        &self.document
    }

    /// The first reason `value` does not conform, if any.
    pub fn violation(&self, value: &Value) -> Option<String> {
        self.validator.validate(value).err().map(|e| e.to_string())
    }

    /// The smallest value that conforms, built from the schema with `answer` (the
    /// default answer, trimmed) in every required string; `Err` when none can be built
    /// (the answer cannot conform).
    pub fn minimal_answer(&self, answer: &str) -> Result<Value, String> {
        let value = minimal(&self.document, &self.document, answer.trim(), 0);
        match self.violation(&value) {
            None => Ok(value),
            Some(why) => Err(format!(
                "the final answer does not conform to --json-schema: {why}"
            )),
        }
    }
}

fn read_schema_file(path: &Path) -> Result<Value, String> {
    let shown = path.display();
    let file = std::fs::File::open(path)
        .map_err(|e| format!("invalid --json-schema: cannot read `{shown}`: {e}"))?;
    let mut text = String::new();
    file.take(MAX_SCHEMA_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("invalid --json-schema: cannot read `{shown}`: {e}"))?;
    if text.len() as u64 > MAX_SCHEMA_BYTES {
        return Err(format!(
            "invalid --json-schema: `{shown}` is larger than {MAX_SCHEMA_BYTES} bytes"
        ));
    }
    serde_json::from_str(&text).map_err(|e| format!("invalid --json-schema: `{shown}`: {e}"))
}

/// Nesting beyond which the builder stops (a recursive `$ref` would never end).
const MAX_DEPTH: usize = 32;

fn minimal(schema: &Value, root: &Value, answer: &str, depth: usize) -> Value {
    let Some(s) = schema.as_object() else {
        // `true` or `{}`: anything goes; the answer text is the natural value.
        return Value::String(answer.to_string());
    };
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(first) = s
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(target) = s
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| local_ref(root, r))
    {
        return minimal(target, root, answer, depth + 1);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = s.get(key).and_then(Value::as_array).and_then(|a| a.first()) {
            return minimal(first, root, answer, depth + 1);
        }
    }
    match first_type(s) {
        Some("object") => object(s, root, answer, depth),
        Some("array") => array(s, root, answer, depth),
        Some("integer") => number(s, true),
        Some("number") => number(s, false),
        Some("boolean") => Value::Bool(false),
        Some("null") => Value::Null,
        _ if s.contains_key("properties") || s.contains_key("required") => {
            object(s, root, answer, depth)
        }
        _ => string(s, answer),
    }
}

fn first_type(s: &Map<String, Value>) -> Option<&str> {
    match s.get("type")? {
        Value::String(t) => Some(t),
        Value::Array(ts) => ts.iter().find_map(Value::as_str),
        _ => None,
    }
}

fn local_ref<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    root.pointer(r.strip_prefix('#')?)
}

fn object(s: &Map<String, Value>, root: &Value, answer: &str, depth: usize) -> Value {
    let props = s.get("properties").and_then(Value::as_object);
    let mut out = Map::new();
    for key in s
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(name) = key.as_str() else { continue };
        let sub = props
            .and_then(|p| p.get(name))
            .unwrap_or(&Value::Bool(true));
        out.insert(name.to_string(), minimal(sub, root, answer, depth + 1));
    }
    Value::Object(out)
}

fn array(s: &Map<String, Value>, root: &Value, answer: &str, depth: usize) -> Value {
    let n = s
        .get("minItems")
        .and_then(Value::as_u64)
        .unwrap_or(0)
        .min(16);
    let items = s.get("items").unwrap_or(&Value::Bool(true));
    Value::Array(
        (0..n)
            .map(|_| minimal(items, root, answer, depth + 1))
            .collect(),
    )
}

fn number(s: &Map<String, Value>, integer: bool) -> Value {
    let low = s.get("minimum").and_then(Value::as_f64).or_else(|| {
        s.get("exclusiveMinimum")
            .and_then(Value::as_f64)
            .map(|m| m + 1.0)
    });
    let high = s.get("maximum").and_then(Value::as_f64).or_else(|| {
        s.get("exclusiveMaximum")
            .and_then(Value::as_f64)
            .map(|m| m - 1.0)
    });
    let v = match (low, high) {
        (Some(l), _) => l.ceil().min(f64::from(u32::MAX)),
        (None, Some(h)) if h < 0.0 => h.floor().max(-f64::from(u32::MAX)),
        _ => 0.0,
    };
    if integer || v.fract() == 0.0 {
        Value::from(v as i64)
    } else {
        Value::from(v)
    }
}

fn string(s: &Map<String, Value>, answer: &str) -> Value {
    let mut text = answer.to_string();
    let min = s
        .get("minLength")
        .and_then(Value::as_u64)
        .unwrap_or(0)
        .min(4096) as usize;
    while text.chars().count() < min {
        text.push('.');
    }
    if let Some(max) = s.get("maxLength").and_then(Value::as_u64) {
        text = text.chars().take(max as usize).collect();
    }
    Value::String(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> Schema {
        Schema::load(&v.to_string(), Path::new("/")).expect("compiles")
    }

    #[test]
    fn required_strings_carry_the_answer_and_optional_keys_are_left_out() {
        let s = schema(json!({
            "type": "object",
            "properties": {
                "reply": {"type": "string"},
                "count": {"type": "integer", "minimum": 2},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "note": {"type": "string"}
            },
            "required": ["reply", "count", "tags"],
            "additionalProperties": false
        }));
        let v = s.minimal_answer("PONG\n").expect("conforms");
        assert_eq!(v, json!({"reply": "PONG", "count": 2, "tags": ["PONG"]}));
        assert_eq!(s.violation(&v), None);
    }

    #[test]
    fn enums_refs_and_alternatives_are_followed() {
        let s = schema(json!({
            "$defs": {"verdict": {"enum": ["yes", "no"]}},
            "type": "object",
            "properties": {
                "verdict": {"$ref": "#/$defs/verdict"},
                "score": {"anyOf": [{"type": "number", "minimum": 0.5}, {"type": "null"}]}
            },
            "required": ["verdict", "score"]
        }));
        let v = s.minimal_answer("x").expect("conforms");
        assert_eq!(s.violation(&v), None, "{v}");
        assert_eq!(v["verdict"], "yes");
    }

    #[test]
    fn an_invalid_schema_and_an_unreachable_answer_are_errors() {
        let bad = Schema::load(r#"{"type": 12}"#, Path::new("/")).expect_err("invalid");
        assert!(bad.starts_with("invalid --json-schema"), "{bad}");
        let broken = Schema::load("{not json", Path::new("/")).expect_err("not JSON");
        assert!(broken.starts_with("invalid --json-schema"), "{broken}");
        let s = schema(json!({"type": "string", "pattern": "^[0-9]+$"}));
        let e = s.minimal_answer("PONG").expect_err("cannot conform");
        assert!(e.contains("does not conform"), "{e}");
    }

    #[test]
    fn a_missing_file_is_reported_with_its_path() {
        let e = Schema::load("no-such-schema.json", Path::new("/tmp")).expect_err("missing");
        assert!(e.contains("/tmp/no-such-schema.json"), "{e}");
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn arbitrary_schema_text_never_panics(text in "\\PC{0,40}", answer in "\\PC{0,10}") {
            if let Ok(s) = Schema::load(&text, Path::new("/nonexistent")) {
                let _ = s.minimal_answer(&answer);
            }
        }
    }
}
