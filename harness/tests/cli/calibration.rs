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

/// An adapter config in `cfg/` for the reference adapter's text profile, with `extra`
/// in `[adapter]`.
fn config(t: &TestDir, extra: &str) -> String {
    let adapter = std::path::Path::new(env!("CARGO_BIN_EXE_agy-harness"))
        .with_file_name("agy-reference-adapter");
    let text = format!(
        "[adapter]\nname = \"reference\"\ncommand = [{:?}]\nprofiles = [\"text\"]\n{extra}",
        adapter.display().to_string()
    );
    t.write("cfg/adapter.toml", &text).display().to_string()
}

#[test]
fn the_adapter_configs_calibration_is_relative_to_it_and_reaches_every_sandbox() {
    let t = TestDir::new();
    t.write("cfg/ultra.toml", &with_ultra());
    let (without, text) = run(&t, &["--adapter", &config(&t, "")]);
    assert_eq!(without, 1, "no built-in lists the model: {text}");
    let with_config = config(&t, "agy_calibration = \"ultra.toml\"\n");
    let (with, text) = run(&t, &["--adapter", &with_config]);
    assert_eq!(with, 0, "{text}");
    // `--calibration` overrides the config's.
    let plain = workspace().join("calibrations/agy-1.3.2.toml");
    let plain = plain.display().to_string();
    let (over, text) = run(&t, &["--adapter", &with_config, "--calibration", &plain]);
    assert_eq!(over, 1, "{text}");
}

#[test]
fn the_adapter_configs_missing_calibration_is_located_in_the_config() {
    let t = TestDir::new();
    let cfg = config(&t, "agy_calibration = \"nowhere.toml\"\n");
    let (code, text) = run(&t, &["--adapter", &cfg]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("adapter.toml:5:19"), "{text}");
    assert!(text.contains("`agy_calibration` names no file"), "{text}");
}

#[test]
fn the_adapter_configs_malformed_calibration_is_located_in_the_calibration() {
    let t = TestDir::new();
    let bad = with_ultra().replacen("[usage]\nkeys", "[usage]\nkeyz", 1);
    let line = 1 + bad
        .lines()
        .position(|l| l.starts_with("keyz"))
        .expect("the edited line");
    t.write("cfg/bad.toml", &bad);
    let cfg = config(&t, "agy_calibration = \"bad.toml\"\n");
    let (code, text) = run(&t, &["--adapter", &cfg]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains(&format!("bad.toml:{line}:1")), "{text}");
    assert!(text.contains("did you mean `keys`"), "{text}");
}
