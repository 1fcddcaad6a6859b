//! The behaviour library in scenarios/agy-scripts/: each script parses and, run as
//! agy, shows the behaviour its name promises.

use crate::support::{jpeg_size, json_lines, workspace, Sandbox};
use agy_protocol::env::{FAKE_AGY_SCRIPT, FAKE_AGY_TIME_SCALE};
use std::path::PathBuf;

fn script(name: &str) -> PathBuf {
    workspace()
        .join("scenarios/agy-scripts")
        .join(format!("{name}.toml"))
}

fn run(sb: &Sandbox, name: &str, prompt: &str) -> std::process::Output {
    let mut c = sb.cmd();
    c.env(FAKE_AGY_SCRIPT, script(name))
        .env(FAKE_AGY_TIME_SCALE, "0.001")
        .args([
            "-p",
            prompt,
            "--output-format",
            "json",
            "--print-timeout",
            "1s",
        ]);
    c.output().expect("runs")
}

fn envelope(out: &std::process::Output) -> serde_json::Value {
    json_lines(&out.stdout)
        .pop()
        .unwrap_or_else(|| panic!("no envelope: {out:?}"))
}

#[test]
fn every_library_script_parses_and_is_tested_here() {
    let tested = [
        "success-with-image",
        "print-timeout-as-success",
        "success-without-image",
        "image-quota-429-in-success-prose",
        "canceled",
        "interrupted",
        "authentication-required",
        "unknown-model",
        "invalid",
        "waiting",
        "running",
        "hang-past-any-timeout",
        "two-images",
        "corrupt-image",
        "malformed-stdout",
        "third-call-fails",
        "tool-child-outlives-agy",
        "print-timeout-with-partial-text",
    ];
    let mut found: Vec<String> = std::fs::read_dir(workspace().join("scenarios/agy-scripts"))
        .expect("library dir")
        .flatten()
        .filter_map(|e| {
            e.path()
                .file_stem()
                .and_then(|s| s.to_str())
                .map(str::to_string)
        })
        .collect();
    found.sort();
    let mut expected: Vec<String> = tested.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(found, expected);
    for name in tested {
        agy_protocol::script::parse_script_file(&script(name), None)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

fn brain_images(sb: &Sandbox, env: &serde_json::Value) -> Vec<PathBuf> {
    sb.brain_files(env["conversation_id"].as_str().unwrap_or(""))
}

#[test]
fn success_with_image() {
    let sb = Sandbox::new();
    let out = run(
        &sb,
        "success-with-image",
        "a purple hexagon, 16:9 widescreen",
    );
    assert_eq!(out.status.code(), Some(0));
    let env = envelope(&out);
    assert_eq!(env["status"], "SUCCESS");
    let imgs = brain_images(&sb, &env);
    assert_eq!(imgs.len(), 1);
    assert_eq!(jpeg_size(&imgs[0]), (1376, 768));
}

#[test]
fn print_timeout_as_success() {
    let sb = Sandbox::new();
    let out = run(&sb, "print-timeout-as-success", "a purple hexagon");
    assert_eq!(out.status.code(), Some(0));
    let env = envelope(&out);
    assert_eq!(
        (
            env["status"].as_str(),
            env["response"].as_str(),
            env["usage"]["total_tokens"].as_u64()
        ),
        (Some("SUCCESS"), Some(""), Some(0))
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "[agy] print timeout after 1s with turn in progress; returning partial output\n"
    );
    assert!(brain_images(&sb, &env).is_empty());
}

#[test]
fn success_without_image() {
    let sb = Sandbox::new();
    let out = run(&sb, "success-without-image", "a purple hexagon");
    let env = envelope(&out);
    assert_eq!(env["status"], "SUCCESS");
    assert!(env["usage"]["total_tokens"].as_u64().unwrap_or(0) > 0);
    assert!(brain_images(&sb, &env).is_empty());
}

#[test]
fn image_quota_429_in_success_prose() {
    let sb = Sandbox::new();
    let out = run(&sb, "image-quota-429-in-success-prose", "a purple hexagon");
    assert_eq!(out.status.code(), Some(0));
    let env = envelope(&out);
    assert_eq!(env["status"], "SUCCESS");
    let r = env["response"].as_str().unwrap_or("");
    assert!(
        r.contains("RESOURCE_EXHAUSTED") && r.contains("gemini-3.1-flash-image"),
        "{r}"
    );
    assert!(brain_images(&sb, &env).is_empty());
}

#[test]
fn statuses_canceled_interrupted_invalid_waiting_running() {
    for (name, status, code) in [
        ("canceled", "CANCELED", 0),
        ("interrupted", "INTERRUPTED", 0),
        ("invalid", "INVALID", 0),
        ("waiting", "WAITING", 0),
        ("running", "RUNNING", 0),
    ] {
        let sb = Sandbox::new();
        let out = run(&sb, name, "a purple hexagon");
        assert_eq!(out.status.code(), Some(code), "{name}");
        let env = envelope(&out);
        assert_eq!(env["status"], status, "{name}");
        assert!(brain_images(&sb, &env).is_empty(), "{name}");
    }
}

#[test]
fn authentication_required() {
    let sb = Sandbox::new();
    let out = run(&sb, "authentication-required", "x");
    assert_eq!(out.status.code(), Some(1));
    let env = envelope(&out);
    assert_eq!(
        (
            env["status"].as_str(),
            env["error"].as_str(),
            env["conversation_id"].as_str()
        ),
        (Some("ERROR"), Some("authentication required"), Some(""))
    );
}

#[test]
fn unknown_model() {
    let sb = Sandbox::new();
    let out = run(&sb, "unknown-model", "x");
    assert_eq!(out.status.code(), Some(1));
    let env = envelope(&out);
    assert!(env["error"]
        .as_str()
        .unwrap_or("")
        .contains("is not recognized as a known model"));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: invalid model selection"));
}

#[test]
fn hang_past_any_timeout() {
    use nix::sys::signal::{kill, Signal};
    let sb = Sandbox::new();
    let mut c = sb.std_cmd();
    c.env(FAKE_AGY_SCRIPT, script("hang-past-any-timeout"))
        .args(["-p", "x", "--output-format", "json"]);
    let child = c.spawn().expect("spawn");
    crate::journal::wait_for(&sb, |r| r.rule.is_some());
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    kill(pid, Signal::SIGTERM).expect("term");
    crate::journal::wait_for(&sb, |r| !r.signals.is_empty());
    kill(pid, Signal::SIGKILL).expect("kill");
    let out = crate::support::wait_with_timeout(child, std::time::Duration::from_secs(20));
    assert!(out.stdout.is_empty());
    assert!(
        !sb.journal()[0].complete,
        "it ignored SIGTERM and needed SIGKILL"
    );
}

#[test]
fn two_images() {
    let sb = Sandbox::new();
    let out = run(&sb, "two-images", "a purple hexagon");
    let env = envelope(&out);
    let imgs = brain_images(&sb, &env);
    assert_eq!(imgs.len(), 2);
    for i in &imgs {
        jpeg_size(i);
    }
}

#[test]
fn corrupt_image() {
    let sb = Sandbox::new();
    let out = run(&sb, "corrupt-image", "a purple hexagon");
    let env = envelope(&out);
    assert_eq!(env["status"], "SUCCESS");
    let imgs = brain_images(&sb, &env);
    assert_eq!(imgs.len(), 1);
    let bytes = std::fs::read(&imgs[0]).expect("read");
    assert!(zune_jpeg::JpegDecoder::new(bytes.as_slice())
        .decode()
        .is_err());
}

#[test]
fn malformed_stdout() {
    let sb = Sandbox::new();
    let out = run(&sb, "malformed-stdout", "x");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        serde_json::from_str::<serde_json::Value>(text.trim()).is_err(),
        "{text}"
    );
}

#[test]
fn third_call_fails() {
    let sb = Sandbox::new();
    let codes: Vec<Option<i32>> = (0..3)
        .map(|_| run(&sb, "third-call-fails", "reply ok").status.code())
        .collect();
    assert_eq!(codes, [Some(0), Some(0), Some(1)]);
}

#[test]
fn tool_child_outlives_agy() {
    use agy_process::{is_running, marked_processes, sweep_marked, MARKER_ENV};
    let sb = Sandbox::new();
    let marker = format!("{}/library", sb.path().display());
    let out = sb
        .cmd()
        .env(FAKE_AGY_SCRIPT, script("tool-child-outlives-agy"))
        .env(MARKER_ENV, &marker)
        .args(["-p", "reply ok", "--output-format", "json"])
        .output()
        .expect("runs");
    assert_eq!(envelope(&out)["response"], "ok\n");
    let children = sb.journal()[0].children.clone();
    assert_eq!(children.len(), 1, "{children:?}");
    assert!(
        is_running(children[0].pid, Some(&marker)),
        "it outlived agy"
    );
    let found = sweep_marked(&marker, std::time::Duration::from_secs(10));
    assert_eq!(found, vec![children[0].pid]);
    assert!(marked_processes(&marker).is_empty());
}

#[test]
fn print_timeout_with_partial_text() {
    let sb = Sandbox::new();
    let env = envelope(&run(&sb, "print-timeout-with-partial-text", "x"));
    assert_eq!(
        (env["status"].as_str(), env["response"].as_str()),
        (Some("SUCCESS"), Some("The first half of the ans"))
    );
    let out = sb
        .cmd()
        .env(FAKE_AGY_SCRIPT, script("print-timeout-with-partial-text"))
        .args(["-p", "x", "--print-timeout", "8s"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "The first half of the ans"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "[agy] print timeout after 8s with turn in progress; returning partial output\n"
    );
}
