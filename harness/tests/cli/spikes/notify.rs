//! `--notify`: the JSON report reaches a webhook; a webhook that is down is reported and
//! changes nothing else.

use super::support::{fake_agy, workspace, TIME_SCALE};
use assert_cmd::Command;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn spikes_s5() -> Command {
    let mut cmd = Command::cargo_bin("agy-harness").expect("bin");
    cmd.args([
        "spikes",
        "--only",
        "S5",
        "--color",
        "never",
        "--time-scale",
        &TIME_SCALE.to_string(),
    ])
    .arg("--spikes")
    .arg(workspace().join("spikes"))
    .arg("--fake-agy")
    .arg(fake_agy());
    cmd
}

#[tokio::test(flavor = "multi_thread")]
async fn the_json_report_is_posted_to_the_webhook() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/drift"))
        .respond_with(ResponseTemplate::new(204))
        .expect(1)
        .mount(&server)
        .await;
    let url = format!("{}/drift", server.uri());
    let out = tokio::task::spawn_blocking(move || spikes_s5().arg("--notify").arg(url).output())
        .await
        .expect("join")
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = server.received_requests().await.expect("recorded");
    let body: serde_json::Value = serde_json::from_slice(&requests[0].body).expect("json body");
    assert_eq!(body["summary"]["drifted"], 0);
    assert!(body["facts"]
        .as_array()
        .is_some_and(|f| f.iter().any(|f| f["fact"] == "S5.image-generated")));
}

#[test]
fn a_webhook_that_is_down_is_reported_and_the_verdict_stands() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port();
    let out = spikes_s5()
        .arg("--notify")
        .arg(format!("http://127.0.0.1:{port}/drift"))
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("notify failed"), "{stdout}");
    assert!(stdout.contains("0 drifted"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_webhook_error_status_is_reported() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&server)
        .await;
    let url = server.uri();
    let out = tokio::task::spawn_blocking(move || spikes_s5().arg("--notify").arg(url).output())
        .await
        .expect("join")
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("notify failed") && stdout.contains("500"),
        "{stdout}"
    );
}
