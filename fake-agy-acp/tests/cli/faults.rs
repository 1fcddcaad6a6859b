//! Process-level faults: hanging or slow start, SIGTERM ignored, a broken script.

use crate::support::{Sandbox, WAIT};
use agy_protocol::acp::{AcpDirection, AcpKind};
use serde_json::json;

#[tokio::test]
async fn a_hanging_start_never_answers_initialize() {
    let sb = Sandbox::new().with_script("[agent]\nstart = \"hang\"\n");
    let mut agent = sb.spawn();
    agent
        .request(
            "initialize",
            json!({"protocolVersion":1,"clientCapabilities":{}}),
        )
        .await;
    sb.wait_for_entry("the initialize request", |e| {
        e.dir == AcpDirection::In && e.method.as_deref() == Some("initialize")
    })
    .await;
    sb.wait_for_entry("the hang", |e| {
        e.kind == AcpKind::Exit && e.text.as_deref() == Some("hang: no more answers")
    })
    .await;
    let mut child = agent.child;
    child.start_kill().expect("kill");
    let status = tokio::time::timeout(WAIT, child.wait())
        .await
        .expect("dies in time")
        .expect("wait");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(9));
    let journal = sb.journal();
    assert!(
        journal.iter().all(|e| e.dir != AcpDirection::Out),
        "no output at all"
    );
}

#[tokio::test]
async fn a_slow_start_answers_initialize_after_the_delay() {
    let sb = Sandbox::new().with_script("[agent]\nstart_delay = \"300ms\"\n");
    let mut agent = sb.spawn();
    let (_, resp) = agent
        .call(
            "initialize",
            json!({"protocolVersion":1,"clientCapabilities":{}}),
        )
        .await;
    assert!(resp.get("result").is_some());
    agent.finish().await;
    let journal = sb.journal();
    let asked = journal
        .iter()
        .find(|e| e.dir == AcpDirection::In && e.method.as_deref() == Some("initialize"))
        .expect("request");
    let answered = journal
        .iter()
        .find(|e| e.dir == AcpDirection::Out && e.method.as_deref() == Some("initialize"))
        .expect("response");
    assert!(
        answered.at_us - asked.at_us >= 300_000,
        "answered after {} µs",
        answered.at_us - asked.at_us
    );
}

#[tokio::test]
async fn a_broken_script_is_reported_with_its_location_and_the_reserved_exit_code() {
    let sb = Sandbox::new()
        .with_script("[agent]\nstart = \"sideways\"\n[[prompt]]\nsteps = [{ txet = \"a\" }]\n");
    let out = tokio::time::timeout(WAIT, sb.command().output())
        .await
        .expect("exits in time")
        .expect("output");
    assert_eq!(out.status.code(), Some(70));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("fake-agy-acp: "), "{stderr}");
    assert!(stderr.contains("acp.toml:2:"), "{stderr}");
    assert!(stderr.contains("acp.toml:4:"), "{stderr}");
    assert!(stderr.contains("did you mean `text`"), "{stderr}");
    assert!(out.stdout.is_empty());
    let shown = stderr.replace(&sb.dir.path().display().to_string(), "[TEMP]");
    crate::assert_transcript_snapshot!("broken_script_stderr", shown);
}

#[tokio::test]
async fn sigterm_is_ignored_when_scripted() {
    let sb = Sandbox::new().with_script("[agent]\nignore_sigterm = true\n");
    let mut agent = sb.spawn();
    // A first answer proves the signal watcher is installed (it starts before stdin is read).
    agent.call("session/list", json!({})).await;
    let pid = agent.child.id().expect("pid") as i32;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("signal");
    sb.wait_for_entry("the ignored SIGTERM", |e| {
        e.text.as_deref() == Some("SIGTERM ignored")
    })
    .await;
    let (_, resp) = agent.call("session/list", json!({})).await;
    assert!(
        resp.get("result").is_some(),
        "still answering after SIGTERM"
    );
    let (status, _) = agent.finish().await;
    assert!(status.success(), "{status:?}");
}
