//! Premises and capabilities: a scenario that requires what the adapter config's
//! `offers` does not list is not applicable, with the reason, in every report; it fails
//! nothing and is not counted as passed.

use crate::support::*;
use agy_protocol::env::AGY_HARNESS_FAKE_AGY;
use std::path::Path;
use std::time::Duration;

const NEEDS_A_MODEL: &str = r#"[scenario]
name     = "text/needs-a-model"
profile  = "text"
requires = ["model-choice"]

[[agy.invocation]]
steps = [{ default = { response = "Blue." } }]

[[op]]
ask    = { prompt = "What colour is the sky?", model = "no-such-model", timeout_s = 60 }
expect = { outcome = "permanent" }
"#;

const PLAIN: &str = r#"[scenario]
name    = "text/plain-answer"
profile = "text"

[[agy.invocation]]
steps = [{ default = { response = "Blue." } }]

[[op]]
ask    = { prompt = "What colour is the sky?", timeout_s = 60 }
expect = { outcome = "success", text = "Blue." }
"#;

#[test]
fn a_premise_the_adapter_does_not_offer_is_not_applicable_in_every_report() {
    let t = TestDir::new();
    let adapter =
        Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("agy-reference-adapter");
    let config = t.write(
        "adapter.toml",
        &format!(
            "[adapter]\nname = \"json only\"\ncommand = [{:?}]\nprofiles = [\"text\"]\noffers = [\"output-mode:json\", \"caller-timeout\"]\n",
            adapter.display().to_string()
        ),
    );
    let needs = t.write("needs-a-model.toml", NEEDS_A_MODEL);
    let plain = t.write("plain-answer.toml", PLAIN);
    let fake = Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("fake-agy");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.env(AGY_HARNESS_FAKE_AGY, fake)
        .args(["--color", "never", "run", "--adapter"])
        .arg(&config);
    for (format, file) in [
        ("json", "r.json"),
        ("junit", "r.xml"),
        ("markdown", "r.md"),
        ("html", "r.html"),
    ] {
        cmd.arg("--report")
            .arg(format!("{format}={}", t.path().join(file).display()));
    }
    cmd.arg(&needs).arg(&plain);
    let out = run(cmd, Duration::from_secs(120));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("1 passed"), "{stdout}");
    assert!(stdout.contains("1 not applicable"), "{stdout}");
    assert!(stdout.contains("`model-choice`"), "{stdout}");
    let read = |f: &str| std::fs::read_to_string(t.path().join(f)).unwrap_or_default();
    let json: serde_json::Value = serde_json::from_str(&read("r.json")).expect("json report");
    let results = json["results"].as_array().expect("results");
    let needs = results
        .iter()
        .find(|r| r["name"] == "text/needs-a-model")
        .expect("listed");
    assert_eq!(needs["status"], "not_applicable", "{needs}");
    assert!(
        needs["note"]
            .as_str()
            .unwrap_or("")
            .contains("model-choice"),
        "{needs}"
    );
    let xml = read("r.xml");
    assert!(xml.contains("<skipped"), "{xml}");
    assert!(xml.contains("model-choice"), "{xml}");
    let md = read("r.md");
    assert!(md.contains("1 not applicable"), "{md}");
    assert!(md.contains("| not applicable |"), "{md}");
    let html = read("r.html");
    assert!(html.contains("1 not applicable"), "{html}");
    assert!(html.contains("model-choice"), "{html}");
}

/// `agy-harness check --infer --adapter CONFIG` with the built fake-agy: its stdout,
/// once it exited 0.
fn check_infer(config: &Path) -> String {
    let fake = Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("fake-agy");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.env(AGY_HARNESS_FAKE_AGY, fake)
        .args(["--color", "never", "check", "--infer", "--adapter"])
        .arg(config);
    let out = run(cmd, Duration::from_secs(120));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    stdout
}

#[test]
fn check_infers_what_the_reference_adapter_offers_from_a_neutral_run() {
    let t = TestDir::new();
    let adapter =
        Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("agy-reference-adapter");
    let config = t.write(
        "adapter.toml",
        &format!(
            "[adapter]\nname = \"reference\"\ncommand = [{:?}]\nprofiles = [\"text\"]\n",
            adapter.display().to_string()
        ),
    );
    let stdout = check_infer(&config);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("offers = ["))
        .unwrap_or_else(|| panic!("no offers line:\n{stdout}"));
    for offered in [
        "\"output-mode:json\"",
        "\"model-choice\"",
        "\"effort-choice\"",
        "\"skip-permissions\"",
        "\"caller-timeout\"",
    ] {
        assert!(line.contains(offered), "{offered} missing: {stdout}");
    }
    assert!(!line.contains("output-mode:text"), "{stdout}");
    assert!(stdout.contains("# concurrency — unknown"), "{stdout}");
}

/// `check --infer` on an MCP server: one neutral call says whether its tool has the
/// `mcp` profile's shape, and suggests `[mcp] outside_profile` when it has not.
fn infer_mcp(t: &TestDir, agy_bin: Option<&str>) -> String {
    let adapter =
        Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("agy-reference-adapter");
    let command = match agy_bin {
        Some(bin) => format!(
            "[\"/usr/bin/env\", \"AGY_BIN={bin}\", {:?}, \"mcp\"]",
            adapter.display().to_string()
        ),
        None => format!("[{:?}, \"mcp\"]", adapter.display().to_string()),
    };
    let config = t.write(
        "adapter.toml",
        &format!(
            "[adapter]\nname = \"reference mcp\"\ncommand = {command}\nprofiles = [\"mcp\"]\n\n[mcp]\ntool = \"agy\"\ntimeout_arg = \"timeout_s\"\n"
        ),
    );
    check_infer(&config)
}

#[test]
fn check_infers_that_the_reference_mcp_tool_has_the_profiles_shape() {
    let t = TestDir::new();
    let stdout = infer_mcp(&t, None);
    assert!(stdout.contains("has the `mcp` profile's shape"), "{stdout}");
    assert!(!stdout.contains("outside_profile ="), "{stdout}");
}

#[test]
fn check_suggests_outside_the_profile_for_a_tool_whose_call_runs_no_agy_turn() {
    // An `agy` that is not agy: the call is answered, but no agy turn ever ran.
    let t = TestDir::new();
    let stdout = infer_mcp(&t, Some("/bin/true"));
    assert!(
        stdout.contains("outside_profile = \"the call ran no agy turn\""),
        "{stdout}"
    );
}
