//! The driver loop: reads driver-protocol requests line by line, runs them concurrently
//! (several `generate` requests may be in flight; the oneshot semaphore admits two at a
//! time), and replies by id.

use crate::acp::{AcpCommand, AcpSessions};
use crate::environment::Environment;
use crate::failure::{success_reply, Failure};
use crate::faults::FaultSet;
use crate::oneshot::{generate, GenerateRequest, MAX_CONCURRENCY};
use crate::outbox::Outbox;
use crate::session::{Selection, Sessions};
use crate::text::Conversations;
use agy_process::lines::{AsyncBoundedLines, DEFAULT_LINE_CAP};
use agy_protocol::driver::{OpResult, Request, RequestOp, DRIVER_PROTOCOL_VERSION};
use agy_protocol::Profile;
use std::future::Future;
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

/// The name `hello` answers with.
pub const DRIVER_NAME: &str = "agy-reference-adapter";
/// The profiles the driver implements; `mcp` is served by `agy-reference-adapter mcp`,
/// an MCP server, not by the driver.
pub const PROFILES: [Profile; 4] = [
    Profile::Oneshot,
    Profile::Session,
    Profile::Acp,
    Profile::Text,
];

/// A request line that cannot be served, with the id to answer when one was readable.
fn reject(line: &str) -> Option<(u64, Failure)> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    let id = value.get("id")?.as_u64()?;
    let why = match value.get("v").and_then(|v| v.as_u64()) {
        Some(v) if v != u64::from(DRIVER_PROTOCOL_VERSION) => format!(
            "driver protocol version {v} is not supported; this driver speaks {DRIVER_PROTOCOL_VERSION}"
        ),
        _ => match serde_json::from_value::<Request>(value) {
            Ok(_) => return None,
            Err(e) => format!("invalid request: {e}"),
        },
    };
    Some((id, Failure::bad_request(why)))
}

/// Parses one request line; `Err` carries the reply to send (or nothing when the line
/// has no usable id).
fn parse_request(line: &str) -> Result<Request, Option<(u64, Failure)>> {
    if let Some(rejected) = reject(line) {
        return Err(Some(rejected));
    }
    serde_json::from_str::<Request>(line).map_err(|_| None)
}

/// Serves requests from `input` until it closes, a `shutdown` op arrives, or `stop`
/// resolves (a signal); then releases every process and returns. After stdin closes or
/// `shutdown`, work already requested finishes first; after a signal it is cancelled.
pub async fn serve<R, W, S>(
    env: Environment,
    faults: FaultSet,
    input: R,
    output: W,
    stop: S,
) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
    S: Future<Output = ()>,
{
    let (outbox, writer) = Outbox::start(output);
    let mut work = Work::new(Arc::new(env), Arc::new(faults), outbox.clone());
    let mut lines = AsyncBoundedLines::new(input, DEFAULT_LINE_CAP);
    let mut stop = std::pin::pin!(stop);
    let ending = loop {
        let read = tokio::select! {
            () = &mut stop => break Ending::Signal,
            read = lines.next() => read,
            // Reap finished generations so the set does not grow without bound.
            Some(_) = work.generations.join_next(), if !work.generations.is_empty() => continue,
        };
        let line = match read {
            Some(Ok(item)) => item.into_text("stdin"),
            None | Some(Err(_)) => break Ending::InputClosed,
        };
        let Some(request) = read_request(line, &outbox) else {
            continue;
        };
        if let RequestOp::Shutdown {} = request.op {
            break Ending::Shutdown(request.id);
        }
        work.dispatch(request.id, request.op);
    };
    work.finish(ending).await;
    drop(outbox);
    let _ = writer.await;
    Ok(())
}

/// Why the request loop ended.
enum Ending {
    /// stdin closed: finish the work in flight.
    InputClosed,
    /// A `shutdown` request (its id): finish the work in flight, then answer it.
    Shutdown(u64),
    /// A signal: end the work in flight now.
    Signal,
}

/// The request a line holds. A line the reader did not take as text, or that is not a
/// request, is named on stderr and skipped; a request that cannot be served but has a
/// readable id is answered with the reason.
fn read_request(line: Result<String, String>, outbox: &Outbox) -> Option<Request> {
    let line = match line {
        Ok(line) => line,
        Err(problem) => {
            eprintln!("agy-reference-adapter: ignoring a line that is not a request: {problem}");
            return None;
        }
    };
    if line.trim().is_empty() {
        return None;
    }
    match parse_request(&line) {
        Ok(r) => Some(r),
        Err(Some((id, failure))) => {
            outbox.send(failure.into_reply(id, OpResult::default()));
            None
        }
        Err(None) => {
            eprintln!("agy-reference-adapter: ignoring a line that is not a request: {line:?}");
            None
        }
    }
}

