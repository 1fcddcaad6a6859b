//! Arbitrary bytes on stdin never crash the agent: each bad line gets an error
//! response and the agent still answers the next request.

use crate::support::Sandbox;
use proptest::prelude::*;
use serde_json::json;

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
