//! The `agent_*` ops, each answered by the ACP calls it stands for.

use super::agent::{start, Live};
use super::error::AgentError;
use super::seen::{Policy, Seen, TurnSeen};
use super::verdict::{prompt_reply, PromptEnd};
use agent_client_protocol::v1::schema::{
    CancelNotification, ContentBlock, LoadSessionRequest, NewSessionRequest, PromptRequest,
    ResumeSessionRequest, SessionId, TextContent,
};
use agy_protocol::driver::{ErrorInfo, OpResult, Outcome, Reply};
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

/// How long an agent has to exit after its stdin closed or a SIGKILL.
const EXIT_WAIT: Duration = Duration::from_secs(5);

/// A prompt sent, its response not yet in.
pub(super) struct Pending {
    id: u64,
    live: Arc<Live>,
    sid: SessionId,
    rx: oneshot::Receiver<PromptAnswer>,
}

type PromptAnswer = (
    Result<agent_client_protocol::v1::schema::PromptResponse, agent_client_protocol::Error>,
    TurnSeen,
);

/// The bridge's state: the adapter command, the running agent, the sessions by handle.
pub(super) struct Bridge {
    command: Vec<String>,
    seen: Seen,
    agent: Mutex<Option<Arc<Live>>>,
    sessions: Mutex<HashMap<String, SessionId>>,
    starting: tokio::sync::Mutex<()>,
}

fn ok(id: u64, result: OpResult) -> Reply {
    Reply {
        id,
        ok: true,
        outcome: Some(Outcome::Success),
        retryable: Some(false),
        error: None,
        result,
    }
}

fn failed(id: u64, outcome: Outcome, name: &str, message: impl Into<String>) -> Reply {
    Reply {
        id,
        ok: false,
        outcome: Some(outcome),
        retryable: Some(outcome.default_retryable()),
        error: Some(ErrorInfo {
            name: name.to_string(),
            message: message.into(),
            hint: None,
        }),
        result: OpResult::default(),
    }
}

fn bad_request(id: u64, message: impl Into<String>) -> Reply {
    failed(id, Outcome::Permanent, "bad_request", message)
}

fn extra(value: serde_json::Value) -> OpResult {
    OpResult {
        extra: Some(value),
        ..OpResult::default()
    }
}

/// A JSON-RPC error the agent answered with, as a reply.
fn error_reply(id: u64, e: agent_client_protocol::Error) -> Reply {
    let end = PromptEnd::Error {
        code: e.code.into(),
        message: e.message,
        data: e.data,
    };
    prompt_reply(id, end, TurnSeen::default())
}

/// Awaits `request` unless the agent ends first.
async fn answered<T>(
    live: &Live,
    request: impl Future<Output = Result<T, agent_client_protocol::Error>>,
) -> Result<Result<T, agent_client_protocol::Error>, AgentError> {
    tokio::select! {
        r = request => Ok(r),
        how = live.exited() => Err(AgentError::Ended { how }),
    }
}

fn agent_gone(id: u64, why: AgentError) -> Reply {
    failed(id, Outcome::Transient, "agent_exited", why.to_string())
}

impl Bridge {
    /// A bridge to `command`, which is started at the first op that needs it.
    pub(super) fn new(command: Vec<String>) -> Bridge {
        Bridge {
            command,
            seen: Seen::default(),
            agent: Mutex::new(None),
            sessions: Mutex::new(HashMap::new()),
            starting: tokio::sync::Mutex::new(()),
        }
    }

