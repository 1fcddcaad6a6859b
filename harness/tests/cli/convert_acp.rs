//! `capture → script` for ACP transcripts: fake-agy-acp, acting out the converted
//! script and fed the transcript's client lines one at a time, writes the transcript's
//! agent lines byte for byte, each after the client line it follows in the capture and
//! nothing else (docs/fidelity.md, "ACP transcripts").

use crate::support::*;
use agy_harness::capture::acp_capture_to_script;
use agy_protocol::acp::script::render_acp_script;
use agy_protocol::acp::{method_sender, Sender};
use agy_protocol::capture::{read_capture_file, Capture};
use serde_json::Value;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

/// How long one agent line may take to arrive.
const LINE_WAIT: Duration = Duration::from_secs(20);

/// Who sent a transcript line: the recorder's `direction`, else the method's side; a
/// response is the agent's unless it answers a request the agent sent.
fn sender(line: &[u8], agent_requests: &mut Vec<Value>) -> Sender {
    let v: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
    if let Some(d) = v.get("direction").and_then(Value::as_str) {
        return if d == "client" {
            Sender::Client
        } else {
            Sender::Agent
        };
    }
    let id = v.get("id").cloned().unwrap_or(Value::Null);
    match v.get("method").and_then(Value::as_str).map(method_sender) {
        Some(Some(Sender::Agent)) => {
            agent_requests.push(id);
            Sender::Agent
        }
        Some(_) => Sender::Client,
        None if agent_requests.contains(&id) => Sender::Client,
        None => Sender::Agent,
    }
}

/// The fake's stdout, line by line (raw bytes with their newline), through a thread.
fn stdout_lines(child: &mut Child) -> Receiver<Vec<u8>> {
    let out = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut r = std::io::BufReader::new(out);
        loop {
            let mut line = Vec::new();
            match r.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            }
        }
    });
    rx
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).chars().take(300).collect()
}

/// Spawns fake-agy-acp on `c`'s converted script.
fn spawn_fake(dir: &Path, c: &Capture, t: &TestDir) -> Result<Child, String> {
    let script = acp_capture_to_script(dir, c).map_err(|e| format!("{}: {e}", c.id))?;
    let text = render_acp_script(&script).map_err(|e| format!("{}: renders no TOML: {e}", c.id))?;
    let path = t.write("capture.toml", &text);
    let fake = Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("fake-agy-acp");
    std::process::Command::new(&fake)
        .env_clear()
        .env("HOME", t.path())
        .env("FAKE_AGY_ACP_SCRIPT", &path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: failed to start `{}`: {e}", c.id, fake.display()))
}

/// Plays `c`'s transcript against fake-agy-acp; `Err` names the first line that differs.
pub fn replay_acp(dir: &Path, c: &Capture) -> Result<(), String> {
    let rel = c
        .files
        .transcript
        .as_deref()
        .ok_or(format!("{}: no transcript", c.id))?;
    let bytes = read_capture_file(dir, rel).map_err(|e| format!("{}: {e}", c.id))?;
    let t = TestDir::new();
    let mut child = spawn_fake(dir, c, &t)?;
    let lines = stdout_lines(&mut child);
    let mut stdin = child.stdin.take().expect("stdin");
    let played = converse(c, &bytes, &mut stdin, &lines);
    drop(stdin);
    let out = wait_exit(child, Duration::from_secs(30));
    played?;
    let rest: Vec<Vec<u8>> = lines.iter().collect();
    if let Some(extra) = rest.first() {
        return Err(format!(
            "{}: after the transcript's last line fake-agy-acp wrote {} more line(s), the first: {}",
            c.id,
            rest.len(),
            show(extra)
        ));
    }
    match out.status.code() {
        Some(0) => Ok(()),
        code => Err(format!(
            "{}: fake-agy-acp ended with {code:?} once stdin closed: {}",
            c.id,
            show(&out.stderr)
        )),
    }
}

/// Sends each client line, and reads each agent line where the transcript has it.
fn converse(
    c: &Capture,
    transcript: &[u8],
    stdin: &mut ChildStdin,
    lines: &Receiver<Vec<u8>>,
) -> Result<(), String> {
    let mut agent_requests = Vec::new();
    for (i, line) in transcript.split_inclusive(|b| *b == b'\n').enumerate() {
        let n = i + 1;
        if sender(line, &mut agent_requests) == Sender::Client {
            if let Ok(early) = lines.try_recv() {
                return Err(format!(
                    "{}: before transcript line {n} (the client's) fake-agy-acp wrote: {}",
                    c.id,
                    show(&early)
                ));
            }
            stdin
                .write_all(line)
                .and_then(|()| stdin.flush())
                .map_err(|e| format!("{}: transcript line {n} not delivered: {e}", c.id))?;
            continue;
        }
        match lines.recv_timeout(LINE_WAIT) {
            Ok(got) if got == line => {}
            Ok(got) => {
                return Err(format!(
                    "{}: transcript line {n} differs\n  recorded: {}\n  replayed: {}",
                    c.id,
                    show(line),
                    show(&got)
                ))
            }
            Err(RecvTimeoutError::Timeout) => {
                return Err(format!(
                    "{}: transcript line {n} (the agent's) did not come within {LINE_WAIT:?}",
                    c.id
                ))
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(format!(
                    "{}: fake-agy-acp closed stdout before transcript line {n}",
                    c.id
                ))
            }
        }
    }
    Ok(())
}

#[test]
fn convert_writes_an_acp_capture_as_the_fake_agy_acp_script_it_converts_to() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces"));
    let t = TestDir::new();
    let out_file = t.path().join("probe.toml");
    let mut cmd = t.harness();
    cmd.args(["convert", "acp-1.3.0-dsh-probe", "--traces"])
        .arg(dir)
        .arg("--out")
        .arg(&out_file);
    let out = run(cmd, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&out_file).expect("script written");
    assert!(
        written.starts_with("# fake-agy-acp script replaying capture acp-1.3.0-dsh-probe"),
        "{written}"
    );
    let parsed = agy_protocol::acp::script::parse_acp_script_file(&out_file, None)
        .unwrap_or_else(|e| panic!("{e}\n{written}"));
    let corpus = agy_protocol::capture::load_corpus(dir).expect("corpus");
    let capture = corpus.find("acp-1.3.0-dsh-probe").expect("capture");
    assert_eq!(
        Some(parsed),
        acp_capture_to_script(dir, capture).ok(),
        "{written}"
    );
}
