//! The journal: one complete record per invocation, safe under concurrency, and a
//! live record for a process killed by SIGKILL.

use crate::support::{read_line_with_timeout, wait_with_timeout, Sandbox};
use agy_protocol::env::{FAKE_AGY_SCRIPT, FAKE_AGY_VERSION};
use std::io::{BufReader, Write};
use std::time::Duration;

#[test]
fn a_help_request_is_a_numbered_probe_whose_usage_is_journalled() {
    let sb = Sandbox::new();
    let out = sb.cmd().arg("--help").output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(!out.stderr.is_empty(), "agy's usage goes to stderr");
    let recs = sb.journal();
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    assert!(r.invocation >= 1, "numbered like any probe: {r:?}");
    assert_eq!(r.stderr_bytes, out.stderr.len() as u64);
    assert!(r.stderr_head.contains("Usage"), "{:?}", r.stderr_head);
}

#[test]
fn record_holds_argv_env_pid_times_exit_and_stdin() {
    let sb = Sandbox::new();
    sb.cmd()
        .env(FAKE_AGY_VERSION, "1.2.6")
        .env("SECRET_THING", "not journalled")
        .args(["-p", "reply ok", "--output-format", "json"])
        .write_stdin("line one\nline two\n")
        .assert()
        .success();
    let recs = sb.journal();
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    assert!(r.complete);
    assert_eq!(r.invocation, 1);
    assert_eq!(&r.argv[1..], ["-p", "reply ok", "--output-format", "json"]);
    assert_eq!(
        r.env.get(FAKE_AGY_VERSION).map(String::as_str),
        Some("1.2.6")
    );
    assert!(!r.env.contains_key("SECRET_THING"));
    assert!(r.pid > 0 && r.ppid > 0);
    assert!(r.ended_us.unwrap_or(0) >= r.started_us);
    assert_eq!(r.exit.as_ref().and_then(|e| e.code), Some(0));
    assert_eq!(r.rule.as_deref(), Some("default"));
    assert!(r.stdout_bytes > 0);
    // stdin is read in the background: whatever arrived before exit is journalled.
    assert!(r.stdin.bytes <= 19);
}

#[test]
fn concurrent_invocations_each_leave_one_whole_record() {
    let sb = Sandbox::new();
    let script = sb
        .script("[[invocation]]\ntimes = \"always\"\nsteps = [{ stdout = \"x\" }, { exit = 0 }]\n");
    let children: Vec<_> = (0..256)
        .map(|i| {
            let mut c = sb.std_cmd();
            c.env(FAKE_AGY_SCRIPT, &script).args([
                "-p",
                &format!("n{i}"),
                "--output-format",
                "json",
            ]);
            c.stdin(std::process::Stdio::null());
            c.spawn().expect("spawn")
        })
        .collect();
    for c in children {
        let out = wait_with_timeout(c, Duration::from_secs(60));
        assert!(out.status.success(), "{out:?}");
    }
    let recs = sb.journal();
    assert_eq!(recs.len(), 256);
    assert!(recs.iter().all(|r| r.complete));
    let mut indices: Vec<u32> = recs.iter().map(|r| r.invocation).collect();
    indices.sort();
    assert_eq!(
        indices,
        (1..=256).collect::<Vec<u32>>(),
        "each invocation got its own index"
    );
    let mut prompts: Vec<String> = recs.iter().map(|r| r.argv[2].clone()).collect();
    prompts.sort();
    prompts.dedup();
    assert_eq!(prompts.len(), 256);
}

#[test]
fn sigkilled_process_leaves_a_live_record_with_its_stdin_and_signals() {
    let sb = Sandbox::new();
    let script = sb.script(
        "[[invocation]]\nsteps = [{ on_sigterm = \"ignore\" }, { stdout = \"ready\" }, { hang = true }]\n",
    );
    let mut c = sb.std_cmd();
    c.env(FAKE_AGY_SCRIPT, &script)
        .args(["-p", "x", "--output-format", "json"]);
    let mut child = c.spawn().expect("spawn");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    assert_eq!(
        read_line_with_timeout(&mut out, Duration::from_secs(20)),
        "ready\n"
    );
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"hello\n").expect("write");
    drop(stdin);
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    // Wait until the journal shows the line and the EOF, then signal.
    wait_for(&sb, |r| {
        r.stdin.closed_us.is_some() && r.stdin.lines.len() == 1
    });
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("term");
    wait_for(&sb, |r| !r.signals.is_empty());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL).expect("kill");
    let _ = wait_with_timeout(child, Duration::from_secs(20));
    let recs = sb.journal();
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    assert!(!r.complete);
    assert_eq!(r.stdin.lines[0].text, "hello");
    assert!(r.stdin.closed_us.expect("closed") >= r.stdin.lines[0].at_us);
    assert_eq!(r.signals[0].signal, "SIGTERM");
    assert!(r.signals[0].at_us >= r.stdin.closed_us.unwrap_or(0));
}

/// Waits (bounded) for the live journal record to satisfy `pred`, by watching the
/// file the fake replaces on every event.
pub fn wait_for(sb: &Sandbox, pred: impl Fn(&agy_protocol::journal::JournalRecord) -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        if sb.journal().first().is_some_and(&pred) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "journal never reached the state: {:?}",
            sb.journal()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}
