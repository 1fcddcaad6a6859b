//! `capture → script`: every capture of the corpus converts to a script that replays it
//! byte for byte. An agy run's agy script: fake-agy acts it out with the capture's argv
//! and stdin, writing the capture's stdout and stderr byte for byte, its `--log-file`
//! and its exit code; a command line agy's flag parser answers itself (`-h`, an
//! undefined flag) is served by the script too. An ACP transcript's fake-agy-acp
//! script: see `convert_acp`. `AGY_CORPUS_DIR` names another corpus.

use crate::convert_acp::replay_acp;
use crate::support::*;
use agy_harness::capture::capture_to_script;
use agy_harness::sandbox::Sandbox;
use agy_protocol::capture::{load_corpus, read_transformed, Capture, CaptureKind};
use agy_protocol::command_line::find_flag_value;
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

/// Acts out `c`'s script with `c`'s argv and stdin; `Err` says how the replay differs
/// from the capture.
fn replay(dir: &Path, c: &Capture) -> Result<(), String> {
    let script = match capture_to_script(dir, c).map(|s| render_script(&s)) {
        Ok(Ok(text)) => text,
        Ok(Err(e)) => return Err(format!("{}: renders no TOML: {e}", c.id)),
        Err(e) => return Err(format!("{}: {e}", c.id)),
    };
    let fake = Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("fake-agy");
    let sb = Sandbox::create(Some(&fake)).expect("sandbox");
    let path = sb.root().join("capture.toml");
    std::fs::write(&path, script).expect("write script");
    let args: &[String] = c
        .argv()
        .map(|a| a.get(1..).unwrap_or_default())
        .unwrap_or(&[]);
    let mut cmd = std::process::Command::new(sb.bin().join("agy"));
    cmd.args(args)
        .current_dir(sb.work())
        .env_clear()
        .envs(sb.env(Some((&path, None)), 1.0))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    for line in c.replay_lines() {
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
        return Err(format!(
            "{}: fake-agy answered the command line itself, not the script (rule {})",
            c.id, first["rule"]
        ));
    }
    let raw = |role: &str, f: &Option<String>| {
        f.as_ref()
            .map(|rel| read_transformed(dir, c, role, rel).expect("raw"))
            .unwrap_or_default()
    };
    let show = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .chars()
            .take(400)
            .collect::<String>()
    };
    if out.stdout != raw("stdout", &c.files.stdout) {
        return Err(format!("{}: stdout differs: {}", c.id, show(&out.stdout)));
    }
    if out.stderr != raw("stderr", &c.files.stderr) {
        return Err(format!("{}: stderr differs: {}", c.id, show(&out.stderr)));
    }
    if c.files.log.is_some() {
        let log = find_flag_value(args, "log-file")
            .and_then(|p| std::fs::read(sb.work().join(p)).ok())
            .unwrap_or_default();
        if log != raw("log", &c.files.log) {
            return Err(format!("{}: the --log-file differs: {}", c.id, show(&log)));
        }
    }
    match c.exit.get() {
        Some(code) if out.status.code() != Some(*code) => Err(format!(
            "{}: exit {:?}, recorded {code}",
            c.id,
            out.status.code()
        )),
        _ => Ok(()),
    }
}

#[test]
fn every_capture_converts_to_a_script_fake_agy_replays_byte_for_byte() {
    let dir = corpus_dir();
    let corpus = load_corpus(&dir).unwrap_or_else(|e| panic!("{e}"));
    let captures: Vec<&Capture> = corpus.captures.iter().collect();
    let failures: Vec<String> = captures
        .iter()
        .filter_map(|c| match c.kind {
            CaptureKind::Acp => replay_acp(&dir, c).err(),
            _ => replay(&dir, c).err(),
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} captures do not replay from their script:\n{}",
        failures.len(),
        captures.len(),
        failures.join("\n")
    );
    assert!(
        !captures.is_empty(),
        "the corpus at {} is empty",
        dir.display()
    );
    assert!(
        std::env::var_os("AGY_CORPUS_DIR").is_some()
            || captures.iter().any(|c| c.kind == CaptureKind::Acp),
        "the corpus at {} holds no ACP transcript to replay through fake-agy-acp",
        dir.display()
    );
}
