//! Every secret class of `tests/data/secret-classes.toml` through every entry point of
//! the redactor: text, raw bytes, a JSON line, a JSON value (as a string and under its
//! own name), an env map (as a value and under its own name), and a stream cut into
//! small chunks. No class may survive any of them.

use agy_protocol::redact::{Identity, LineRedactor, Redactor};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

#[derive(Debug, Deserialize)]
struct Class {
    name: String,
    text: String,
    secret: String,
}

#[derive(Deserialize)]
struct ClassFile {
    class: Vec<Class>,
}

fn classes() -> Vec<Class> {
    let text = include_str!("data/secret-classes.toml");
    toml::from_str::<ClassFile>(text)
        .expect("secret-classes.toml")
        .class
}

/// `NAME=value` read as an environment entry, when the text is one.
fn as_assignment(text: &str) -> Option<(&str, &str)> {
    let (name, value) = text.split_once('=')?;
    let is_name = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    is_name.then_some((name, value))
}

fn env_of(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// What each entry point leaves of `text`, by entry point.
fn outputs(r: &Redactor, text: &str) -> Vec<(&'static str, String)> {
    let lossy = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    let mut raw = b"\xff\xfe ".to_vec();
    raw.extend_from_slice(text.as_bytes());
    raw.push(b'\n');
    let line = json!({ "type": "message", "content": text }).to_string();
    let value = json!({ "stdout": text, "argv": ["agy", "-p", text] });
    let mut out = vec![
        ("text", r.redact(text)),
        ("bytes", lossy(r.redact_bytes(&raw))),
        ("json line", r.redact(&line)),
        ("json value", r.redact_json(&value).to_string()),
        (
            "env value",
            format!("{:?}", r.redact_env(&env_of(&[("PLANTED", text)]))),
        ),
    ];
    if let Some((name, value)) = as_assignment(text) {
        let named = json!({ name: value });
        out.push(("json value by name", r.redact_json(&named).to_string()));
        let env = r.redact_env(&env_of(&[(name, value)]));
        out.push(("env by name", format!("{env:?}")));
    }
    let mut stream = LineRedactor::new(r.clone());
    let mut streamed: Vec<u8> = raw
        .chunks(7)
        .flat_map(|c| stream.push(c).concat())
        .collect();
    streamed.extend(stream.finish().unwrap_or_default());
    out.push(("stream", lossy(streamed)));
    out
}

fn leaks(output: &str, secret: &str) -> bool {
    let escaped = serde_json::to_string(secret).expect("json");
    output.contains(secret) || output.contains(&escaped[1..escaped.len() - 1])
}

#[test]
fn no_secret_class_leaks_through_any_entry_point() {
    let r = Redactor::new(&Identity::default());
    let all = classes();
    assert!(all.len() >= 46, "{}", all.len());
    let mut leaked = Vec::new();
    for c in &all {
        assert!(c.text.contains(&c.secret), "{}: secret not in text", c.name);
        let through: Vec<String> = outputs(&r, &c.text)
            .into_iter()
            .filter(|(_, out)| leaks(out, &c.secret))
            .map(|(via, out)| format!("{via}: {out}"))
            .collect();
        if !through.is_empty() {
            leaked.push(format!("{}\n    {}", c.name, through.join("\n    ")));
        }
    }
    assert!(
        leaked.is_empty(),
        "{} of {} secret classes leak:\n{}",
        leaked.len(),
        all.len(),
        leaked.join("\n")
    );
}

#[test]
fn class_names_are_unique() {
    let mut names: Vec<String> = classes().into_iter().map(|c| c.name).collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n);
}

#[test]
fn a_multi_line_key_keeps_its_line_ends() {
    // Regression: only the BEGIN line matched, and it lost its newline, so a recorded
    // trace no longer replayed the bytes agy wrote.
    let text = "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAvQ3c\nQ2hlY2tzdW0\n-----END RSA PRIVATE KEY-----\nb\n";
    let redactor = Redactor::new(&Identity::default());
    let whole = redactor.redact(text);
    assert_eq!(whole.lines().count(), text.lines().count(), "{whole}");
    assert!(
        whole.ends_with("-----END RSA PRIVATE KEY-----\nb\n"),
        "{whole}"
    );
    let mut lines = LineRedactor::new(redactor);
    let streamed: Vec<u8> = text
        .as_bytes()
        .chunks(7)
        .flat_map(|c| lines.push(c).concat())
        .collect();
    assert_eq!(String::from_utf8_lossy(&streamed), whole);
}

#[test]
fn ordinary_output_is_kept() {
    // What agy prints in a normal turn carries no secret: none of it is replaced.
    let r = Redactor::new(&Identity::default());
    for text in [
        r#"{"type":"result","subtype":"success","duration_ms":1234,"result":"Here is the summary you asked for."}"#,
        "I/O error: no such file or directory (os error 2)",
        "Generated image saved to brain/3f2a/image_0.png",
        "usage: agy [flags] -p PROMPT\n  --output-format string   text, json or stream-json",
        "The API key field is empty; set one in settings.",
    ] {
        let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        assert_eq!(r.redact(text), text);
        assert_eq!(r.redact_json(&v), v);
    }
}
