//! `initialize`: the recorded capabilities and agent info (docs/agy-acp-reference.md §2.3), stderr noise.

use crate::support::Sandbox;
use agy_protocol::env::{FAKE_AGY_ACP_SCRIPT, FAKE_AGY_ACP_VERSION};
use serde_json::json;

#[tokio::test]
async fn initialize_advertises_the_recorded_capabilities() {
    let sb = Sandbox::new();
    let mut agent = sb.spawn();
    let (before, resp) = agent
        .call(
            "initialize",
            json!({"protocolVersion":1,"clientCapabilities":{}}),
        )
        .await;
    assert!(before.is_empty(), "nothing before the answer: {before:?}");
    let r = &resp["result"];
    assert_eq!(r["protocolVersion"], json!(1));
    assert_eq!(r["agentCapabilities"]["loadSession"], json!(true));
    // Capability objects, not booleans (docs/agy-acp-reference.md §1.1); no close/delete/fork (§2.3).
    assert_eq!(
        r["agentCapabilities"]["sessionCapabilities"],
        json!({"list":{},"resume":{}})
    );
    assert_eq!(r["agentCapabilities"]["auth"], json!({"logout":{}}));
    assert_eq!(
        r["agentCapabilities"]["promptCapabilities"],
        json!({"image":true,"audio":true,"embeddedContext":true})
    );
    let ids: Vec<&str> = r["authMethods"]
        .as_array()
        .expect("authMethods")
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "oauth-personal",
            "oauth-business",
            "gemini-api-key",
            "agent-platform"
        ]
    );
    assert_eq!(r["agentInfo"]["name"], json!("antigravity-acp"));
    assert_eq!(r["agentInfo"]["title"], json!("Google Antigravity"));
    assert_eq!(r["agentInfo"]["version"], json!("1.3.0"));
    agent.finish().await;
}

#[tokio::test]
async fn agent_info_version_comes_in_each_recorded_format() {
    for version in [
        "agy_acp_server_20260818_01_RC01",
        "agy_acp_server_1.1.1",
        "1.3.0",
    ] {
        let sb = Sandbox::new().with_env(FAKE_AGY_ACP_VERSION, version);
        let mut agent = sb.spawn();
        let (_, resp) = agent
            .call(
                "initialize",
                json!({"protocolVersion":1,"clientCapabilities":{}}),
            )
            .await;
        assert_eq!(resp["result"]["agentInfo"]["version"], json!(version));
        agent.finish().await;
    }
}

#[tokio::test]
async fn stderr_noise_never_reaches_stdout() {
    let sb = Sandbox::new();
    let mut child = sb.command().spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    use tokio::io::AsyncWriteExt;
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\n")
        .await
        .expect("write");
    drop(stdin);
    let out = tokio::time::timeout(crate::support::WAIT, child.wait_with_output())
        .await
        .expect("exits in time")
        .expect("output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Starting AGY ACP Server"),
        "glog noise on stderr: {stderr}"
    );
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("stdout is only JSON-RPC");
        assert_eq!(v["jsonrpc"], json!("2.0"));
    }
}

#[tokio::test]
async fn a_line_that_is_not_json_gets_a_parse_error_and_the_agent_goes_on() {
    let sb = Sandbox::new();
    let mut agent = sb.spawn();
    agent.send(json!("not an object")).await;
    let err = agent.recv().await.expect("an error response");
    assert_eq!(err["error"]["code"], json!(-32600));
    assert_eq!(err["id"], json!(null));
    let (_, resp) = agent.call("session/list", json!({})).await;
    assert!(resp["result"]["sessions"].is_array(), "{resp}");
    agent.finish().await;
}

#[tokio::test]
async fn cancel_sent_as_a_request_is_method_not_found() {
    // RC01 answered a `session/cancel` request with -32601 (docs/agy-acp-reference.md §2.8).
    let sb = Sandbox::new();
    let mut agent = sb.spawn();
    let (_, resp) = agent.call("session/cancel", json!({"sessionId":"x"})).await;
    assert_eq!(resp["error"]["code"], json!(-32601));
    assert_eq!(resp["error"]["data"]["method"], json!("session/cancel"));
    agent.finish().await;
}

/// Runs `fake-agy-acp ARG` with stdin left open (a terminal user's view): its stdout
/// and exit status, or a failure when it has not exited within 20 s.
fn info_flag(arg: &str) -> (String, Option<i32>) {
    let mut child = std::process::Command::new(crate::support::agent_bin())
        .arg(arg)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn fake-agy-acp");
    let _stdin_kept_open = child.stdin.take();
    let mut stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        let _ = tx.send(text);
    });
    let Ok(text) = rx.recv_timeout(std::time::Duration::from_secs(20)) else {
        let _ = child.kill();
        panic!("`fake-agy-acp {arg}` waited on stdin instead of answering");
    };
    (text, child.wait().expect("wait").code())
}

#[test]
fn help_and_version_answer_without_waiting_on_stdin() {
    let (help, code) = info_flag("--help");
    assert_eq!(code, Some(0));
    assert!(help.contains("agy_acp_server"), "{help}");
    assert!(help.contains(&format!("{FAKE_AGY_ACP_SCRIPT} ")), "{help}");
    let (version, code) = info_flag("--version");
    assert_eq!(code, Some(0));
    assert_eq!(
        version,
        format!("fake-agy-acp {}\n", env!("CARGO_PKG_VERSION"))
    );
}
