//! Planted secrets: every rule's example, and every identity fact, in any position,
//! plain, JSON-escaped, URL-encoded, raw inside bytes that are not UTF-8, and split
//! across a chunk boundary, never survives the redactor.

use agy_protocol::redact::rules::builtin_rules;
use agy_protocol::redact::{percent_encode, Identity, LineRedactor, Redactor};
use proptest::prelude::*;

#[derive(Debug, Clone, Copy)]
enum Encoding {
    Plain,
    JsonEscaped,
    JsonTwice,
    UrlEncoded,
}

fn encode(s: &str, e: Encoding) -> String {
    let json = |s: &str| {
        let q = serde_json::to_string(s).expect("string");
        q[1..q.len() - 1].to_string()
    };
    match e {
        Encoding::Plain => s.to_string(),
        Encoding::JsonEscaped => json(s),
        Encoding::JsonTwice => json(&json(s)),
        Encoding::UrlEncoded => percent_encode(s, false),
    }
}

fn identity() -> Identity {
    Identity {
        homes: vec!["/home/alice".into()],
        users: vec!["alice".into()],
        names: vec!["Liddell".into()],
        emails: vec!["wonder.land@example.org".into()],
    }
}

/// (planted text, the secret that must not survive).
fn plants() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = builtin_rules()
        .iter()
        .filter_map(|r| r.example.as_ref())
        .map(|e| (e.text.clone(), e.secret.clone()))
        .collect();
    v.push(("/home/alice/work".into(), "/home/alice".into()));
    v.push(("by alice today".into(), "alice".into()));
    v.push(("Dr Liddell wrote".into(), "Liddell".into()));
    v.push((
        "to wonder.land@example.org".into(),
        "wonder.land@example.org".into(),
    ));
    v
}

fn encoding() -> impl Strategy<Value = Encoding> {
    prop_oneof![
        Just(Encoding::Plain),
        Just(Encoding::JsonEscaped),
        Just(Encoding::JsonTwice),
        Just(Encoding::UrlEncoded),
    ]
}

/// Surrounding text: anything, ending (or starting) with a separator so the planted
/// text keeps its own boundaries.
fn filler() -> impl Strategy<Value = String> {
    (
        "[ -~]{0,40}",
        prop::sample::select(vec![" ", "\t", "(", "\"", ", ", "\n"]),
    )
        .prop_map(|(s, sep)| format!("{s}{sep}"))
}

fn leaks(out: &[u8], secret: &str, e: Encoding) -> bool {
    let needle = encode(secret, e);
    out.windows(needle.len()).any(|w| w == needle.as_bytes())
        || out.windows(secret.len()).any(|w| w == secret.as_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_planted_secret_survives(
        which in 0..plants().len(),
        e in encoding(),
        before in filler(),
        after in filler(),
        raw in any::<bool>(),
        split in 0.0f64..1.0,
    ) {
        let (text, secret) = &plants()[which];
        let mut planted = before.into_bytes();
        if raw {
            planted.extend_from_slice(b"\xff\xc3 ");
        }
        planted.extend_from_slice(encode(text, e).as_bytes());
        planted.extend_from_slice(after.chars().rev().collect::<String>().as_bytes());
        let redactor = Redactor::new(&identity());

        let whole = redactor.redact_bytes(&planted);
        prop_assert!(!leaks(&whole, secret, e), "whole: {}", String::from_utf8_lossy(&whole));

        let at = ((planted.len() as f64) * split) as usize;
        let mut lines = LineRedactor::new(redactor);
        let mut streamed = lines.push(&planted[..at]).concat();
        streamed.extend(lines.push(&planted[at..]).concat());
        streamed.extend(lines.finish().unwrap_or_default());
        prop_assert!(!leaks(&streamed, secret, e), "split at {at}: {}", String::from_utf8_lossy(&streamed));
    }
}

#[test]
fn every_rule_is_planted() {
    assert_eq!(plants().len(), builtin_rules().len() + 4);
}

/// A setting's value that an opening parenthesis follows is still the secret (the
/// planted-secret proptest found `password: hunter2-opaque-value( a` kept whole).
#[test]
fn a_setting_value_before_a_parenthesis_is_redacted() {
    let redactor = Redactor::new(&identity());
    let out = redactor.redact_bytes(b"password: hunter2-opaque-value( a");
    assert!(
        !leaks(&out, "hunter2-opaque-value", Encoding::Plain),
        "{}",
        String::from_utf8_lossy(&out)
    );
    let out = redactor.redact_bytes(b"password: abcd(efgh)\n");
    assert!(
        !leaks(&out, "efgh", Encoding::Plain),
        "{}",
        String::from_utf8_lossy(&out)
    );
}
