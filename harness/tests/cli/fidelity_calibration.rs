//! `fidelity --calibration FILE`: fake-agy presents the file as agy for every capture
//! compared; a bad file is bad input, located, before any capture runs.

use crate::fidelity::{edited_corpus, fidelity_at};
use crate::support::*;
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// gb-1.1.18-models-text (agy 1.1.18's 14-model listing) filed as agy 1.3.1: the
/// default fake lists 1.3.1's catalogue, which is not the capture's.
fn relabelled(t: &TestDir) -> PathBuf {
    edited_corpus(t, "gb-1.1.18-models-text", |e| {
        e.replace(r#"agy_version  = "1.1.18""#, r#"agy_version  = "1.3.1""#)
    })
}

fn score(t: &TestDir, dir: &Path, extra: &[&str]) -> (Option<i32>, String, serde_json::Value) {
    let empty = t.write("empty.toml", "");
    let report = t.path().join("f.json");
    let mut args = vec![
        "gb-1.1.18-models-text".to_string(),
        "--baseline".to_string(),
        empty.display().to_string(),
        "--report".to_string(),
        format!("json={}", report.display()),
    ];
    args.extend(extra.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = fidelity_at(t, dir, &args);
    let json = std::fs::read_to_string(&report)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    (
        out.status.code(),
        text(&out.stdout) + &text(&out.stderr),
        json,
    )
}

#[test]
fn a_calibration_with_the_captures_catalogue_raises_the_score() {
    let t = TestDir::new();
    let dir = relabelled(&t);
    let (code, out, json) = score(&t, &dir, &[]);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(json["overall"]["same"], 0, "{json}");
    let cal = workspace().join("calibrations/agy-1.1.18.toml");
    let (code, out, json) = score(&t, &dir, &["--calibration", cal.to_str().unwrap_or("")]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(json["overall"]["same"], 1, "{json}");
}

#[test]
fn a_calibration_without_a_model_the_capture_lists_lowers_the_score() {
    let t = TestDir::new();
    let dir = edited_corpus(&t, "gb-1.1.18-models-text", str::to_string);
    let built_in = std::fs::read_to_string(workspace().join("calibrations/agy-1.1.18.toml"))
        .expect("built-in");
    let first = built_in.find("[[models.model]]").expect("a model");
    let second = first + 1 + built_in[first + 1..].find("[[models.model]]").expect("two");
    let fewer = t.write(
        "fewer.toml",
        &format!("{}{}", &built_in[..first], &built_in[second..]),
    );
    let (code, out, json) = score(&t, &dir, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(json["overall"]["same"], 1, "{json}");
    let (code, out, json) = score(&t, &dir, &["--calibration", fewer.to_str().unwrap_or("")]);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(json["overall"]["same"], 0, "{json}");
    assert!(out.contains("differs  gb-1.1.18-models-text"), "{out}");
}

#[test]
fn a_bad_calibration_is_bad_input_with_its_place_and_a_hint() {
    let t = TestDir::new();
    let dir = edited_corpus(&t, "gb-1.1.18-models-text", str::to_string);
    let built_in = std::fs::read_to_string(workspace().join("calibrations/agy-1.1.18.toml"))
        .expect("built-in");
    let bad = built_in.replacen("[usage]\nkeys", "[usage]\nkeyz", 1);
    let line = 1 + bad
        .lines()
        .position(|l| l.starts_with("keyz"))
        .expect("the edited line");
    let cal = t.write("bad.toml", &bad);
    let (code, out, _) = score(&t, &dir, &["--calibration", cal.to_str().unwrap_or("")]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains(&format!("bad.toml:{line}:1")), "{out}");
    assert!(out.contains("did you mean `keys`"), "{out}");
    assert!(!out.contains("gb-1.1.18-models-text"), "nothing ran: {out}");
}
