//! Hangs and signals: default death by signal, ignore, exit N ms after, crashes.

use crate::support::{read_line_with_timeout, wait_with_timeout, Sandbox};
use agy_protocol::env::FAKE_AGY_SCRIPT;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::io::BufReader;
use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

fn start(
    sb: &Sandbox,
    script: &str,
) -> (std::process::Child, BufReader<std::process::ChildStdout>) {
    let mut c = sb.std_cmd();
    c.env(FAKE_AGY_SCRIPT, sb.script(script))
        .args(["-p", "x", "--output-format", "json"]);
    let mut child = c.spawn().expect("spawn");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    assert_eq!(
        read_line_with_timeout(&mut out, Duration::from_secs(20)),
        "ready\n"
    );
    (child, out)
}

#[test]
fn hang_ends_by_sigterm_with_the_signal_journalled() {
    let sb = Sandbox::new();
    let (child, _out) = start(
        &sb,
        "[[invocation]]\nsteps = [{ stdout = \"ready\" }, { hang = true }]\n",
    );
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).expect("term");
    let out = wait_with_timeout(child, Duration::from_secs(20));
    assert_eq!(out.status.signal(), Some(libc_sigterm()));
    let r = &sb.journal()[0];
    assert!(r.complete);
    assert_eq!(r.signals[0].signal, "SIGTERM");
    assert_eq!(
        r.exit.as_ref().and_then(|e| e.signal.clone()).as_deref(),
        Some("SIGTERM")
    );
}

#[test]
fn ignored_sigterm_needs_sigkill() {
    let sb = Sandbox::new();
    let (child, _out) = start(&sb, "[[invocation]]\nsteps = [{ on_sigterm = \"ignore\" }, { stdout = \"ready\" }, { hang = true }]\n");
    let pid = Pid::from_raw(child.id() as i32);
    kill(pid, Signal::SIGTERM).expect("term");
    crate::journal::wait_for(&sb, |r| !r.signals.is_empty());
    kill(pid, Signal::SIGKILL).expect("kill");
    let out = wait_with_timeout(child, Duration::from_secs(20));
    assert_eq!(out.status.signal(), Some(9));
    let r = &sb.journal()[0];
    assert!(!r.complete, "SIGKILL leaves the live record");
    assert_eq!(r.signals.len(), 1);
}

#[test]
fn exit_after_sigterm_uses_the_scripted_code() {
    let sb = Sandbox::new();
    let (child, _out) = start(
        &sb,
        "[[invocation]]\nsteps = [{ on_sigterm = { exit_after = \"20ms\", code = 42 } }, { stdout = \"ready\" }, { hang = true }]\n",
    );
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).expect("term");
    let out = wait_with_timeout(child, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(42));
    let r = &sb.journal()[0];
    assert!(
        r.ended_us.expect("end") >= r.signals[0].at_us + 20_000,
        "exit came after the delay"
    );
}

#[test]
fn sigint_exit_gives_130() {
    let sb = Sandbox::new();
    let (child, _out) = start(&sb, "[[invocation]]\nsteps = [{ on_sigint = \"exit\" }, { stdout = \"ready\" }, { hang = true }]\n");
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).expect("int");
    let out = wait_with_timeout(child, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(130));
}

#[test]
fn crash_mid_line_dies_by_the_signal_after_partial_output() {
    let sb = Sandbox::new();
    let mut c = sb.std_cmd();
    c.env(FAKE_AGY_SCRIPT, sb.script("[[invocation]]\nsteps = [{ stdout_raw = \"{\\\"conversation_id\\\":\" }, { crash = \"segv\" }]\n"))
        .args(["-p", "x"]);
    let out = wait_with_timeout(c.spawn().expect("spawn"), Duration::from_secs(20));
    assert_eq!(out.stdout, b"{\"conversation_id\":");
    assert_eq!(out.status.signal(), Some(11));
    // A new sandbox: the first run used up the first rule of this scenario's state.
    let sb = Sandbox::new();
    let mut c = sb.std_cmd();
    c.env(
        FAKE_AGY_SCRIPT,
        sb.script("[[invocation]]\nsteps = [{ crash = \"abort\" }]\n"),
    )
    .args(["-p", "x"]);
    let out = wait_with_timeout(c.spawn().expect("spawn"), Duration::from_secs(20));
    assert_eq!(out.status.signal(), Some(6));
}

fn libc_sigterm() -> i32 {
    Signal::SIGTERM as i32
}
