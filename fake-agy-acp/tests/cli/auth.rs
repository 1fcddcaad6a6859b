//! Authentication: the `-32000` gate, `authenticate`, tokens that survive a restart
//! (docs/agy-acp-reference.md §2.4).

use crate::support::Sandbox;
use serde_json::json;

const AUTH_REQUIRED: &str = "[agent]\nauth = \"required\"\n";

#[tokio::test]
async fn session_new_needs_authentication_until_authenticate_succeeds() {
    let sb = Sandbox::new().with_script(AUTH_REQUIRED);
    let mut agent = sb.spawn();
    agent
        .call(
            "initialize",
            json!({"protocolVersion":1,"clientCapabilities":{}}),
        )
        .await;
    let (_, list) = agent.call("session/list", json!({})).await;
    assert_eq!(
        list["result"],
        json!({"sessions": []}),
        "unauthenticated list is empty"
    );
    let (_, denied) = agent
        .call("session/new", json!({"cwd": sb.cwd(), "mcpServers": []}))
        .await;
    assert_eq!(denied["error"]["code"], json!(-32000));
    assert_eq!(denied["error"]["message"], json!("Authentication required"));
    let (_, bad) = agent
        .call("authenticate", json!({"method": "gemini-api-key"}))
        .await;
    assert_eq!(bad["error"]["code"], json!(-32602));
    assert_eq!(
        bad["error"]["data"]["errors"][0]["loc"],
        json!(["methodId"])
    );
    assert_eq!(
        bad["error"]["data"]["errors"][0]["type"],
        json!("value_error.missing")
    );
    let (_, ok) = agent
        .call("authenticate", json!({"methodId": "gemini-api-key"}))
        .await;
    assert_eq!(ok["result"], json!({}));
    let (_, created) = agent
        .call("session/new", json!({"cwd": sb.cwd(), "mcpServers": []}))
        .await;
    assert!(created["result"]["sessionId"].is_string(), "{created}");
    agent.finish().await;

    // The token persisted: a new process needs no `authenticate` (docs/agy-acp-reference.md §2.4).
    let mut again = sb.spawn();
    let (_, created) = again
        .call("session/new", json!({"cwd": sb.cwd(), "mcpServers": []}))
        .await;
    assert!(created["result"]["sessionId"].is_string(), "{created}");
    again.finish().await;
}