    fn running(&self) -> Option<Arc<Live>> {
        self.agent.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn take_agent(&self) -> Option<Arc<Live>> {
        self.agent.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn session(&self, handle: &str) -> Option<SessionId> {
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(handle)
            .cloned()
    }

    /// The running agent, started and initialized first when there is none.
    async fn agent(&self) -> Result<Arc<Live>, AgentError> {
        let _one_at_a_time = self.starting.lock().await;
        if let Some(live) = self.running() {
            return Ok(live);
        }
        let live = Arc::new(start(&self.command, &self.seen).await?);
        *self.agent.lock().unwrap_or_else(|e| e.into_inner()) = Some(live.clone());
        Ok(live)
    }

    /// `agent_initialize`.
    pub(super) async fn initialize(&self, id: u64) -> Reply {
        match self.agent().await {
            Ok(live) => ok(
                id,
                extra(serde_json::to_value(&live.init).unwrap_or_default()),
            ),
            Err(why) => agent_gone(id, why),
        }
    }

    /// `agent_new`: `session/new` with the session's folder as its `cwd`.
    pub(super) async fn new_session(
        &self,
        id: u64,
        handle: &str,
        permission: Option<Policy>,
        folder: Option<&str>,
    ) -> Reply {
        let policy = permission.unwrap_or_default();
        let cwd = match super::session_folder::session_cwd(folder) {
            Ok(cwd) => cwd,
            Err(why) => return bad_request(id, why.to_string()),
        };
        let live = match self.agent().await {
            Ok(live) => live,
            Err(why) => return agent_gone(id, why),
        };
        let request = live
            .cx
            .send_request(NewSessionRequest::new(cwd.clone()))
            .block_task();
        match answered(&live, request).await {
            Ok(Ok(created)) => {
                let sid = created.session_id;
                self.seen.set_policy(&sid, policy);
                self.sessions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(handle.to_string(), sid.clone());
                ok(
                    id,
                    extra(serde_json::json!({ "session_id": sid, "cwd": cwd })),
                )
            }
            Ok(Err(e)) => error_reply(id, e),
            Err(why) => agent_gone(id, why),
        }
    }

    /// `agent_prompt`, first half: the `session/prompt` published now, in the order the
    /// ops came (so an `agent_cancel` sent after it reaches the agent after it).
    pub(super) fn send_prompt(
        &self,
        id: u64,
        handle: &str,
        text: &str,
    ) -> Result<Pending, Box<Reply>> {
        let (Some(live), Some(sid)) = (self.running(), self.session(handle)) else {
            let why = format!(
                "no session `{handle}` on a running agent; send `agent_new` (or `agent_load`) first"
            );
            return Err(Box::new(bad_request(id, why)));
        };
        self.seen.begin_prompt(&sid);
        let (tx, rx) = oneshot::channel();
        let (seen, at_response) = (self.seen.clone(), sid.clone());
        let block = ContentBlock::Text(TextContent::new(text));
        let request = PromptRequest::new(sid.clone(), vec![block]);
        // The turn ends when its response is dispatched, before any later message: a
        // chunk after it is late, not part of the turn.
        let sent = live
            .cx
            .prepare_request(request)
            .on_receiving_result(move |result| {
                let turn = seen.end(&at_response);
                let _ = tx.send((result, turn));
                async { Ok(()) }
            });
        match sent {
            Ok(()) => Ok(Pending { id, live, sid, rx }),
            Err(e) => {
                self.seen.end(&sid);
                Err(Box::new(error_reply(id, e)))
            }
        }
    }

    /// `agent_prompt`, second half: the response (or the agent's end), with the text of
    /// every chunk up to it.
    pub(super) async fn finish_prompt(&self, p: Pending) -> Reply {
        let id = p.id;
        let response = async {
            p.rx.await
                .map_err(|_| agent_client_protocol::Error::internal_error())
        };
        match answered(&p.live, response).await {
            Ok(Ok((Ok(r), turn))) => prompt_reply(id, PromptEnd::Stop(r.stop_reason), turn),
            Ok(Ok((Err(e), turn))) => {
                let end = PromptEnd::Error {
                    code: e.code.into(),
                    message: e.message,
                    data: e.data,
                };
                prompt_reply(id, end, turn)
            }
            Ok(Err(e)) => error_reply(id, e),
            Err(why) => {
                self.seen.end(&p.sid);
                agent_gone(id, why)
            }
        }
    }

    /// `agent_cancel`: the notification sent now, after any prompt sent before it.
    pub(super) fn cancel(&self, id: u64, handle: &str) -> Reply {
        let (Some(live), Some(sid)) = (self.running(), self.session(handle)) else {
            return bad_request(id, format!("no session `{handle}` on a running agent"));
        };
        self.seen.cancelled(&sid);
        match live.cx.send_notification(CancelNotification::new(sid)) {
            Ok(()) => ok(id, OpResult::default()),
            Err(e) => error_reply(id, e),
        }
    }

    /// `agent_load`: `session/load` when advertised, else `session/resume` when
    /// advertised, else a failure saying neither is.
    pub(super) async fn load(&self, id: u64, handle: &str) -> Reply {
        let Some(sid) = self.session(handle) else {
            return bad_request(id, format!("no session `{handle}`; send `agent_new` first"));
        };
        let live = match self.agent().await {
            Ok(live) => live,
            Err(why) => return agent_gone(id, why),
        };
        let caps = &live.init.agent_capabilities;
        let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
        self.seen.begin_replay(&sid);
        let (method, result) = if caps.load_session {
            let r = live
                .cx
                .send_request(LoadSessionRequest::new(sid.clone(), cwd))
                .block_task();
            (
                "session/load",
                answered(&live, r).await.map(|r| r.map(|_| ())),
            )
        } else if caps.session_capabilities.resume.is_some() {
            let r = live
                .cx
                .send_request(ResumeSessionRequest::new(sid.clone(), cwd))
                .block_task();
            (
                "session/resume",
                answered(&live, r).await.map(|r| r.map(|_| ())),
            )
        } else {
            self.seen.end(&sid);
            return failed(
                id,
                Outcome::Permanent,
                super::NOT_ADVERTISED,
                "the agent advertises neither loadSession nor sessionCapabilities.resume",
            );
        };
        self.seen.end(&sid);
        match result {
            Ok(Ok(())) => ok(id, extra(serde_json::json!({ "method": method }))),
            Ok(Err(e)) => error_reply(id, e),
            Err(why) => agent_gone(id, why),
        }
    }

    /// `agent_kill`, first half: SIGKILL now, in the order the ops came.
    pub(super) fn send_kill(&self) -> Option<Arc<Live>> {
        let live = self.take_agent()?;
        live.kill();
        Some(live)
    }

    /// `agent_kill`, second half: the agent's end.
    pub(super) async fn kill(&self, id: u64, live: Option<Arc<Live>>) -> Reply {
        let Some(live) = live else {
            return bad_request(id, "no agent is running");
        };
        let how = live.wait_exit(EXIT_WAIT).await;
        ok(id, extra(serde_json::json!({ "exit": how })))
    }

    /// `agent_close`: the agent's stdin closed, its exit waited for; the text is every
    /// chunk it sent outside a prompt, and `stray_responses` every response it sent
    /// that answered no request.
    pub(super) async fn close(&self, id: u64, live: Option<Arc<Live>>) -> Reply {
        let Some(live) = live else {
            return bad_request(id, "no agent is running");
        };
        match live.wait_exit(EXIT_WAIT).await {
            Some(how) => ok(
                id,
                OpResult {
                    text: Some(self.seen.late()),
                    extra: Some(serde_json::json!({
                        "exit": how,
                        "permissions": self.seen.permissions(),
                        "stray_responses": self.seen.strays().all(),
                    })),
                    ..OpResult::default()
                },
            ),
            None => {
                live.kill();
                failed(
                    id,
                    Outcome::Permanent,
                    "agent_stayed",
                    format!(
                        "the agent did not exit within {EXIT_WAIT:?} of its stdin closing; killed"
                    ),
                )
            }
        }
    }

    /// `agent_close`, first half: the connection ended now, in the order the ops came.
    pub(super) fn send_close(&self) -> Option<Arc<Live>> {
        let live = self.take_agent()?;
        live.close();
        Some(live)
    }

    /// Ends the agent at the end of the run: stdin closed, then SIGKILL if it stays.
    pub(super) async fn finish(&self) {
        if let Some(live) = self.take_agent() {
            live.close();
            if live.wait_exit(EXIT_WAIT).await.is_none() {
                live.kill();
                let _ = live.wait_exit(EXIT_WAIT).await;
            }
        }
    }
}
