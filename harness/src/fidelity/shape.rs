//! The shape of what agy (or fake-agy) printed: what fidelity compares, with model text,
//! ids, times and token counts left out.
//!
//! - the sequence of stdout lines as labels (`init`, `step_update tool DONE`,
//!   `result SUCCESS`, `envelope ERROR`, `text`);
//! - per object kind (`event`, `init`, `step_update(tool,DONE)`, `envelope`, `usage`,
//!   `tool_info`, …) the key list of each object, in its own wire order (one entry per
//!   distinct list, so one object that drops or moves a key shows);
//! - per `kind.key` the types of its values (`number`, `string`, `""`, `null`, …);
//! - vocabulary values (`status`, `state`, `permission_mode`, error `type`, …), booleans,
//!   `num_turns`, agy's own texts (`error`, `message`) as patterns, whether
//!   `conversation_id` / `response` are empty, the `init.tools` names and the number of
//!   `denied_actions`;
//! - stderr lines as patterns (numbers, ids and quoted text replaced);
//! - the exit code.

use regex::Regex;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

/// Keys whose values are agy's vocabulary rather than model text: compared verbatim.
const VOCABULARY: &[&str] = &[
    "event",
    "status",
    "state",
    "step_type",
    "permission_mode",
    "type",
    "action",
    "display_name",
];
/// String keys of which only emptiness is compared (the model's words, an id).
const EMPTINESS: &[&str] = &["conversation_id", "response"];
/// Keys whose strings are agy's own text (an error, a message): compared as patterns.
const TEXTS: &[&str] = &["error", "message"];
/// Numbers agy decides (not times or token counts): compared verbatim.
const COUNTS: &[&str] = &["num_turns"];
/// Lists whose length agy decides: the number of entries is compared.
const COUNTED_LISTS: &[&str] = &["denied_actions"];
/// Objects whose inside is model-chosen (tool arguments).
const OPAQUE: &[&str] = &["parameters"];

/// The label of one streamed text chunk of an answer.
const TEXT_CHUNK: &str = "step_update agent_response ACTIVE";

/// How stdout lines that are not JSON are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextLines {
    /// Model text: every run of text lines is one `text` label.
    Model,
    /// agy's own text (`models`, `--version`, `/usage`): each line is a pattern.
    Patterns,
}

/// The shape of stdout.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StdoutShape {
    /// One label per line (runs of model text folded into one).
    pub sequence: Vec<String>,
    /// Object kind → the distinct key lists of its objects, each in its wire order.
    pub keys: BTreeMap<String, BTreeSet<Vec<String>>>,
    /// `kind.key` → the JSON types of its values (`""` is a type of its own).
    pub types: BTreeMap<String, BTreeSet<String>>,
    /// `kind.key` → vocabulary values, booleans, counts, text patterns, `empty`/`text`,
    /// the tool names of `init.tools`, or `<n> entries` of a counted list.
    pub values: BTreeMap<String, BTreeSet<String>>,
    /// `kind.key`s whose values the publisher trimmed (corpus `elided`): only what is
    /// still listed is compared, and must be among the values observed.
    pub elided: BTreeSet<String>,
}

/// The shape of one run; `None` parts were not recorded and are not compared.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Shape {
    /// The exit code.
    pub exit: Option<i32>,
    /// stdout.
    pub stdout: Option<StdoutShape>,
    /// stderr line patterns.
    pub stderr: Option<Vec<String>>,
    /// Only the start of stderr was kept (corpus `elided = ["stderr"]`): it must be how
    /// the observed stderr starts.
    pub stderr_cut: bool,
    /// The `--log-file` lines as patterns.
    pub log: Option<Vec<String>>,
}

impl Shape {
    /// True when the capture recorded none of the parts compared.
    pub fn records_nothing(&self) -> bool {
        self.exit.is_none() && self.stdout.is_none() && self.stderr.is_none() && self.log.is_none()
    }
}

/// Reads the shape of stdout bytes.
pub fn stdout_shape(bytes: &[u8], text: TextLines) -> StdoutShape {
    let mut shape = StdoutShape::default();
    for line in String::from_utf8_lossy(bytes).lines() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(obj)) => {
                let label = line_label(&obj);
                // How many text chunks one answer arrives in is how the model's tokens
                // streamed, not agy's choice: a run of ACTIVE chunks is one label.
                if !(label == TEXT_CHUNK && shape.sequence.last() == Some(&label)) {
                    shape.sequence.push(label);
                }
                let kind = match obj.get("event") {
                    Some(Value::String(name)) => format!("event({name})"),
                    Some(_) => "event(?)".into(),
                    None => "envelope".into(),
                };
                walk_object(&mut shape, &kind, &obj);
            }
            Ok(_) => shape.sequence.push("json".into()),
            Err(_) => match text {
                TextLines::Model => {
                    if shape.sequence.last().map(String::as_str) != Some("text") {
                        shape.sequence.push("text".into());
                    }
                }
                TextLines::Patterns => shape.sequence.push(format!("text {}", pattern(line))),
            },
        }
    }
    shape
}

