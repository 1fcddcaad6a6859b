//! The `acp-agent` contract, line by line with its evidence; docs/contract.md shows it
//! with the scenarios that judge each line.

use crate::profile::{ContractLine, Evidence};

const ACP_PROMPT: &str =
    "ACP spec, prompt turn: stop reasons (agentclientprotocol.com/protocol/prompt-turn)";
const AGY_RESULTS: &str =
    "docs/agy-reference.md §2.2 (result statuses and failures), §2.3 (exit codes)";

/// The `acp-agent` contract.
pub const CONTRACT: [ContractLine; 13] = [
    ContractLine {
        rule: "a prompt ends with stopReason end_turn only when the turn has an answer (agent_message_chunk text)",
        evidence: Evidence::Documented,
        source: ACP_PROMPT,
    },
    ContractLine {
        rule: "stopReason cancelled only after the client's session/cancel; agy's own CANCELED result is an error, not a client cancel",
        evidence: Evidence::Documented,
        source: "ACP spec, prompt turn: cancellation; docs/agy-reference.md §2.1 (CANCELED, 1.1.22 denials, antigravity-cli #902)",
    },
    ContractLine {
        rule: "agy's ERROR, INVALID and INTERRUPTED results and a malformed result are JSON-RPC errors, never end_turn",
        evidence: Evidence::Measured,
        source: AGY_RESULTS,
    },
    ContractLine {
        rule: "agy's authentication failure is ACP's auth error: code -32000 (auth_required), at the prompt, not a dead agent at start-up",
        evidence: Evidence::Documented,
        source: "ACP schema ErrorCode AUTH_REQUIRED (-32000); docs/agy-reference.md §2.2 item 3",
    },
    ContractLine {
        rule: "quota (exit 3) and timeout (the empty-SUCCESS print timeout) are errors whose message names their class",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §2.2 item 5 and §2.3 (quota, exit 3), §2.4 (print timeout as empty SUCCESS); S6c",
    },
    ContractLine {
        rule: "a prompt is sent to agy once",
        evidence: Evidence::Documented,
        source: "ACP spec, prompt turn (one session/prompt, one turn)",
    },
    ContractLine {
        rule: "one turn of a session runs at a time: a prompt sent during a turn is refused or waits for it; it neither runs a second agy beside the first nor ends the first",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §4.4 (one conversation is one process: a lock on it serialises its turns)",
    },
    ContractLine {
        rule: "a later prompt, and a prompt after session/load or session/resume, continues the agy conversation (--conversation)",
        evidence: Evidence::Documented,
        source: "ACP spec, session setup (loading sessions); docs/agy-reference.md §1.3 (--conversation)",
    },
    ContractLine {
        rule: "a finished agy result is the turn's answer even when agy is slow to exit afterwards",
        evidence: Evidence::Unverified,
        source: "published ACP agents in front of agy (a finished turn reported as an error after a slow exit); fake-agy scripts the delay",
    },
    ContractLine {
        rule: "no message chunk of a turn arrives after its prompt response",
        evidence: Evidence::Documented,
        source: ACP_PROMPT,
    },
    ContractLine {
        rule: "no agy process outlives the agent's close or the agent being killed",
        evidence: Evidence::Documented,
        source: "docs/agy-reference.md §4.4 (EOF and signals); the kit's no-orphan rule",
    },
    ContractLine {
        rule: "agy runs in the session's cwd: the folder the client gave session/new (or session/load) is the working directory of every agy the session starts",
        evidence: Evidence::Documented,
        source: "ACP schema NewSessionRequest.cwd and LoadSessionRequest.cwd (the working directory for this session, an absolute path); docs/agy-reference.md §3.2 (init.cwd is the process's working directory)",
    },
    ContractLine {
        rule: "a notification gets no response: the agent answers session/cancel by ending the turn cancelled, never with a JSON-RPC response of its own",
        evidence: Evidence::Documented,
        source: "ACP schema: session/cancel is a notification (CancelNotification); JSON-RPC 2.0 specification, notification (the server must not reply)",
    },
];
