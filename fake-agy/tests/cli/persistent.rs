//! Persistent stream-json mode: one turn per stdin line, in order; init after the
//! first line; malformed lines; EOF and signals; per-turn print timeout; resume.

use crate::session_driver::{labels, user, Driver};
use crate::support::{snapshot_settings, Sandbox};
use agy_protocol::env::{FAKE_AGY_INIT_AT, FAKE_AGY_TURN_DURATION, FAKE_AGY_VERSION};

#[tokio::test]
async fn init_comes_only_after_the_first_line_and_turns_accumulate() {
    let sb = Sandbox::new();
    let mut d = Driver::start(&sb, None, &["--model", "gemini-3.8-flash-high"], &[]);
    // Nothing is written before the first line (AT lifecycle comment, §3.2): the journal
    // shows the process waiting, and the first stdout line after our write is init.
    crate::journal::wait_for(&sb, |r| r.rule.is_some());
    d.send(&user("reply ONE")).await;
    let first = d.turn().await;
    assert_eq!(first[0]["event"], "init");
    assert_eq!(first[0]["init"]["model"], "gemini-3.8-flash-high");
    let id = first[0]["conversation_id"]
        .as_str()
        .expect("id")
        .to_string();
    d.send(&user("reply TWO")).await;
    let second = d.turn().await;
    assert_ne!(second[0]["event"], "init", "one init per process");
    let r1 = &first.last().expect("r1")["result"];
    let r2 = &second.last().expect("r2")["result"];
    assert_eq!(
        (r1["num_turns"].as_u64(), r2["num_turns"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(r2["response"], "TWO\n");
    assert_eq!(
        r2["usage"]["input_tokens"].as_u64(),
        Some(2 * r1["usage"]["input_tokens"].as_u64().expect("u")),
        "cumulative usage"
    );
    assert_eq!(r2["conversation_id"], id.as_str());
    let idx = |e: &serde_json::Value| e["step_update"]["step_index"].as_u64();
    let max1 = first.iter().filter_map(idx).max().expect("steps");
    let min2 = second.iter().filter_map(idx).min().expect("steps");
    assert!(min2 > max1, "step_index continues across turns");
    let (status, _) = d.finish().await;
    assert_eq!(status.code(), Some(0), "EOF between turns exits 0");
    let rec = &sb.journal()[0];
    assert_eq!(rec.stdin.lines.len(), 2);
    assert!(rec
        .stdin
        .lines
        .iter()
        .all(|l| l.rule.as_deref() == Some("default")));
    assert!(rec.stdin.closed_us.is_some());
}

// Regression: a stdin line that is not UTF-8 was converted (U+FFFD) and answered as if
// that text had been sent; now it is reported where it stands and skipped, like every
// reader, and the lines after it are answered.
#[tokio::test]
async fn a_line_that_is_not_utf8_is_reported_and_the_next_line_is_answered() {
    let sb = Sandbox::new();
    let mut d = Driver::start(&sb, None, &[], &[]);
    d.send(&user("reply ONE")).await;
    let first = d.turn().await;
    d.send_bytes(b"{\"event\":\"user\",\"message\":{\"content\":\"\xff\"}}")
        .await;
    d.send(&user("reply TWO")).await;
    let second = d.turn().await;
    let response =
        |t: &[serde_json::Value]| t.last().expect("result")["result"]["response"].clone();
    assert_eq!(
        (response(&first), response(&second)),
        ("ONE\n".into(), "TWO\n".into())
    );
    assert_eq!(second.last().expect("result")["result"]["num_turns"], 2);
    let (status, stderr) = d.finish().await;
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("fake-agy: stdin:2:39: line is not valid UTF-8 (byte 0xff;"),
        "{stderr}"
    );
    assert_eq!(
        sb.journal()[0].stdin.lines.len(),
        2,
        "the bad line is not journalled as text"
    );
}

#[tokio::test]
async fn content_parts_and_missing_role_are_accepted() {
    let sb = Sandbox::new();
    let mut d = Driver::start(&sb, None, &[], &[]);
    d.send(r#"{"event":"user","message":{"content":[{"type":"text","text":"reply PARTS"}]}}"#)
        .await;
    let t = d.turn().await;
    assert_eq!(t.last().expect("result")["result"]["response"], "PARTS\n");
    d.finish().await;
}

#[tokio::test]
async fn a_line_written_during_a_turn_waits_for_it() {
    let sb = Sandbox::new();
    let mut d = Driver::start(&sb, None, &[], &[(FAKE_AGY_TURN_DURATION, "300ms")]);
    d.send(&user("reply A")).await;
    d.send(&user("reply B")).await;
    let a = d.turn().await;
    let read_a = agy_protocol::journal::now_us();
    let b = d.turn().await;
    assert_eq!(a.last().expect("a")["result"]["response"], "A\n");
    assert_eq!(b.last().expect("b")["result"]["response"], "B\n");
    assert_eq!(b.last().expect("b")["result"]["num_turns"], 2);
    d.finish().await;
    let rec = &sb.journal()[0];
    assert!(
        rec.stdin.lines[1].at_us < read_a,
        "line B arrived while turn A ran"
    );
}

#[tokio::test]
async fn type_instead_of_event_is_a_fatal_error_after_init() {
    // PB trace error-missing-event: init, ERROR result, num_turns 0, exit 1.
    let sb = Sandbox::new();
    let mut d = Driver::start(&sb, None, &[], &[]);
    d.send(r#"{"type":"user","message":{"role":"user","content":"hi"}}"#)
        .await;
    let t = d.turn().await;
    assert_eq!(labels(&t), ["init", "result"]);
    let r = &t[1]["result"];
    assert_eq!(r["status"], "ERROR");
    assert_eq!(
        r["error"],
        "stream input message is missing the \"event\" field"
    );
    assert_eq!(r["num_turns"], 0);
    let (status, _) = d.finish().await;
    assert_eq!(status.code(), Some(1));
}

#[tokio::test]
async fn unknown_event_is_skipped_with_a_warning() {
    let sb = Sandbox::new();
    let mut d = Driver::start(&sb, None, &[], &[]);
    d.send(r#"{"event":"user_message","message":{"content":"x"}}"#)
        .await;
    d.send(&user("reply OK")).await;
    let t = d.turn().await;
    assert_eq!(t[0]["event"], "init");
    assert_eq!(t.last().expect("r")["result"]["num_turns"], 1);
    let (status, stderr) = d.finish().await;
    assert_eq!(status.code(), Some(0));
    assert_eq!(
        stderr,
        "warning: ignoring unsupported stream input message event \"user_message\"\n"
    );
}

#[tokio::test]
async fn missing_message_and_no_content_are_fatal_by_default_and_skippable() {
    for (line, text) in [
        (
            r#"{"event":"user"}"#,
            "stream input \"user\" message is missing the \"message\" field",
        ),
        (
            r#"{"event":"user","message":{"role":"user"}}"#,
            "stream input \"user\" message has no content",
        ),
    ] {
        let sb = Sandbox::new();
        let mut d = Driver::start(&sb, None, &[], &[]);
        d.send(line).await;
        let t = d.turn().await;
        assert_eq!(t.last().expect("r")["result"]["error"], text);
        assert_eq!(d.finish().await.0.code(), Some(1));

        let sb = Sandbox::new();
        let mut d = Driver::start(
            &sb,
            Some("[script]\nmalformed_lines = \"skip\"\n"),
            &[],
            &[],
        );
        d.send(line).await;
        d.send(&user("reply OK")).await;
        let t = d.turn().await;
        assert_eq!(t.last().expect("r")["result"]["response"], "OK\n");
        let (status, stderr) = d.finish().await;
        assert_eq!(status.code(), Some(0));
        assert_eq!(stderr, format!("warning: {text}\n"));
    }
}

#[tokio::test]
async fn print_timeout_applies_per_turn() {
    let sb = Sandbox::new();
    let mut d = Driver::start(
        &sb,
        Some("[[turn]]\nwhen = { line = 2 }\nsteps = [{ default = { duration = \"1h\" } }]\n"),
        &["--print-timeout", "50ms"],
        &[(FAKE_AGY_TURN_DURATION, "1ms")],
    );
    d.send(&user("reply FAST")).await;
    assert_eq!(
        d.turn().await.last().expect("r")["result"]["response"],
        "FAST\n"
    );
    d.send(&user("reply SLOW")).await;
    let t = d.turn().await;
    assert_eq!(labels(&t)[0].split(':').next(), Some("user_input"));
    let r = &t.last().expect("r")["result"];
    assert_eq!(
        (
            r["status"].as_str(),
            r["response"].as_str(),
            r["num_turns"].as_u64()
        ),
        (Some("SUCCESS"), Some(""), Some(2))
    );
    let (_, stderr) = d.finish().await;
    assert_eq!(
        stderr,
        "[agy] print timeout after 50ms with turn in progress; returning partial output\n"
    );
}

#[tokio::test]
async fn a_new_process_resumes_the_conversation() {
    let sb = Sandbox::new();
    let mut d = Driver::start(&sb, None, &[], &[]);
    d.send(&user("reply ONE")).await;
    let first = d.turn().await;
    d.finish().await;
    let id = first[0]["conversation_id"]
        .as_str()
        .expect("id")
        .to_string();
    let mut d = Driver::start(&sb, None, &["--conversation", &id], &[]);
    d.send(&user("reply TWO")).await;
    let second = d.turn().await;
    assert_eq!(second[0]["conversation_id"], id.as_str());
    assert_eq!(
        second[1]["step_update"]["step_index"], 2,
        "continues after 0..1 (CL resume-turn)"
    );
    assert_eq!(second.last().expect("r")["result"]["num_turns"], 2);
    assert!(
        !second.iter().any(|e| e["step_update"]["step_index"] == 0),
        "earlier steps not re-streamed"
    );
    d.finish().await;
}

#[tokio::test]
async fn sigterm_between_turns_ends_the_process_by_the_signal() {
    use std::os::unix::process::ExitStatusExt;
    let sb = Sandbox::new();
    let mut d = Driver::start(&sb, None, &[], &[]);
    d.send(&user("reply ONE")).await;
    d.turn().await;
    d.close_stdin();
    crate::journal::wait_for(&sb, |r| r.stdin.closed_us.is_some() || r.complete);
    let _ = nix::sys::signal::kill(d.pid(), nix::sys::signal::Signal::SIGTERM);
    let (status, _) = d.finish().await;
    // Either EOF ended it first (exit 0) or SIGTERM did; the journal says which, in
    // order, and matches what the process really did.
    let rec = &sb.journal()[0];
    if let Some(sig) = rec.signals.first() {
        assert!(sig.at_us >= rec.stdin.closed_us.unwrap_or(0));
    }
    let exit = rec.exit.clone().expect("final record");
    match exit.signal.as_deref() {
        Some("SIGTERM") => assert_eq!(status.signal(), Some(15)),
        _ => assert_eq!((status.code(), exit.code), (Some(0), Some(0))),
    }
}

#[tokio::test]
async fn hang_after_eof_then_sigterm_then_sigkill_are_journalled_in_order() {
    let sb = Sandbox::new();
    let mut d = Driver::start(
        &sb,
        Some("[[invocation]]\nsteps = [{ on_sigterm = \"ignore\" }, { default = true }, { hang = true }]\n"),
        &[],
        &[],
    );
    d.send(&user("reply ONE")).await;
    d.turn().await;
    d.close_stdin();
    crate::journal::wait_for(&sb, |r| r.stdin.closed_us.is_some());
    nix::sys::signal::kill(d.pid(), nix::sys::signal::Signal::SIGTERM).expect("term");
    crate::journal::wait_for(&sb, |r| !r.signals.is_empty());
    nix::sys::signal::kill(d.pid(), nix::sys::signal::Signal::SIGKILL).expect("kill");
    d.finish().await;
    let rec = &sb.journal()[0];
    assert!(!rec.complete);
    let closed = rec.stdin.closed_us.expect("closed");
    assert!(rec.stdin.lines[0].at_us <= closed && closed <= rec.signals[0].at_us);
}

#[tokio::test]
async fn stream_events_snapshot() {
    let sb = Sandbox::new();
    let mut d = Driver::start(
        &sb,
        None,
        &["--dangerously-skip-permissions"],
        &[(FAKE_AGY_VERSION, "1.2.17")],
    );
    d.send(&user("generate an image of a red circle, 16:9 widescreen"))
        .await;
    let mut events = d.turn().await;
    d.finish().await;
    events[0]["init"]["tools"] = serde_json::json!(["[60 TOOLS]"]);
    events[0]["init"]["cwd"] = serde_json::json!("[TEMP]");
    let text: String = events.iter().map(|e| format!("{e}\n")).collect();
    snapshot_settings().bind(|| insta::assert_snapshot!("persistent_image_turn", text));
}

#[tokio::test]
async fn model_conflict_fails_before_stdin_with_the_recorded_bytes() {
    // PB error-model-effort-conflict (persistent flags): lone result, stderr line, exit 1.
    let sb = Sandbox::new();
    let d = Driver::start(
        &sb,
        None,
        &[
            "--mode",
            "plan",
            "--model",
            "gemini-3.8-flash-low",
            "--effort",
            "high",
        ],
        &[(FAKE_AGY_VERSION, "1.2.17")],
    );
    let raw = |f: &str| {
        std::fs::read_to_string(crate::support::workspace().join("traces/upstream").join(f))
            .expect("raw")
    };
    let mut d = d;
    let ev = d.next_event().await.expect("result");
    assert_eq!(
        format!("{}\n", agy_protocol::gojson::to_go_json(&ev)),
        raw("joiomi__playbook-plugin__error-model-effort-conflict.stdout")
    );
    let (status, stderr) = d.finish().await;
    assert_eq!(status.code(), Some(1));
    assert_eq!(
        stderr,
        raw("joiomi__playbook-plugin__error-model-effort-conflict.stderr")
    );
}

#[test]
fn a_reader_that_went_away_ends_the_process_by_sigpipe() {
    // agy is a Go program: a stdout write to a closed pipe kills it with SIGPIPE.
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::process::ExitStatusExt;
    let sb = Sandbox::new();
    let mut c = sb.std_cmd();
    c.args([
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
    ]);
    let mut child = c.spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    stdin
        .write_all(user("reply ONE").as_bytes())
        .expect("write");
    let mut line = String::new();
    while !line.starts_with("{\"event\":\"result\"") {
        line.clear();
        assert!(
            out.read_line(&mut line).expect("read") > 0,
            "stdout ended early"
        );
    }
    drop(out);
    stdin
        .write_all(user("reply TWO").as_bytes())
        .expect("write");
    drop(stdin);
    let status =
        crate::support::wait_with_timeout(child, std::time::Duration::from_secs(20)).status;
    assert_eq!(status.signal(), Some(13));
    assert_eq!(
        sb.journal()[0]
            .exit
            .as_ref()
            .and_then(|e| e.signal.clone())
            .as_deref(),
        Some("SIGPIPE")
    );
}

/// A client that waits for `init` before its first line (docs/agy-reference.md, "When
/// `init` is written": the record is split, so a scenario can state either side).
async fn init_before_any_line(sb: &Sandbox, script: Option<&str>, env: &[(&str, &str)]) {
    let mut d = Driver::start(sb, script, &["--print="], env);
    let init = d.next_event().await.expect("init before any stdin line");
    assert_eq!(init["event"], "init");
    d.send(&user("reply ONE")).await;
    let turn = d.turn().await;
    assert!(
        turn.iter().all(|e| e["event"] != "init"),
        "one init per process: {turn:?}"
    );
    assert_eq!(turn.last().expect("result")["result"]["response"], "ONE\n");
    assert_eq!(d.finish().await.0.code(), Some(0));
}

#[tokio::test]
async fn init_at_start_comes_before_stdin_is_read() {
    let sb = Sandbox::new();
    init_before_any_line(&sb, None, &[(FAKE_AGY_INIT_AT, "start")]).await;
}

#[tokio::test]
async fn a_script_states_init_at_start_for_its_scenario() {
    let sb = Sandbox::new();
    init_before_any_line(&sb, Some("[script]\ninit_at = \"start\"\n"), &[]).await;
}

#[test]
fn an_unknown_init_at_value_breaks_the_fake_with_a_hint() {
    let sb = Sandbox::new();
    sb.cmd()
        .env(FAKE_AGY_INIT_AT, "later")
        .args([
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
        ])
        .assert()
        .code(70)
        .stderr(predicates::str::contains("`first_line` or `start`"));
}

// KA (agy 1.2.14): a process whose stdin ends with no line, or after an unknown-event
// line only, writes `init` and nothing else, and exits 0 (docs/agy-reference.md, "When
// `init` is written").
async fn eof_without_a_turn_writes_only_init(first_line: Option<&str>) {
    let sb = Sandbox::new();
    let mut d = Driver::start(&sb, None, &[], &[]);
    crate::journal::wait_for(&sb, |r| r.rule.is_some());
    if let Some(line) = first_line {
        d.send(line).await;
    }
    d.close_stdin();
    let init = d.next_event().await.expect("init at EOF");
    assert_eq!(init["event"], "init");
    assert!(init["conversation_id"]
        .as_str()
        .is_some_and(|id| !id.is_empty()));
    assert_eq!(d.next_event().await, None, "nothing after init");
    assert_eq!(d.finish().await.0.code(), Some(0));
}

#[tokio::test]
async fn eof_before_any_line_writes_init_and_exits_zero() {
    eof_without_a_turn_writes_only_init(None).await;
}

#[tokio::test]
async fn eof_after_an_unknown_event_line_writes_init_and_exits_zero() {
    eof_without_a_turn_writes_only_init(Some(
        r#"{"event":"user_message","message":{"content":"x"}}"#,
    ))
    .await;
}

/// A scripted persistent invocation plays once its first stdin line came: a process
/// whose stdin ends first (a client that starts agy only to see it start) plays none of
/// it, writes `init`, exits 0, and leaves the rule and the turn number to the next
/// process, which is served as the first turn invocation.
#[tokio::test]
async fn an_idle_start_plays_no_scripted_step_and_leaves_the_first_rule_to_the_next_process() {
    let sb = Sandbox::new();
    let script = "[[invocation]]\nwhen = { nth = 1 }\nsteps = [{ stderr = \"rule one\" }, { default = true }]\n\n[[invocation]]\nsteps = [{ stderr = \"another rule\" }, { default = true }]\n";
    let mut idle = Driver::start(&sb, Some(script), &[], &[]);
    crate::journal::wait_for(&sb, |r| r.rule.is_some());
    idle.close_stdin();
    let init = idle.next_event().await.expect("init at EOF");
    assert_eq!(init["event"], "init");
    assert_eq!(idle.next_event().await, None, "no scripted output");
    let (status, stderr) = idle.finish().await;
    assert_eq!(status.code(), Some(0));
    assert!(
        !stderr.contains("rule"),
        "no scripted step played: {stderr}"
    );

    let mut turn = Driver::start(&sb, Some(script), &[], &[]);
    turn.send(&user("reply ONE")).await;
    let events = turn.turn().await;
    assert_eq!(
        events.last().expect("result")["result"]["status"],
        "SUCCESS"
    );
    let (status, stderr) = turn.finish().await;
    assert_eq!(status.code(), Some(0));
    assert!(
        stderr.contains("rule one"),
        "the first rule served the first turn: {stderr}"
    );
    let journal = sb.journal();
    assert_eq!(journal[0].rule.as_deref(), Some("none: idle start"));
}

// Regression: a persistent invocation's `default` step with options answered its lines
// with the plain default turn (`Done.`), so a scenario written for one print run per
// prompt gave an agent that keeps one process per session an answer nobody scripted.
#[tokio::test]
async fn an_invocation_s_default_options_answer_each_line_no_turn_rule_answers() {
    let sb = Sandbox::new();
    let script = "[[invocation]]\nsteps = [{ default = { response = \"The build is green.\" } }]\n";
    let mut d = Driver::start(&sb, Some(script), &[], &[]);
    d.send(&user("run the tests")).await;
    let first = d.turn().await;
    d.send(&user("and again")).await;
    let second = d.turn().await;
    for turn in [&first, &second] {
        let result = &turn.last().expect("result")["result"];
        assert_eq!(result["response"], "The build is green.", "{turn:?}");
    }
    let (status, _) = d.finish().await;
    assert_eq!(status.code(), Some(0));
}
