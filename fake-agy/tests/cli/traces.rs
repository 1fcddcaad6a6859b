//! Recorded traces: every committed trace is the conversion of its raw capture, and
//! fake-agy replays each with byte-identical stdout and stderr and the same exit code.
//! `FAKE_AGY_WRITE_TRACES=1` regenerates the converted files from traces/corpus.toml.

use crate::support::{wait_with_timeout, workspace, Sandbox};
use agy_protocol::capture::{load_corpus, read_capture_file, Capture, Corpus};
use agy_protocol::command_line::{flag_error_token, invocation_kind, InvocationKind};
use agy_protocol::env::{FAKE_AGY_SCRIPT, FAKE_AGY_WRITE_TRACES};
use agy_protocol::trace::Trace;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// The corpus folder: `traces/`, or `AGY_CORPUS_DIR` (to try a corpus folder that is
/// not merged yet).
fn traces_dir() -> PathBuf {
    std::env::var_os("AGY_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("traces"))
}

fn corpus() -> Corpus {
    load_corpus(&traces_dir()).unwrap_or_else(|e| panic!("{e}"))
}

fn replayable(corpus: &Corpus) -> impl Iterator<Item = &Capture> {
    corpus.captures.iter().filter(|c| c.has_trace())
}

#[test]
fn committed_traces_are_the_conversions_of_their_raw_captures() {
    let corpus = corpus();
    assert!(
        replayable(&corpus).count() >= 13,
        "every raw capture has a trace"
    );
    let write = std::env::var(FAKE_AGY_WRITE_TRACES).is_ok_and(|v| v == "1");
    for c in replayable(&corpus) {
        let rendered = c
            .to_trace(&traces_dir())
            .unwrap_or_else(|e| panic!("{}: {e}", c.id))
            .render();
        let path = traces_dir().join(c.trace_file_name());
        if write {
            std::fs::write(&path, &rendered).expect("write trace");
        }
        let committed =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            committed, rendered,
            "{} is stale; regenerate with {FAKE_AGY_WRITE_TRACES}=1",
            c.id
        );
        Trace::parse(&c.id, &committed).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_trace_replays_byte_identical_through_the_binary() {
    let corpus = corpus();
    let mut failures = Vec::new();
    for c in replayable(&corpus) {
        match replay(c) {
            Replay::Same => {}
            Replay::ScriptNotReached => failures.push(format!(
                "{}: fake-agy answered the command line itself, not the script",
                c.id
            )),
            Replay::Differs(why) => failures.push(why),
        }
    }
    assert!(
        failures.is_empty(),
        "{} trace(s) do not replay:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

enum Replay {
    Same,
    ScriptNotReached,
    Differs(String),
}

/// Replays the capture's trace (converted afresh, so a regeneration running beside this
/// test cannot race it) with its argv and stdin.
fn replay(c: &Capture) -> Replay {
    let sb = Sandbox::new();
    let trace = c
        .to_trace(&traces_dir())
        .unwrap_or_else(|e| panic!("{}: {e}", c.id));
    let trace_path = sb.path().join("capture.jsonl");
    std::fs::write(&trace_path, trace.render()).expect("write trace");
    let argv = c.argv().unwrap_or(&[]);
    // A recorded probe (`-p /quota`, `models`) is replayed by a rule that targets
    // probes; a command line the flag parser answers (`-h`) by one that names it.
    let args = argv.get(1..).unwrap_or_default();
    let when = match (flag_error_token(args), invocation_kind(argv)) {
        (Some(token), _) => format!("when = {{ argv_has = [{token:?}] }}\n"),
        (None, InvocationKind::Probe) => "when = { mode = \"command\" }\n".to_string(),
        (None, InvocationKind::Turn) => String::new(),
    };
    let script = sb.script(&format!(
        "[[invocation]]\nname = \"capture\"\n{when}steps = [{{ trace = {:?} }}]\n",
        trace_path.display().to_string()
    ));
    let mut cmd = sb.std_cmd();
    cmd.env(FAKE_AGY_SCRIPT, &script).args(argv.iter().skip(1));
    let mut child = cmd.spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    for line in c.replay_lines() {
        // A run that fails before reading stdin closes it; the error is expected.
        let _ = stdin.write_all(format!("{line}\n").as_bytes());
    }
    drop(stdin);
    let out = wait_with_timeout(child, Duration::from_secs(30));
    let raw = |f: &Option<String>| {
        f.as_ref()
            .map(|rel| read_capture_file(&traces_dir(), rel).expect("raw"))
            .unwrap_or_default()
    };
    let journal = sb.journal();
    if journal.first().and_then(|r| r.rule.as_deref()) != Some("capture") {
        return Replay::ScriptNotReached;
    }
    let show = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .chars()
            .take(300)
            .collect::<String>()
    };
    if out.stdout != raw(&c.files.stdout) {
        return Replay::Differs(format!("{}: stdout differs: {}", c.id, show(&out.stdout)));
    }
    if out.stderr != raw(&c.files.stderr) {
        return Replay::Differs(format!("{}: stderr differs: {}", c.id, show(&out.stderr)));
    }
    if let Some(code) = c.exit.get() {
        if out.status.code() != Some(*code) {
            return Replay::Differs(format!(
                "{}: exit {:?}, recorded {code}",
                c.id,
                out.status.code()
            ));
        }
    }
    let read = journal.first().map(|r| r.stdin.lines.len()).unwrap_or(0);
    if !c.stdin_lines().is_empty() && read != c.stdin_lines().len() {
        return Replay::Differs(format!(
            "{}: the replay read {read} of the client's lines",
            c.id
        ));
    }
    Replay::Same
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

/// A script in a repository (a folder holding `.git`) whose `trace` step names a valid
/// trace outside it, by `..` or by an absolute path.
fn script_naming_a_trace_outside_its_repository(sb: &Sandbox, spec: &str) -> PathBuf {
    let outside = sb.path().join("outside.jsonl");
    std::fs::copy(traces_dir().join("ac-1.1.0-print-text.jsonl"), &outside).expect("copy");
    let repo = sb.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).expect("repo");
    let spec = spec.replace("{outside}", &outside.display().to_string());
    let script = repo.join("script.toml");
    std::fs::write(
        &script,
        format!("[[invocation]]\nsteps = [{{ trace = {spec:?} }}]\n"),
    )
    .expect("script");
    script
}

#[test]
fn a_trace_outside_the_scripts_repository_is_refused_unread() {
    for spec in ["../outside.jsonl", "{outside}", "sub/../../outside.jsonl#1"] {
        let sb = Sandbox::new();
        let script = script_naming_a_trace_outside_its_repository(&sb, spec);
        let out = sb
            .cmd()
            .env(FAKE_AGY_SCRIPT, &script)
            .args(["-p", "hi"])
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.stdout.is_empty(), "{spec}: the trace was replayed");
        assert!(
            stderr.contains("outside the script's repository"),
            "{spec}: {stderr}"
        );
        assert!(stderr.contains("script.toml"), "{spec}: {stderr}");
        assert_ne!(out.status.code(), Some(0), "{spec}");
    }
}
