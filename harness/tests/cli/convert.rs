//! `capture → script`: every capture of the corpus converts to an agy script that
//! fake-agy acts out with the capture's argv and stdin, writing the capture's stdout
//! and stderr byte for byte and its exit code. `AGY_CORPUS_DIR` names another corpus.

use crate::support::*;
use agy_harness::capture::capture_to_script;
use agy_harness::sandbox::Sandbox;
use agy_protocol::capture::{load_corpus, read_capture_file, Capture, CaptureKind};
use agy_protocol::script::render_script;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn corpus_dir() -> PathBuf {
    std::env::var_os("AGY_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")).to_path_buf()
        })
}

enum Replay {
    Same,
    /// fake-agy answered the argv itself (`--help`, an undefined flag) before any script.
    ScriptNotReached,
    Differs(String),
}

fn replay(dir: &Path, c: &Capture) -> Replay {
    let script = match capture_to_script(dir, c).map(|s| render_script(&s)) {
        Ok(Ok(text)) => text,
        Ok(Err(e)) => return Replay::Differs(format!("{}: renders no TOML: {e}", c.id)),
        Err(e) => return Replay::Differs(format!("{}: {e}", c.id)),
    };
    let fake = Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("fake-agy");
    let sb = Sandbox::create(Some(&fake)).expect("sandbox");
    let path = sb.root().join("capture.toml");
    std::fs::write(&path, script).expect("write script");
    let mut cmd = std::process::Command::new(sb.bin().join("agy"));
    cmd.args(c.argv().unwrap_or(&[]).iter().skip(1))
        .current_dir(sb.work())
        .env_clear()
        .envs(sb.env(Some((&path, None)), 1.0))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    for line in c.stdin_lines() {
        // A run that ends before reading stdin closes it; the error is expected.
        let _ = stdin.write_all(format!("{line}\n").as_bytes());
    }
    drop(stdin);
    let out = wait_exit(child, Duration::from_secs(30));
    let journal = std::fs::read_to_string(sb.journal()).unwrap_or_default();
    let first: serde_json::Value = journal
        .lines()
        .next()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_default();
    if first["rule"].as_str() != Some(c.id.as_str()) {
        return Replay::ScriptNotReached;
    }
    let raw = |f: &Option<String>| {
        f.as_ref()
            .map(|rel| read_capture_file(dir, rel).expect("raw"))
            .unwrap_or_default()
    };
    let show = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .chars()
            .take(400)
            .collect::<String>()
    };
    if out.stdout != raw(&c.files.stdout) {
        return Replay::Differs(format!("{}: stdout differs: {}", c.id, show(&out.stdout)));
    }
    if out.stderr != raw(&c.files.stderr) {
        return Replay::Differs(format!("{}: stderr differs: {}", c.id, show(&out.stderr)));
    }
    match c.exit.get() {
        Some(code) if out.status.code() != Some(*code) => Replay::Differs(format!(
            "{}: exit {:?}, recorded {code}",
            c.id,
            out.status.code()
        )),
        _ => Replay::Same,
    }
}

/// Captures the script format cannot express yet, each with the reason. The test fails
/// when another capture stops replaying, and when one of these starts to (then remove it).
const KNOWN_GAPS: &[(&str, &str)] = &[
    (
        "pb-1.2.17-quota-exhausted",
        "a step_update without a step_type-specific shape after the quota stop",
    ),
    (
        "hv-unknown-print-timeout",
        "an empty stdout whose exit the default run decides first",
    ),
    (
        "pi-1.1.17-denied-turn",
        "a tool step with both a step error and a tool error",
    ),
    (
        "gb-1.1.18-models-stream-json",
        "`command_result` events have no script step",
    ),
    (
        "ut-1.3.1-json-schema",
        "the --json-schema run adds its own init key and finish steps",
    ),
    (
        "ut-1.3.1-usage-stream-json",
        "`command_result` events have no script step",
    ),
    (
        "ut-1.3.1-model-stream-json",
        "`command_result` events have no script step",
    ),
    (
        "ut-1.3.1-effort-stream-json",
        "`command_result` events have no script step",
    ),
    (
        "ua-1.0.16-print-json-ok",
        "script usage always carries `cache_read_tokens`",
    ),
    (
        "dm-1.1.27-ok-turn",
        "a Windows cwd the script's init cannot restate byte for byte",
    ),
    (
        "dm-1.1.27-canceled-result",
        "an empty stdout whose exit the default run decides first",
    ),
    (
        "dm-1.1.27-json-schema-result",
        "the --json-schema run adds its own keys",
    ),
    (
        "jd-1.1.8-adversarial-review",
        "init keys in an order the script format cannot give",
    ),
    (
        "jd-1.1.8-delegate-log-unknown-conversation",
        "the model check answers before the script",
    ),
    (
        "jd-1.1.9-review-stream",
        "init keys in an order the script format cannot give",
    ),
    (
        "jd-1.1.9-unknown-agent",
        "init keys in an order the script format cannot give",
    ),
    (
        "jd-1.2.7-model-command-result",
        "`command_result` events have no script step",
    ),
];

#[test]
fn every_capture_converts_to_a_script_fake_agy_replays_byte_for_byte() {
    let dir = corpus_dir();
    let corpus = load_corpus(&dir).unwrap_or_else(|e| panic!("{e}"));
    let captures: Vec<&Capture> = corpus
        .captures
        .iter()
        .filter(|c| c.kind != CaptureKind::Acp)
        .collect();
    let known = |id: &str| KNOWN_GAPS.iter().any(|(k, _)| *k == id);
    let (mut same, mut unreached, mut failures, mut closed) =
        (0, Vec::new(), Vec::new(), Vec::new());
    for c in &captures {
        match replay(&dir, c) {
            Replay::Same if known(&c.id) => closed.push(c.id.as_str()),
            Replay::Same => same += 1,
            Replay::ScriptNotReached => unreached.push(c.id.as_str()),
            Replay::Differs(_) if known(&c.id) => {}
            Replay::Differs(why) => failures.push(why),
        }
    }
    if !unreached.is_empty() {
        eprintln!("answered by fake-agy's own command line, not replayed: {unreached:?}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} captures do not replay from their script:\n{}",
        failures.len(),
        captures.len(),
        failures.join("\n")
    );
    assert!(
        closed.is_empty(),
        "these now replay: remove them from KNOWN_GAPS: {closed:?}"
    );
    assert!(unreached.len() * 10 <= captures.len(), "{unreached:?}");
    assert!(same >= 13, "only {same} captures replayed");
}