/// The reply to an op of a driverless profile, which no driver answers.
fn driverless_op(id: u64, op: &RequestOp) -> agy_protocol::driver::Reply {
    Failure::bad_request(format!(
        "`{}` is an op of a driverless profile: the reference adapter serves it as the server `agy-reference-adapter acp-agent` or `agy-reference-adapter mcp`, reached through `agy-harness bridge`, not as a driver",
        op.name()
    ))
    .into_reply(id, OpResult::default())
}

/// The `hello` reply: the driver's name and the profiles it implements.
fn hello_reply(id: u64) -> agy_protocol::driver::Reply {
    success_reply(
        id,
        OpResult {
            driver: Some(DRIVER_NAME.to_string()),
            profiles: PROFILES.to_vec(),
            ..OpResult::default()
        },
    )
}

/// Everything the requests set going: generations in flight, sessions of each profile.
struct Work {
    env: Arc<Environment>,
    faults: Arc<FaultSet>,
    outbox: Outbox,
    permits: Arc<Semaphore>,
    sessions: Sessions,
    acp: AcpSessions,
    conversations: Conversations,
    generations: JoinSet<()>,
}

impl Work {
    fn new(env: Arc<Environment>, faults: Arc<FaultSet>, outbox: Outbox) -> Work {
        Work {
            sessions: Sessions::new(Arc::clone(&env), Arc::clone(&faults), outbox.clone()),
            acp: AcpSessions::new(Arc::clone(&env), Arc::clone(&faults), outbox.clone()),
            permits: Arc::new(Semaphore::new(MAX_CONCURRENCY)),
            conversations: Conversations::default(),
            generations: JoinSet::new(),
            env,
            faults,
            outbox,
        }
    }

    /// Starts or answers one request (every op but `shutdown`).
    fn dispatch(&mut self, id: u64, op: RequestOp) {
        let (sessions, acp) = (&mut self.sessions, &mut self.acp);
        match op {
            RequestOp::Hello {} => self.outbox.send(hello_reply(id)),
            RequestOp::Generate {
                prompt,
                aspect,
                timeout_s,
                references,
                settings,
            } => self.spawn_generation(
                id,
                GenerateRequest {
                    prompt,
                    aspect,
                    timeout_s,
                    references,
                    settings,
                },
            ),
            RequestOp::Open {
                session,
                model,
                effort,
                permission,
            } => sessions.open(
                id,
                session,
                Selection {
                    model,
                    effort,
                    permission,
                },
            ),
            RequestOp::Turn { session, text } => sessions.turn(id, &session, text),
            RequestOp::Select {
                session,
                model,
                effort,
                permission,
            } => sessions.select(id, &session, model, effort, permission),
            RequestOp::Cancel { session } => sessions.cancel(id, &session),
            RequestOp::Close { session } => sessions.close(id, &session),
            acp_op @ (RequestOp::AcpNew { .. }
            | RequestOp::AcpPrompt { .. }
            | RequestOp::AcpCancel { .. }
            | RequestOp::AcpRestore { .. }
            | RequestOp::AcpRestartAgent { .. }
            | RequestOp::AcpStatus { .. }
            | RequestOp::AcpClose { .. }) => dispatch_acp(acp, id, acp_op),
            RequestOp::Ask(req) => self.spawn_ask(id, req),
            // The loop ends on `shutdown`; it never reaches here.
            RequestOp::Shutdown {} => {}
            // Driverless ops (`agent_*`, `tool_*`) are the harness's bridge's, never a
            // driver's. Listed one by one, so a new op makes the compiler ask for its arm.
            other @ (RequestOp::ToolList {}
            | RequestOp::ToolCall { .. }
            | RequestOp::AgentInitialize {}
            | RequestOp::AgentNew { .. }
            | RequestOp::AgentPrompt { .. }
            | RequestOp::AgentCancel { .. }
            | RequestOp::AgentLoad { .. }
            | RequestOp::AgentKill {}
            | RequestOp::AgentClose {}) => self.outbox.send(driverless_op(id, &other)),
        }
    }

    /// Runs one `generate` on a task of its own, admitted by the oneshot semaphore.
    fn spawn_generation(&mut self, id: u64, req: GenerateRequest) {
        let (env, faults, outbox, permits) = (
            Arc::clone(&self.env),
            Arc::clone(&self.faults),
            self.outbox.clone(),
            Arc::clone(&self.permits),
        );
        self.generations.spawn(async move {
            let Ok(_permit) = permits.acquire_owned().await else {
                return;
            };
            let reply = match generate(&env, &faults, id, req).await {
                Ok(d) => success_reply(
                    id,
                    OpResult {
                        image: d.image.map(|p| p.display().to_string()),
                        extra: Some(d.evidence),
                        ..OpResult::default()
                    },
                ),
                Err((f, evidence)) => f.into_reply(
                    id,
                    OpResult {
                        extra: (!evidence.is_null()).then_some(evidence),
                        ..OpResult::default()
                    },
                ),
            };
            outbox.send(reply);
        });
    }

