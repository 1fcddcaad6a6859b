//! The agent process: the message loop, waiting on stdin while a turn runs, and the
//! process-level faults (slow or hanging start, stderr noise, signals, crashes).

use super::inbox::{spawn_reader, Inbound};
use super::settings::Settings;
use super::store::SessionStore;
use super::wire::Wire;
use agent_client_protocol_schema::v1::{Error as RpcError, RequestId};
use agy_protocol::acp::script::{AuthState, CancelMode, StartMode};
use agy_protocol::acp::{AcpDirection, AcpKind, Frame};
use agy_protocol::script::CrashKind;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Per-session state of this process. Model and mode are not persisted: Antigravity
/// forgets them on restart (docs/agy-acp-reference.md §2.9).
#[derive(Debug, Clone)]
pub(crate) struct LiveSession {
    pub(crate) cwd: String,
    pub(crate) model: String,
    pub(crate) mode: String,
    pub(crate) commands_sent: bool,
}

/// What a wait inside a turn ended on.
pub(crate) enum Woke {
    /// The awaited response to one of our requests.
    Response(Result<Value, RpcError>),
    /// `session/cancel` for the session of the running turn (honoured).
    Cancelled,
    /// The deadline passed.
    Timeout,
    /// The client closed stdin.
    Eof,
}

/// The fake agent.
pub(crate) struct Agent {
    pub(crate) wire: Arc<Wire>,
    pub(crate) settings: Settings,
    pub(crate) store: SessionStore,
    inbox: Receiver<Inbound>,
    deferred: VecDeque<Frame>,
    pub(crate) sessions: HashMap<String, LiveSession>,
    pub(crate) signed_in: bool,
    pub(crate) prompts_seen: u32,
    pub(crate) rule_uses: Vec<u32>,
    /// Client requests taken up so far, and how often each `[[reply]]` rule answered.
    pub(crate) requests_seen: u32,
    pub(crate) reply_uses: Vec<u32>,
    next_request_id: i64,
    /// The session whose turn is running, and whether a cancel for it arrived.
    pub(crate) turn_session: Option<String>,
    pub(crate) cancel_requested: bool,
    eof: bool,
}

/// Glog-style start noise; stderr must never be parsed as protocol (docs/agy-acp-reference.md §2.2).
const START_NOISE: &[&str] = &[
    "I1130 09:12:01.000000 1 server.py:88] Starting AGY ACP Server...",
    "I1130 09:12:01.000000 1 harness.py:41] localharness_external: ready",
];

impl Agent {
    /// Starts reading stdin and returns the agent.
    pub(crate) fn start(settings: Settings) -> Agent {
        let wire = Arc::new(Wire::new(settings.journal.clone()));
        // Any bytes: the journal keeps them as text (a client may pass anything).
        let argv: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        wire.event(AcpDirection::Event, AcpKind::Start, &argv.join(" "));
        super::signals::watch(
            wire.clone(),
            settings.script.agent.ignore_sigterm == Some(true),
        );
        let store = SessionStore::new(&settings.state_root);
        let signed_in = match settings.script.agent.auth {
            Some(AuthState::Required) => store.has_credentials(),
            _ => true,
        };
        let inbox = spawn_reader(wire.clone());
        let rule_uses = vec![0; settings.script.prompts.len()];
        let reply_uses = vec![0; settings.script.replies.len()];
        Agent {
            wire,
            settings,
            store,
            inbox,
            deferred: VecDeque::new(),
            sessions: HashMap::new(),
            signed_in,
            prompts_seen: 0,
            rule_uses,
            requests_seen: 0,
            reply_uses,
            next_request_id: 0,
            turn_session: None,
            cancel_requested: false,
            eof: false,
        }
    }

    /// Runs until stdin closes; returns the exit code.
    pub(crate) fn run(mut self) -> i32 {
        if self.settings.script.agent.stderr_noise != Some(false) {
            for line in START_NOISE {
                self.wire.stderr(line);
            }
        }
        self.opening();
        if self.settings.script.agent.start == Some(StartMode::Hang) {
            // RC01 hung at `initialize` in 2 of 4 starts (docs/agy-acp-reference.md §2.2): read, never answer.
            self.hang();
        }
        let mut delayed = self.settings.script.agent.start_delay.map(|d| d.0);
        while let Some(inbound) = self.next_inbound() {
            match inbound {
                Inbound::Frame(frame) => {
                    if let Some(delay) = delayed.take() {
                        // Cold start: the server is silent until it is ready, so the
                        // first answer (normally `initialize`'s) is late (docs/agy-acp-reference.md §2.2).
                        self.sleep_plain(delay);
                    }
                    self.handle(frame);
                }
                Inbound::Invalid(e) => self.wire.send(&Frame::Response {
                    id: RequestId::Null,
                    outcome: Err(RpcError::new(e.code(), e.to_string())),
                }),
                Inbound::Eof => break,
            }
        }
        self.exit(0)
    }

    fn next_inbound(&mut self) -> Option<Inbound> {
        if let Some(f) = self.deferred.pop_front() {
            return Some(Inbound::Frame(f));
        }
        if self.eof {
            return None;
        }
        match self.inbox.recv() {
            Ok(Inbound::Eof) | Err(_) => {
                self.eof = true;
                None
            }
            Ok(other) => Some(other),
        }
    }