/// Reads stderr bytes as line patterns.
pub fn stderr_patterns(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(pattern)
        .collect()
}

/// A line with ids, numbers and quoted text replaced: `error: model "x" not found (code
/// 404)` → `error: model "…" not found (code <n>)`.
pub fn pattern(line: &str) -> String {
    static UUID: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
            .ok()
    });
    // A quoted string followed by `:` is a JSON key (`AGY_ERROR: {…}` lines): kept.
    static QUOTED: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r#""(?:[^"\\]|\\.)*"(\s*:)?"#).ok());
    static NUMBER: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"[0-9]+(?:\.[0-9]+)?").ok());
    let mut s = line.trim_end().to_string();
    if let Some(re) = UUID.as_ref() {
        s = re.replace_all(&s, "<id>").into_owned();
    }
    if let Some(re) = QUOTED.as_ref() {
        s = re
            .replace_all(&s, |c: &regex::Captures<'_>| match c.get(1) {
                Some(_) => c[0].to_string(),
                None => "\"…\"".to_string(),
            })
            .into_owned();
    }
    if let Some(re) = NUMBER.as_ref() {
        s = re.replace_all(&s, "<n>").into_owned();
    }
    s
}

fn line_label(obj: &Map<String, Value>) -> String {
    let event = obj.get("event").and_then(Value::as_str);
    match event {
        Some("step_update") => {
            let step = obj.get("step_update");
            let field = |k: &str| {
                step.and_then(|s| s.get(k))
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string()
            };
            format!("step_update {} {}", field("step_type"), field("state"))
        }
        Some("result") => format!(
            "result {}",
            obj.get("result")
                .and_then(|r| r.get("status"))
                .and_then(Value::as_str)
                .unwrap_or("?")
        ),
        Some(name) => name.to_string(),
        None => match obj.get("status").and_then(Value::as_str) {
            Some(status) => format!("envelope {status}"),
            None => "object".into(),
        },
    }
}

