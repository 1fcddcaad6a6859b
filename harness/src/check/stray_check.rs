//! `stray_responses` of an op: the responses the agent sent that answered no request
//! of the client, as the acp-agent bridge reports them on `agent_close`
//! (`result.extra.stray_responses`). JSON-RPC never answers a notification.

use super::failure::Failure;
use agy_protocol::driver::Reply;

/// The stray responses a reply reports, or `None` when it reports none at all.
fn reported(reply: &Reply) -> Option<Vec<String>> {
    let list = reply
        .result
        .extra
        .as_ref()?
        .get("stray_responses")?
        .as_array()?;
    Some(
        list.iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect(),
    )
}

/// A failure when the reply reports other than `want` stray responses, with each one.
pub(super) fn stray_check(want: u32, reply: &Reply, place: &str) -> Option<Failure> {
    let Some(strays) = reported(reply) else {
        return Some(Failure::new(
            place,
            "stray_responses",
            want.to_string(),
            "not reported: only the acp-agent bridge's `agent_close` reports them",
        ));
    };
    (strays.len() != want as usize).then(|| {
        Failure::new(
            place,
            "stray_responses",
            want.to_string(),
            strays.len().to_string(),
        )
        .closest("a notification (a message without an `id`, as `session/cancel`) gets no response")
        .evidence(strays)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_reply_with as close_reply;

    #[test]
    fn no_stray_response_holds() {
        let reply = close_reply(serde_json::json!({ "stray_responses": [] }));
        assert_eq!(stray_check(0, &reply, "op 4 agent_close"), None);
    }

    #[test]
    fn a_response_to_the_cancel_notification_fails_showing_it() {
        let line = r#"{"jsonrpc":"2.0","id":null,"result":null}"#;
        let reply = close_reply(serde_json::json!({ "stray_responses": [line] }));
        let failure = stray_check(0, &reply, "op 4 agent_close").expect("fails");
        assert_eq!(failure.observed, "1");
        assert_eq!(failure.evidence, [line]);
    }

    #[test]
    fn a_reply_that_reports_nothing_fails_saying_so() {
        let reply = close_reply(serde_json::json!({ "exit": "exit 0" }));
        let failure = stray_check(0, &reply, "op 4 agent_close").expect("fails");
        assert!(failure.observed.contains("not reported"), "{failure:?}");
    }
}