    /// Runs one `ask` on a task of its own (asks on one conversation wait for each
    /// other there).
    fn spawn_ask(&mut self, id: u64, req: agy_protocol::driver::AskRequest) {
        let (env, faults, outbox, conversations) = (
            Arc::clone(&self.env),
            Arc::clone(&self.faults),
            self.outbox.clone(),
            self.conversations.clone(),
        );
        self.generations.spawn(async move {
            let reply = match crate::text::ask(&env, &faults, &conversations, req).await {
                Ok(a) => success_reply(
                    id,
                    OpResult {
                        text: Some(a.text),
                        conversation_id: a.conversation_id,
                        usage: a.usage,
                        ..OpResult::default()
                    },
                ),
                Err(f) => {
                    let hint = crate::text::hint(f.name);
                    let mut reply = f.into_reply(id, OpResult::default());
                    if let Some(e) = reply.error.as_mut() {
                        e.hint = hint.map(str::to_string);
                    }
                    reply
                }
            };
            outbox.send(reply);
        });
    }

    /// Ends the work: after a signal, generations in flight end now (their guards kill
    /// agy's group); otherwise they finish. Then every session is released, and a
    /// `shutdown` is answered last.
    async fn finish(mut self, ending: Ending) {
        let by_signal = matches!(ending, Ending::Signal);
        if by_signal {
            self.generations.shutdown().await;
        } else {
            while self.generations.join_next().await.is_some() {}
        }
        self.sessions.shutdown(!by_signal).await;
        self.acp.shutdown(!by_signal).await;
        if let Ending::Shutdown(id) = ending {
            self.outbox.send(success_reply(id, OpResult::default()));
        }
    }
}

/// Hands an `acp_*` op to the ACP session it names.
fn dispatch_acp(acp: &mut AcpSessions, id: u64, op: RequestOp) {
    let (session, command) = match op {
        RequestOp::AcpNew {
            session,
            model,
            mode,
            permission,
        } => (
            session,
            AcpCommand::New {
                id,
                model,
                mode,
                permission,
            },
        ),
        RequestOp::AcpPrompt { session, text } => (session, AcpCommand::Prompt { id, text }),
        RequestOp::AcpCancel { session } => (session, AcpCommand::Cancel { id }),
        RequestOp::AcpRestore { session } => (session, AcpCommand::Restore { id }),
        RequestOp::AcpRestartAgent { session } => (session, AcpCommand::RestartAgent { id }),
        RequestOp::AcpStatus { session } => (session, AcpCommand::Status { id }),
        RequestOp::AcpClose { session } => (session, AcpCommand::Close { id }),
        // `dispatch` sends only the ops above here.
        _ => return,
    };
    acp.dispatch(&session, command);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_version_is_rejected_with_its_id() {
        let (id, f) = reject(r#"{"v":2,"id":7,"op":"hello"}"#).expect("rejected");
        assert_eq!(id, 7);
        assert!(f.message.contains("version 2"), "{}", f.message);
    }

    #[test]
    fn an_unknown_op_is_rejected_with_its_id() {
        let (id, f) = reject(r#"{"v":1,"id":3,"op":"fly"}"#).expect("rejected");
        assert_eq!(id, 3);
        assert!(f.message.contains("invalid request"), "{}", f.message);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_request_lines_never_panic(line in "\\PC*") {
            let _ = parse_request(&line);
        }

        #[test]
        fn any_json_with_an_id_gets_an_answer_or_parses(id in 0u64..1000, op in "[a-z]{0,8}", v in 0u64..3) {
            let line = format!(r#"{{"v":{v},"id":{id},"op":"{op}"}}"#);
            match parse_request(&line) {
                Ok(r) => proptest::prop_assert_eq!(r.id, id),
                Err(Some((rid, _))) => proptest::prop_assert_eq!(rid, id),
                Err(None) => proptest::prop_assert!(false, "a request with an id must be answered"),
            }
        }
    }

    #[test]
    fn a_good_request_parses_and_garbage_has_no_id() {
        assert!(parse_request(r#"{"v":1,"id":1,"op":"hello"}"#).is_ok());
        assert!(matches!(parse_request("not json"), Err(None)));
    }
}
