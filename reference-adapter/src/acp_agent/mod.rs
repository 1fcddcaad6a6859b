//! `agy-reference-adapter acp-agent`: the reference ACP agent in front of agy, for the
//! `acp-agent` profile. It serves ACP on stdio through the agent side of the official
//! `agent-client-protocol` SDK and runs one agy print run per prompt ([`agy_run`]) in
//! the session's `cwd`, continuing the session's conversation with `--conversation`;
//! what a finished run is to the client is [`answer`]. Fault switches (`--fault
//! agent-…`) reproduce bugs of published ACP agents in front of agy.

pub mod agy_run;
pub mod answer;
pub mod sessions;
pub mod transport;

use crate::environment::Environment;
use crate::faults::{Fault, FaultSet};
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, ContentBlock, ContentChunk, Implementation,
    InitializeRequest, InitializeResponse, LoadSessionRequest, LoadSessionResponse,
    NewSessionRequest, NewSessionResponse, PromptRequest, PromptResponse, SessionNotification,
    SessionUpdate, TextContent,
};
use agent_client_protocol::{Agent, Error, ErrorCode, Stdio};
use sessions::{Begun, SessionError, Sessions};
use std::sync::Arc;

/// The agent's name in its `initialize` result.
pub const AGENT_NAME: &str = "agy-reference-adapter acp-agent";

/// What every handler shares.
struct Shared {
    env: Environment,
    faults: FaultSet,
    sessions: Sessions,
}

fn session_error(e: SessionError) -> Error {
    match e {
        SessionError::Unknown(id) => Error::new(
            ErrorCode::RESOURCE_NOT_FOUND,
            format!("unknown session `{id}`"),
        ),
        SessionError::Busy(id) => Error::new(
            ErrorCode::INVALID_REQUEST,
            format!("session `{id}` is already running a prompt"),
        ),
    }
}

/// A session's `cwd`, which ACP requires to be an absolute path.
fn absolute(cwd: &std::path::Path) -> Result<&std::path::Path, Error> {
    if cwd.is_absolute() {
        Ok(cwd)
    } else {
        Err(Error::new(
            ErrorCode::INVALID_PARAMS,
            format!("`cwd` must be an absolute path, not {}", cwd.display()),
        ))
    }
}

/// The prompt's text: its text blocks, in order.
fn prompt_text(req: &PromptRequest) -> String {
    req.prompt
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

type Responder = agent_client_protocol::v1::Responder<PromptResponse>;
type ToClient = agent_client_protocol::v1::ConnectionTo<agent_client_protocol::Client>;

/// Takes up a prompt in the dispatch loop (so a `session/cancel` that follows it finds
/// it running) and runs it outside the loop.
fn take_prompt(
    shared: &Arc<Shared>,
    req: PromptRequest,
    responder: Responder,
    cx: &ToClient,
) -> Result<(), Error> {
    match shared.sessions.begin(&req.session_id.to_string()) {
        Ok(started) => cx.spawn(run_prompt(
            shared.clone(),
            req,
            started,
            responder,
            cx.clone(),
        )),
        Err(e) => responder.respond_with_error(session_error(e)),
    }
}

/// Runs one prompt to its answer: agy, then the answer's text as one
/// `agent_message_chunk` before the response.
async fn run_prompt(
    shared: Arc<Shared>,
    req: PromptRequest,
    begun: Begun,
    responder: Responder,
    cx: ToClient,
) -> Result<(), Error> {
    let sid = req.session_id.to_string();
    let text = prompt_text(&req);
    let mut argv = if shared.faults.has(Fault::AgentContinuesLatestConversation) {
        agy_run::argv_continuing_latest(&text, begun.conversation.is_some())
    } else {
        agy_run::argv(&text, begun.conversation.as_deref())
    };
    if shared.faults.has(Fault::AgentModelFromPromptText) {
        // The bug: the prompt is the model's text, not a command to the agent.
        if let Some(model) = agy_run::model_named_in(&text) {
            argv.extend(["--model".to_string(), model]);
        }
    }
    let cwd = if shared.faults.has(Fault::AgentIgnoresSessionCwd) {
        // The bug: agy works on the agent's own folder, not the editor's project.
        shared.env.work_dir.clone()
    } else {
        begun.cwd
    };
    let run = agy_run::run(&shared.env, &shared.faults, (&cwd, &argv), begun.cancel).await;
    let named = run
        .envelope
        .as_ref()
        .ok()
        .map(|e| e.conversation_id.as_str());
    shared.sessions.end(&sid, named);
    match answer::answer(&run, &shared.faults) {
        Ok((stop, text)) => {
            if !text.is_empty() {
                let chunk = ContentChunk::new(ContentBlock::Text(TextContent::new(text)));
                cx.send_notification(SessionNotification::new(
                    req.session_id.clone(),
                    SessionUpdate::AgentMessageChunk(chunk),
                ))?;
            }
            responder.respond(PromptResponse::new(stop))
        }
        Err(e) => responder.respond_with_error(e),
    }
}

/// Exits when agy is signed out (`agent-dies-when-signed-out`): `agy models` fails.
async fn die_when_signed_out(env: &Environment) {
    let status = tokio::process::Command::new(&env.agy_bin)
        .arg("models")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .await;
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("agy-reference-adapter: agy is not usable; exiting");
        std::process::exit(1);
    }
}

/// Serves ACP on stdin/stdout until the client closes stdin.
pub async fn serve(env: Environment, faults: FaultSet) -> anyhow::Result<()> {
    if faults.has(Fault::AgentDiesWhenSignedOut) {
        die_when_signed_out(&env).await;
    }
    let answers_cancels = faults.has(Fault::AgentAnswersCancelNotification);
    let dir = env.state_dir.join("acp-agent-sessions");
    let shared = Arc::new(Shared {
        env,
        faults,
        sessions: Sessions::new(dir),
    });
    let (on_new, on_load, on_prompt, on_cancel) =
        (shared.clone(), shared.clone(), shared.clone(), shared);
    let agent = Agent
        .v1()
        .name(AGENT_NAME)
        .on_receive_request(
            async move |req: InitializeRequest, responder, _cx| {
                responder.respond(
                    InitializeResponse::new(req.protocol_version)
                        .agent_capabilities(AgentCapabilities::new().load_session(true))
                        .agent_info(Implementation::new(AGENT_NAME, env!("CARGO_PKG_VERSION"))),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: NewSessionRequest, responder, _cx| match absolute(&req.cwd) {
                Ok(cwd) => responder.respond(NewSessionResponse::new(on_new.sessions.create(cwd))),
                Err(e) => responder.respond_with_error(e),
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: LoadSessionRequest, responder, _cx| {
                let loaded = absolute(&req.cwd).and_then(|cwd| {
                    on_load
                        .sessions
                        .load(&req.session_id.to_string(), cwd)
                        .map_err(session_error)
                });
                match loaded {
                    Ok(()) => responder.respond(LoadSessionResponse::new()),
                    Err(e) => responder.respond_with_error(e),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: PromptRequest, responder, cx| {
                take_prompt(&on_prompt, req, responder, &cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |n: CancelNotification, _cx| {
                on_cancel.sessions.cancel(&n.session_id.to_string());
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        );
    if answers_cancels {
        let (transport, writer) = transport::answering_cancels();
        agent.connect_to(transport).await?;
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), writer).await;
    } else {
        agent.connect_to(Stdio::new()).await?;
    }
    Ok(())
}