    /// Dispatches one message outside a turn's wait.
    pub(crate) fn handle(&mut self, frame: Frame) {
        match frame {
            Frame::Request { id, method, params } => {
                if self.reply(&id, &method) {
                    return;
                }
                if method == "session/prompt" {
                    self.prompt(id, params);
                } else {
                    self.request(id, &method, params);
                }
            }
            Frame::Notification { method, params } => self.notification(&method, &params),
            // Answers to our requests that nobody waits for any more (late permission
            // requests): journaled on arrival, nothing else to do.
            Frame::Response { .. } => {}
        }
    }

    fn notification(&mut self, method: &str, params: &Value) {
        if method != "session/cancel" {
            return;
        }
        let session = params.get("sessionId").and_then(Value::as_str);
        if self.turn_session.as_deref() == session && session.is_some() {
            self.cancel_requested = true;
        }
    }

    /// Sends a request to the client and returns its id.
    pub(crate) fn send_request(&mut self, method: &str, params: Value) -> RequestId {
        let id = RequestId::Number(self.next_request_id);
        self.next_request_id += 1;
        self.wire.send(&Frame::Request {
            id: id.clone(),
            method: method.to_string(),
            params,
        });
        id
    }

    /// Sends a `session/update` notification.
    pub(crate) fn notify(&self, params: Value) {
        self.wire.send(&Frame::Notification {
            method: "session/update".into(),
            params,
        });
    }

    /// Answers a request.
    pub(crate) fn respond(&self, id: RequestId, outcome: Result<Value, RpcError>) {
        self.wire.send(&Frame::Response { id, outcome });
    }

    /// Waits inside a turn, serving other requests meanwhile, until the response to
    /// `awaited` arrives, a cancel is honoured (when `stop_on_cancel`), or `deadline`.
    pub(crate) fn wait(
        &mut self,
        awaited: Option<&RequestId>,
        stop_on_cancel: bool,
        deadline: Option<Instant>,
    ) -> Woke {
        loop {
            if stop_on_cancel && self.cancel_honoured() {
                return Woke::Cancelled;
            }
            if self.eof {
                return Woke::Eof;
            }
            let inbound = match deadline {
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    match self.inbox.recv_timeout(left) {
                        Ok(i) => i,
                        Err(RecvTimeoutError::Timeout) => return Woke::Timeout,
                        Err(RecvTimeoutError::Disconnected) => Inbound::Eof,
                    }
                }
                None => self.inbox.recv().unwrap_or(Inbound::Eof),
            };
            match inbound {
                Inbound::Eof => {
                    self.eof = true;
                    return Woke::Eof;
                }
                Inbound::Invalid(e) => self.wire.send(&Frame::Response {
                    id: RequestId::Null,
                    outcome: Err(RpcError::new(e.code(), e.to_string())),
                }),
                Inbound::Frame(Frame::Response { id, outcome }) if Some(&id) == awaited => {
                    return Woke::Response(outcome)
                }
                Inbound::Frame(Frame::Response { .. }) => {}
                // One turn at a time: a prompt that arrives mid-turn runs after it.
                Inbound::Frame(f @ Frame::Request { .. })
                    if f.method() == Some("session/prompt") =>
                {
                    self.deferred.push_back(f)
                }
                Inbound::Frame(f) => self.handle(f),
            }
        }
    }

    /// True when a cancel arrived for the running turn and the script honours it.
    pub(crate) fn cancel_honoured(&self) -> bool {
        self.cancel_requested && self.settings.script.agent.cancel != Some(CancelMode::Ignore)
    }

    /// Sleeps a scripted (time-scaled) duration while serving requests.
    pub(crate) fn sleep(&mut self, d: Duration, stop_on_cancel: bool) -> Woke {
        let deadline = Instant::now() + self.settings.scaled(d);
        self.wait(None, stop_on_cancel, Some(deadline))
    }

    pub(crate) fn sleep_plain(&self, d: Duration) {
        std::thread::sleep(self.settings.scaled(d));
    }

    /// Stops answering; reads and journals stdin until killed.
    pub(crate) fn hang(&mut self) -> ! {
        self.wire
            .event(AcpDirection::Event, AcpKind::Exit, "hang: no more answers");
        loop {
            match self.inbox.recv() {
                Ok(Inbound::Eof) | Err(_) => loop {
                    std::thread::park();
                },
                Ok(_) => {}
            }
        }
    }

    /// Dies by a signal now.
    pub(crate) fn crash(&self, kind: CrashKind) -> ! {
        let signal = match kind {
            CrashKind::Abort => nix::sys::signal::Signal::SIGABRT,
            CrashKind::Segv => nix::sys::signal::Signal::SIGSEGV,
            CrashKind::Kill => nix::sys::signal::Signal::SIGKILL,
        };
        self.wire.event(
            AcpDirection::Event,
            AcpKind::Exit,
            &format!("crash: {signal}"),
        );
        let _ = nix::sys::signal::raise(signal);
        // SIGABRT/SIGSEGV can be caught by nothing here, so this is not reached.
        std::process::exit(128 + signal as i32)
    }

    /// Journals the exit and returns its code.
    pub(crate) fn exit(&self, code: i32) -> i32 {
        self.wire
            .event(AcpDirection::Event, AcpKind::Exit, &format!("exit {code}"));
        code
    }

    /// The error for a session id this process does not know. Antigravity's code is
    /// unrecorded; default the spec's -32002 (docs/agy-acp-reference.md §1.4, §6.6), scriptable.
    pub(crate) fn unknown_session(&self, session_id: &str) -> RpcError {
        match &self.settings.script.agent.unknown_session {
            Some(spec) => spec.rpc_error(),
            None => RpcError::new(-32002, "Resource not found")
                .data(json!({ "uri": format!("session:{session_id}") })),
        }
    }
}
