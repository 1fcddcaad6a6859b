//! Tool children (`tool_child`): real processes in agy's process group, journalled at
//! once, ended with the turn unless they outlive it, left behind when only agy's pid is
//! killed, and found by the sandbox's sweep in every case.

use crate::support::{read_line_with_timeout, wait_with_timeout, Sandbox};
use agy_process::{is_running, marked_processes, sweep_marked, MARKER_ENV};
use agy_protocol::env::FAKE_AGY_SCRIPT;
use agy_protocol::journal::JournalRecord;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::io::{BufReader, Write};
use std::os::unix::process::CommandExt;
use std::time::Duration;

/// A marker of this test alone, so the sweep finds exactly its processes.
fn marker(sb: &Sandbox, name: &str) -> String {
    format!("{}/{name}", sb.path().display())
}

/// fake-agy in a process group of its own (as an adapter starts it), carrying `marker`.
fn start(
    sb: &Sandbox,
    marker: &str,
    script: &str,
) -> (std::process::Child, BufReader<std::process::ChildStdout>) {
    let mut c = sb.std_cmd();
    c.env(FAKE_AGY_SCRIPT, sb.script(script))
        .env(MARKER_ENV, marker)
        .args(["-p", "x", "--output-format", "json"])
        .process_group(0);
    let mut child = c.spawn().expect("spawn");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    assert_eq!(
        read_line_with_timeout(&mut out, Duration::from_secs(20)),
        "ready\n"
    );
    (child, out)
}

fn only_record(sb: &Sandbox) -> JournalRecord {
    let mut records = sb.journal();
    assert_eq!(records.len(), 1, "{records:?}");
    records.remove(0)
}

fn group_of(pid: u32) -> Option<i32> {
    nix::unistd::getpgid(Some(Pid::from_raw(pid as i32)))
        .ok()
        .map(|p| p.as_raw())
}

/// Sweeps the test's processes and checks none is left.
fn sweep_clean(marker: &str) -> Vec<u32> {
    let found = sweep_marked(marker, Duration::from_secs(10));
    assert!(marked_processes(marker).is_empty(), "left: {found:?}");
    found
}

#[test]
fn a_turn_child_runs_in_agys_group_and_ends_with_the_turn() {
    let sb = Sandbox::new();
    let m = marker(&sb, "turn");
    let script = "[[invocation]]\nsteps = [{ tool_child = true }, { stdout = \"ready\" }, { read_line = true }]\n";
    let (mut agy, _out) = start(&sb, &m, script);
    let child = only_record(&sb).children[0].clone();
    assert_eq!(child.label, "run_command");
    assert!(!child.outlives);
    assert!(
        is_running(child.pid, Some(&m)),
        "the child runs with the turn: {:?} {:?}",
        std::fs::read_to_string(format!("/proc/{}/stat", child.pid)),
        std::fs::read(format!("/proc/{}/environ", child.pid))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
    );
    assert_eq!(
        group_of(child.pid),
        Some(agy.id() as i32),
        "agy's own group"
    );
    let mut stdin = agy.stdin.take().expect("stdin");
    stdin.write_all(b"go on\n").expect("line");
    drop(stdin);
    let out = wait_with_timeout(agy, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(0));
    assert!(!is_running(child.pid, Some(&m)), "ended with the turn");
    assert_eq!(only_record(&sb).children, vec![child]);
    assert!(sweep_clean(&m).is_empty());
}

#[test]
fn an_outliving_child_stays_after_agy_exits_until_the_sweep() {
    let sb = Sandbox::new();
    let m = marker(&sb, "outlives");
    let script = "[[invocation]]\nsteps = [{ tool_child = { label = \"mcp_server\", outlives = true } }, { stdout = \"ready\" }]\n";
    let (agy, _out) = start(&sb, &m, script);
    let out = wait_with_timeout(agy, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(0));
    let record = only_record(&sb);
    assert!(record.complete);
    let child = &record.children[0];
    assert_eq!((child.label.as_str(), child.outlives), ("mcp_server", true));
    assert!(is_running(child.pid, Some(&m)), "it outlived agy");
    assert_eq!(sweep_clean(&m), vec![child.pid]);
}

#[test]
fn killing_only_agys_pid_leaves_the_turn_child_the_journal_names() {
    let sb = Sandbox::new();
    let m = marker(&sb, "killed");
    let script =
        "[[invocation]]\nsteps = [{ tool_child = true }, { stdout = \"ready\" }, { hang = true }]\n";
    let (agy, _out) = start(&sb, &m, script);
    kill(Pid::from_raw(agy.id() as i32), Signal::SIGKILL).expect("kill");
    let out = wait_with_timeout(agy, Duration::from_secs(20));
    assert_eq!(out.status.code(), None);
    let record = only_record(&sb);
    assert!(
        !record.complete,
        "the live copy is all a SIGKILLed agy leaves"
    );
    let child = record.children[0].pid;
    assert!(is_running(child, Some(&m)), "the child survived agy");
    assert_eq!(sweep_clean(&m), vec![child]);
}

/// `text/timeout-kills-what-agy-started` passed vacuously when the child's default life
/// was time-scaled (600 s × 0.05 = 30 s): a client that killed only agy's pid after a
/// longer fixed timeout found the child already gone. The default life is the turn's:
/// not scaled, so under any time scale the child asks to live the full 600 s.
#[test]
fn a_turn_childs_default_life_is_not_shortened_by_the_time_scale() {
    let sb = Sandbox::new();
    let m = marker(&sb, "scaled");
    let script =
        "[[invocation]]\nsteps = [{ tool_child = true }, { stdout = \"ready\" }, { hang = true }]\n";
    let mut c = sb.std_cmd();
    c.env(FAKE_AGY_SCRIPT, sb.script(script))
        .env(MARKER_ENV, &m)
        .env(agy_protocol::env::FAKE_AGY_TIME_SCALE, "0.001")
        .args(["-p", "x", "--output-format", "json"])
        .process_group(0);
    let mut agy = c.spawn().expect("spawn");
    let mut out = BufReader::new(agy.stdout.take().expect("stdout"));
    assert_eq!(
        read_line_with_timeout(&mut out, Duration::from_secs(20)),
        "ready\n"
    );
    let child = only_record(&sb).children[0].pid;
    let environ = std::fs::read(format!("/proc/{child}/environ")).expect("environ");
    let life = String::from_utf8_lossy(&environ).split('\0').find_map(|v| {
        v.strip_prefix(agy_protocol::env::FAKE_AGY_TOOL_CHILD)
            .and_then(|rest| rest.strip_prefix('='))
            .map(str::to_string)
    });
    assert_eq!(life.as_deref(), Some("600000"), "the child's life in ms");
    kill(Pid::from_raw(-(agy.id() as i32)), Signal::SIGKILL).expect("kill the group");
    let _ = wait_with_timeout(agy, Duration::from_secs(20));
    sweep_clean(&m);
}
