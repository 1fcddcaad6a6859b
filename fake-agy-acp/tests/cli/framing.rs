//! Arbitrary bytes on stdin never crash the agent: each bad line gets an error
//! response and the agent still answers the next request.

use crate::support::Sandbox;
use agy_protocol::acp::AcpKind;
use proptest::prelude::*;
use serde_json::json;

// Regression: a line that is not UTF-8 was converted (U+FFFD) and parsed as if it were
// the text sent; now it is reported where it stands and skipped, like every reader.
#[tokio::test]
async fn a_line_that_is_not_utf8_is_reported_and_the_next_request_is_answered() {
    let sb = Sandbox::new();
    let mut agent = sb.spawn();
    agent
        .send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session/list\",\"params\":{\"x\":\"\xff\"}}")
        .await;
    let bad = agent.recv().await.expect("an answer to the bad line");
    assert_eq!(bad["error"]["code"], -32700, "{bad}");
    assert_eq!(bad["id"], serde_json::Value::Null, "{bad}");
    let message = bad["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("stdin:1:64: line is not valid UTF-8 (byte 0xff;"),
        "{bad}"
    );
    let (_, resp) = agent.call("session/list", json!({})).await;
    assert!(resp["result"]["sessions"].is_array(), "{resp}");
    let (status, _) = agent.finish().await;
    assert!(status.success(), "{status:?}");
    let invalid: Vec<_> = sb
        .journal()
        .into_iter()
        .filter(|e| e.kind == AcpKind::Invalid)
        .collect();
    assert_eq!(invalid.len(), 1, "{invalid:?}");
}

fn lines() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(
        prop_oneof![
            "\\PC{0,40}",
            Just(
                "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"session/prompt\",\"params\":{}}"
                    .to_string()
            ),
            Just(
                "{\"jsonrpc\":\"2.0\",\"id\":98,\"method\":\"session/new\",\"params\":[1]}"
                    .to_string()
            ),
            Just("{\"jsonrpc\":\"2.0\",\"id\":97,\"result\":{}}".to_string()),
            Just("{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\"}".to_string()),
        ],
        1..6,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn garbage_lines_never_stop_the_agent(garbage in lines()) {
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        rt.block_on(async {
            let sb = Sandbox::new();
            let mut agent = sb.spawn();
            for line in &garbage {
                agent.send_line(line).await;
            }
            let (_, resp) = agent.call("session/list", json!({})).await;
            assert!(resp["result"]["sessions"].is_array(), "after {garbage:?}: {resp}");
            let (status, _) = agent.finish().await;
            assert!(status.success(), "after {garbage:?}: {status:?}");
        });
    }
}