fn walk_object(shape: &mut StdoutShape, kind: &str, obj: &Map<String, Value>) {
    shape
        .keys
        .entry(kind.to_string())
        .or_default()
        .insert(obj.keys().cloned().collect());
    for (key, value) in obj {
        let at = format!("{kind}.{key}");
        shape
            .types
            .entry(at.clone())
            .or_default()
            .insert(type_name(value).into());
        let k = key.as_str();
        match value {
            Value::String(s) if VOCABULARY.contains(&k) => {
                shape.values.entry(at).or_default().insert(s.clone());
            }
            Value::String(s) if EMPTINESS.contains(&k) => {
                let v = if s.is_empty() { "empty" } else { "text" };
                shape.values.entry(at).or_default().insert(v.into());
            }
            Value::String(s) if TEXTS.contains(&k) => {
                shape.values.entry(at).or_default().insert(pattern(s));
            }
            Value::Bool(b) => {
                shape.values.entry(at).or_default().insert(b.to_string());
            }
            Value::Number(n) if COUNTS.contains(&k) => {
                shape.values.entry(at).or_default().insert(n.to_string());
            }
            Value::Array(items) if k == "tools" => {
                let set = shape.values.entry(at).or_default();
                set.extend(items.iter().filter_map(Value::as_str).map(String::from));
            }
            Value::Object(child) if !OPAQUE.contains(&k) => {
                let child_kind = child_kind(kind, key, child);
                walk_object(shape, &child_kind, child);
            }
            Value::Array(items) => {
                if COUNTED_LISTS.contains(&k) {
                    let n = format!("{} entries", items.len());
                    shape.values.entry(at).or_default().insert(n);
                }
                for item in items {
                    if let Value::Object(child) = item {
                        walk_object(shape, &format!("{kind}.{key}[]"), child);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The JSON type of a value as the shape names it; an empty string is `""`, since an
/// adapter that tests for emptiness reads `""` and `null` differently.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(s) if s.is_empty() => "\"\"",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The kind of a nested object: events' payloads and shared types get their own names.
fn child_kind(parent: &str, key: &str, child: &Map<String, Value>) -> String {
    match key {
        "step_update" => {
            let f = |k: &str| child.get(k).and_then(Value::as_str).unwrap_or("?");
            format!("step_update({},{})", f("step_type"), f("state"))
        }
        "result" => "envelope".into(),
        "init" | "usage" | "tool_info" => key.into(),
        _ => format!("{parent}.{key}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PONG: &str = concat!(
        r#"{"event":"init","conversation_id":"e1fea50a-738b-40bd-beb4-249481d6ab1e","init":{"model":"m","cwd":"/mnt","tools":["a","b"],"permission_mode":"request-review"}}"#,
        "\n",
        r#"{"event":"step_update","step_update":{"conversation_id":"e1","step_index":1,"state":"ACTIVE","step_type":"agent_response","text_delta":"PONG"}}"#,
        "\n",
        r#"{"event":"result","result":{"conversation_id":"e1","status":"SUCCESS","response":"PONG\n","duration_seconds":2.6,"num_turns":1,"usage":{"input_tokens":1,"output_tokens":2,"thinking_tokens":0,"cache_read_tokens":0,"total_tokens":3}}}"#,
        "\n",
    );

    #[test]
    fn a_run_of_text_chunks_is_one_label_and_other_repeats_stay() {
        let chunk = |i: u32, state: &str| {
            format!(
                r#"{{"event":"step_update","step_update":{{"conversation_id":"c","step_index":{i},"state":"{state}","step_type":"agent_response","text_delta":"x"}}}}"#
            )
        };
        let text = [
            chunk(1, "ACTIVE"),
            chunk(1, "ACTIVE"),
            chunk(1, "ACTIVE"),
            chunk(1, "DONE"),
            chunk(2, "DONE"),
        ]
        .join("\n");
        let s = stdout_shape(text.as_bytes(), TextLines::Model);
        assert_eq!(
            s.sequence,
            [
                "step_update agent_response ACTIVE",
                "step_update agent_response DONE",
                "step_update agent_response DONE"
            ]
        );
    }

    #[test]
    fn stream_lines_become_labels_kinds_and_vocabulary() {
        let s = stdout_shape(PONG.as_bytes(), TextLines::Model);
        assert_eq!(
            s.sequence,
            vec![
                "init",
                "step_update agent_response ACTIVE",
                "result SUCCESS"
            ]
        );
        let only = |kind: &str| -> Vec<String> {
            let lists = &s.keys[kind];
            assert_eq!(lists.len(), 1, "{kind}: {lists:?}");
            lists.iter().next().cloned().unwrap_or_default()
        };
        assert_eq!(
            only("event(init)"),
            vec!["event", "conversation_id", "init"]
        );
        assert_eq!(only("event(result)"), vec!["event", "result"]);
        assert_eq!(only("usage")[4], "total_tokens");
        assert!(s.keys.contains_key("step_update(agent_response,ACTIVE)"));
        assert_eq!(
            s.values["init.permission_mode"],
            BTreeSet::from(["request-review".to_string()])
        );
        assert_eq!(
            s.values["envelope.response"],
            BTreeSet::from(["text".to_string()])
        );
        assert_eq!(s.values["init.tools"].len(), 2);
    }

    #[test]
    fn model_text_folds_and_agy_text_keeps_its_pattern() {
        let out = b"hello\nworld\n";
        assert_eq!(stdout_shape(out, TextLines::Model).sequence, vec!["text"]);
        let models = b"gemini-3.8-flash-high  Gemini 3.8 Flash\n";
        assert_eq!(
            stdout_shape(models, TextLines::Patterns).sequence,
            vec!["text gemini-<n>-flash-high  Gemini <n> Flash"]
        );
    }

    #[test]
    fn stderr_patterns_hide_ids_numbers_and_quotes() {
        assert_eq!(
            stderr_patterns(b"[agy] print timeout after 8s with turn in progress\nerror: model \"x-1\" for 5733e5b1-5c8b-4db4-8da5-81ad9ceed95b\n"),
            vec![
                "[agy] print timeout after <n>s with turn in progress",
                "error: model \"…\" for <id>"
            ]
        );
        assert_eq!(
            pattern(r#"AGY_ERROR: {"code":429,"message":"quota"}"#),
            r#"AGY_ERROR: {"code":<n>,"message":"…"}"#
        );
    }

    #[test]
    fn each_object_keeps_its_own_key_order_and_types_are_named() {
        let text = concat!(
            r#"{"status":"SUCCESS","response":"","num_turns":1,"error":null}"#,
            "\n",
            r#"{"response":"x","status":"ERROR","num_turns":"1","error":"model 42 not found"}"#,
        );
        let s = stdout_shape(text.as_bytes(), TextLines::Model);
        let lists: Vec<Vec<String>> = s.keys["envelope"].iter().cloned().collect();
        assert_eq!(lists.len(), 2, "two orders, not one merged list: {lists:?}");
        assert_eq!(
            s.types["envelope.num_turns"],
            BTreeSet::from(["number".to_string(), "string".to_string()])
        );
        assert_eq!(
            s.types["envelope.response"],
            BTreeSet::from(["\"\"".to_string(), "string".to_string()])
        );
        assert!(s.types["envelope.error"].contains("null"));
        assert_eq!(
            s.values["envelope.error"],
            BTreeSet::from(["model <n> not found".to_string()])
        );
        assert_eq!(
            s.values["envelope.num_turns"],
            BTreeSet::from(["1".to_string()])
        );
    }
}
