//! `run --calibration FILE`: every scenario's fake-agy presents the file as agy
//! (docs/calibration-format.md); a bad file is reported once, located.

use crate::support::*;
use assert_cmd::Command;
use std::path::PathBuf;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A text scenario that asks for a model no built-in calibration lists.
const NEEDS_ULTRA: &str = r#"[scenario]
name = "text/asks-gemini-9-ultra"
profile = "text"

[[op]]
ask = { prompt = "say hi", model = "gemini-9-ultra-high", timeout_s = 30 }
expect = { outcome = "success" }
"#;

/// The built-in calibration of 1.3.2 with one more model.
fn with_ultra() -> String {
    let text =
        std::fs::read_to_string(workspace().join("calibrations/agy-1.3.2.toml")).expect("built-in");
    text.replacen(
        "[[models.model]]",
        "[[models.model]]\nid = \"gemini-9-ultra-high\"\nlabel = \"Gemini 9 Ultra (High)\"\n\n[[models.model]]",
        1,
    )
}

fn run(t: &TestDir, extra: &[&str]) -> (i32, String) {
    let scenario = t.write("asks.toml", NEEDS_ULTRA);
    let out = Command::from_std(t.harness())
        .args(["--color", "never", "run"])
        .args(extra)
        .arg(scenario)
        .output()
        .expect("runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn a_calibration_reaches_every_sandboxs_fake_agy() {
    let t = TestDir::new();
    let (without, text) = run(&t, &[]);
    assert_eq!(without, 1, "no built-in lists the model: {text}");
    let cal = t.write("ultra.toml", &with_ultra());
    let (with, text) = run(&t, &["--calibration", &cal.display().to_string()]);
    assert_eq!(with, 0, "{text}");
}

#[test]
fn a_bad_calibration_is_reported_once_with_its_place() {
    let t = TestDir::new();
    let bad = with_ultra().replacen("[usage]\nkeys", "[usage]\nkeyz", 1);
    let line = bad.lines().position(|l| l == "keyz = [\"input_tokens\", \"output_tokens\", \"thinking_tokens\", \"cache_read_tokens\", \"total_tokens\"]");
    let cal = t.write("bad.toml", &bad);
    let (code, text) = run(&t, &["--calibration", &cal.display().to_string()]);
    assert_eq!(code, 2, "{text}");
    let line = line.expect("the edited line") + 1;
    assert!(text.contains(&format!("bad.toml:{line}:")), "{text}");
    assert!(text.contains("did you mean `keys`"), "{text}");
}
