//! The fake driven by the `agent-client-protocol` SDK's client side: if the SDK's
//! typed client can initialize, create a session, prompt, answer a permission and
//! receive every update, the fake speaks valid ACP.

use crate::support::{Sandbox, WAIT};
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    ContentBlock, InitializeRequest, NewSessionRequest, PermissionOptionKind, PromptRequest,
    RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
    SelectedPermissionOutcome, SessionNotification, StopReason, TextContent,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Agent, ByteStreams, Client};
use std::sync::{Arc, Mutex};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

#[tokio::test]
async fn the_sdk_client_completes_a_turn_with_a_permission_request() {
    let sb = Sandbox::new();
    let mut child = sb.command().spawn().expect("spawn");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let transport = ByteStreams::new(stdin.compat_write(), stdout.compat());
    let updates: Arc<Mutex<Vec<SessionNotification>>> = Arc::default();
    let seen = updates.clone();
    let cwd = sb.cwd();
    let run = Client
        .v1()
        .on_receive_notification(
            async move |n: SessionNotification, _cx| {
                seen.lock().expect("lock").push(n);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |req: RequestPermissionRequest, responder, _cx| {
                let allow = req
                    .options
                    .iter()
                    .find(|o| o.kind == PermissionOptionKind::AllowOnce)
                    .map(|o| o.option_id.clone());
                let outcome = match allow {
                    Some(id) => {
                        RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id))
                    }
                    None => RequestPermissionOutcome::Cancelled,
                };
                responder.respond(RequestPermissionResponse::new(outcome))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
            let init = cx
                .send_request(InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            let info = init.agent_info.map(|i| i.name).unwrap_or_default();
            let session = cx
                .send_request(NewSessionRequest::new(cwd.clone()))
                .block_task()
                .await?;
            let done = cx
                .send_request(PromptRequest::new(
                    session.session_id,
                    vec![ContentBlock::Text(TextContent::new(
                        "Create hello.txt containing ok",
                    ))],
                ))
                .block_task()
                .await?;
            Ok((info, done.stop_reason))
        });
    let (info, stop) = tokio::time::timeout(WAIT, run)
        .await
        .expect("the SDK client finished in time")
        .expect("the SDK accepted every message");
    assert_eq!(info, "antigravity-acp");
    assert_eq!(stop, StopReason::EndTurn);
    let count = updates.lock().expect("lock").len();
    assert!(
        count >= 6,
        "commands, text, tool call, two updates, text, usage: got {count}"
    );
    let _ = child.start_kill();
    let _ = tokio::time::timeout(WAIT, child.wait()).await;
}
