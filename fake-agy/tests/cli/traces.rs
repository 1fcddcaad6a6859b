//! Recorded traces: every committed trace is the conversion of its raw capture, and
//! fake-agy replays each with byte-identical stdout and stderr and the same exit code.
//! `FAKE_AGY_WRITE_TRACES=1` regenerates the converted files from traces/captures.toml.

use crate::support::{wait_with_timeout, workspace, Sandbox};
use agy_protocol::trace::{InvocationStart, Trace, TraceHeader, TRACE_VERSION};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::time::Duration;

#[derive(Deserialize)]
struct Table {
    set: BTreeMap<String, Set>,
    capture: Vec<Capture>,
}

#[derive(Deserialize)]
struct Set {
    agy_version: String,
    recorded: String,
    platform: String,
    source: String,
    cwd: String,
}

#[derive(Deserialize)]
struct Capture {
    trace: String,
    set: String,
    stdout: Option<String>,
    stderr: Option<String>,
    exit: i32,
    argv: Vec<String>,
    stdin: Vec<String>,
    note: String,
}

fn table() -> Table {
    let text =
        std::fs::read_to_string(workspace().join("traces/captures.toml")).expect("captures.toml");
    toml::from_str(&text).expect("captures.toml parses")
}

fn convert(t: &Table, c: &Capture) -> Trace {
    let set = &t.set[&c.set];
    let raw = |name: &Option<String>| {
        name.as_ref()
            .map(|n| {
                std::fs::read(workspace().join("traces/upstream").join(n)).expect("raw capture")
            })
            .unwrap_or_default()
    };
    Trace::from_capture(
        TraceHeader {
            trace: TRACE_VERSION,
            agy_version: set.agy_version.clone(),
            recorded: set.recorded.clone(),
            platform: set.platform.clone(),
            source: set.source.clone(),
            note: Some(c.note.clone()),
        },
        InvocationStart {
            argv: c.argv.clone(),
            cwd: Some(set.cwd.clone()),
            env: BTreeMap::new(),
        },
        &c.stdin,
        &raw(&c.stdout),
        &raw(&c.stderr),
        c.exit,
    )
}

#[test]
fn committed_traces_are_the_conversions_of_their_raw_captures() {
    let t = table();
    assert_eq!(t.capture.len(), 13, "every raw capture has a trace");
    let write = std::env::var("FAKE_AGY_WRITE_TRACES").is_ok_and(|v| v == "1");
    for c in &t.capture {
        let rendered = convert(&t, c).render();
        let path = workspace().join("traces").join(&c.trace);
        if write {
            std::fs::write(&path, &rendered).expect("write trace");
        }
        let committed =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            committed, rendered,
            "{} is stale; regenerate with FAKE_AGY_WRITE_TRACES=1",
            c.trace
        );
        Trace::parse(&c.trace, &committed).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_trace_replays_byte_identical_through_the_binary() {
    let t = table();
    for c in &t.capture {
        let sb = Sandbox::new();
        let trace_path = workspace().join("traces").join(&c.trace);
        let script = sb.script(&format!(
            "[[invocation]]\nsteps = [{{ trace = {:?} }}]\n",
            trace_path.display().to_string()
        ));
        let mut cmd = sb.std_cmd();
        cmd.env("FAKE_AGY_SCRIPT", &script).args(&c.argv[1..]);
        let mut child = cmd.spawn().expect("spawn");
        let mut stdin = child.stdin.take().expect("stdin");
        for line in &c.stdin {
            stdin
                .write_all(format!("{line}\n").as_bytes())
                .expect("write stdin");
        }
        drop(stdin);
        let out = wait_with_timeout(child, Duration::from_secs(30));
        let raw = |name: &Option<String>| {
            name.as_ref()
                .map(|n| std::fs::read(workspace().join("traces/upstream").join(n)).expect("raw"))
                .unwrap_or_default()
        };
        assert!(
            out.stdout == raw(&c.stdout),
            "{}: stdout differs:\n{}",
            c.trace,
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            out.stderr == raw(&c.stderr),
            "{}: stderr differs:\n{}",
            c.trace,
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(c.exit), "{}", c.trace);
        if !c.stdin.is_empty() {
            let rec = &sb.journal()[0];
            assert_eq!(
                rec.stdin.lines.len(),
                c.stdin.len(),
                "{}: the replay read the client's line",
                c.trace
            );
        }
    }
}

#[tokio::test]
async fn persistent_replay_waits_for_each_clients_line() {
    // A two-line session: what followed a recorded stdin line appears only once the
    // client wrote its own line.
    use crate::session_driver::{user, Driver};
    let sb = Sandbox::new();
    let header = r#"{"trace":1,"agy_version":"1.2.17","recorded":"2026-10-05","platform":"linux_amd64","source":"test"}"#;
    let trace = format!(
        "{header}\n{}\n{}\n{}\n{}\n{}\n{}\n",
        r#"{"invocation":{"argv":["agy","--input-format","stream-json","--output-format","stream-json"]}}"#,
        r#"{"t":0,"stdin":"{\"event\":\"user\",\"message\":{\"content\":\"one\"}}\n"}"#,
        r#"{"t":0,"stdout":"{\"n\":1}\n"}"#,
        r#"{"t":0,"stdin":"{\"event\":\"user\",\"message\":{\"content\":\"two\"}}\n"}"#,
        r#"{"t":0,"stdout":"{\"n\":2}\n"}"#,
        r#"{"t":0,"exit":{"code":0}}"#,
    );
    std::fs::write(sb.path().join("session.jsonl"), trace).expect("trace");
    let mut d = Driver::start(
        &sb,
        Some("[[invocation]]\nsteps = [{ trace = \"session.jsonl\" }]\n"),
        &[],
        &[],
    );
    d.send(&user("first")).await;
    assert_eq!(d.next_event().await.expect("n1")["n"], 1);
    // Without the second line nothing more may come (bounded check).
    let early = tokio::time::timeout(Duration::from_millis(300), d.lines.next_line()).await;
    assert!(
        early.is_err(),
        "output before the client's second line: {early:?}"
    );
    d.send(&user("second")).await;
    assert_eq!(d.next_event().await.expect("n2")["n"], 2);
    let (status, _) = d.finish().await;
    assert_eq!(status.code(), Some(0));
    assert_eq!(sb.journal()[0].stdin.lines.len(), 2);
}

#[test]
fn a_bad_trace_is_reported_with_its_location_once() {
    let sb = Sandbox::new();
    std::fs::write(
        sb.path().join("bad.jsonl"),
        "{\"trace\":1,\"agy_version\":\"1.2.17\",\"recorded\":\"2026-10-05\",\"platform\":\"linux_amd64\"}\n",
    )
    .expect("trace");
    let out = sb
        .scripted("[[invocation]]\nsteps = [{ trace = \"bad.jsonl\" }]\n")
        .args(["-p", "hi"])
        .assert()
        .code(agy_protocol::script::FAKE_BROKEN_EXIT);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("invalid trace line: missing field `source`\n"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("bad.jsonl").count(), 1, "{stderr}");
    assert!(stderr.contains("bad.jsonl:1:"), "{stderr}");
    assert!(!stderr.contains(" at line "), "{stderr}");
}
