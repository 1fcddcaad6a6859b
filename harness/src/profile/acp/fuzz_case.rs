//! A generated `acp` case: what the ACP agent does, from fake-agy-acp's script
//! vocabulary (docs/acp-fake-agent.md §4) — replay before or after the load response,
//! late output after a prompt response or a restore, permission requests during a
//! restore, death after acknowledging a prompt, stalls, failed restores — and the ops an
//! ACP client's user sends: new, prompts, client and agent restarts, explicit restores,
//! cancels and closes. Strategies are weighted toward the recorded quirks.

use proptest::prelude::*;

/// Something the agent sends outside a turn: after a prompt response, or during a
/// restore (`[load] late`, `[resume] late`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Late {
    /// A message chunk.
    Text,
    /// A tool call, then a permission request for it (not waiting for the answer).
    Permission,
}

/// When the agent replays a restored session's history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replay {
    /// Before the restore response (the spec's order).
    Before,
    /// After the restore response (gemini-cli's order).
    After,
    /// Not at all.
    None,
}

/// What the agent does on one restore method (`session/load` or `session/resume`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreAgy {
    /// The replay of the stored turns.
    pub replay: Replay,
    /// Sent right after the restore response.
    pub late: Vec<Late>,
    /// The method answers an error (`-32002 Resource not found`).
    pub fails: bool,
}

/// What the agent does with one prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnAgy {
    /// The default turn: `Received: <prompt>` in three deltas.
    Default,
    /// A scripted answer, then `late` after the response.
    Answer {
        /// Sent after the prompt response.
        late: Vec<Late>,
    },
    /// A tool call and a permission request inside the turn, then the answer.
    Permission,
    /// A chunk, then death by SIGKILL: the agent acknowledged the prompt and died.
    Crash,
}

/// One op of an ACP case after `acp_new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AcpOp {
    /// `acp_prompt`: the agent waits `delay_ms` (script time, a stall), then does `agy`.
    Prompt {
        /// Milliseconds before the agent acts.
        delay_ms: u32,
        /// What the agent does.
        agy: TurnAgy,
    },
    /// `acp_prompt` whose turn waits for a cancel, then `acp_cancel` once the agent has
    /// the prompt.
    CancelledPrompt,
    /// `acp_prompt` whose agent stops answering mid-turn, then `acp_restart_agent` once
    /// the agent has the prompt.
    StalledPrompt,
    /// The harness restarts the client (driver stopped and started again).
    RestartClient,
    /// `acp_restart_agent`.
    RestartAgent,
    /// `acp_restore`.
    Restore,
    /// `acp_close`.
    Close,
}

/// An `acp` case: one session, its agent's behaviour, the ops after `acp_new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcpCase {
    /// `[acp.load]`.
    pub load: RestoreAgy,
    /// `[acp.resume]`.
    pub resume: RestoreAgy,
    /// The ops after `acp_new`.
    pub ops: Vec<AcpOp>,
    /// The case ends with `acp_close`.
    pub close_at_end: bool,
}

fn late() -> impl Strategy<Value = Vec<Late>> {
    prop::collection::vec(
        prop_oneof![2 => Just(Late::Text), 1 => Just(Late::Permission)],
        0..=2,
    )
}

fn restore_agy(replay: BoxedStrategy<Replay>, fails: f64) -> impl Strategy<Value = RestoreAgy> {
    (replay, late(), prop::bool::weighted(fails)).prop_map(|(replay, late, fails)| RestoreAgy {
        replay,
        late,
        fails,
    })
}

fn turn_agy() -> impl Strategy<Value = TurnAgy> {
    // Shrinking moves toward the first alternative: the default turn.
    prop_oneof![
        3 => Just(TurnAgy::Default),
        3 => late().prop_map(|late| TurnAgy::Answer { late }),
        1 => Just(TurnAgy::Permission),
        2 => Just(TurnAgy::Crash),
    ]
}

fn acp_op() -> impl Strategy<Value = AcpOp> {
    prop_oneof![
        6 => (0u32..400, turn_agy()).prop_map(|(delay_ms, agy)| AcpOp::Prompt { delay_ms, agy }),
        3 => Just(AcpOp::RestartClient),
        1 => Just(AcpOp::CancelledPrompt),
        1 => Just(AcpOp::StalledPrompt),
        1 => Just(AcpOp::RestartAgent),
        1 => Just(AcpOp::Restore),
        1 => Just(AcpOp::Close),
    ]
}

/// The most prompts a case sends (one word each, [`crate::profile::acp::fuzz_oracle::WORDS`]).
pub const MAX_PROMPTS: usize = 6;

/// ACP cases: `acp_new`, one to six ops, and a close at the end three times in four.
pub fn acp_case() -> impl Strategy<Value = AcpCase> {
    (
        restore_agy(
            prop_oneof![Just(Replay::Before), Just(Replay::After), Just(Replay::None)].boxed(),
            0.1,
        ),
        restore_agy(
            prop_oneof![4 => Just(Replay::None), 1 => Just(Replay::Before), 1 => Just(Replay::After)]
                .boxed(),
            0.1,
        ),
        prop::collection::vec(acp_op(), 1..=6),
        prop::bool::weighted(0.75),
    )
        .prop_map(|(load, resume, ops, close_at_end)| {
            normalise(AcpCase {
                load,
                resume,
                ops,
                close_at_end,
            })
        })
}

fn sends_prompt(op: &AcpOp) -> bool {
    matches!(
        op,
        AcpOp::Prompt { .. } | AcpOp::CancelledPrompt | AcpOp::StalledPrompt
    )
}

/// Keeps a case within what one session can act out: at most [`MAX_PROMPTS`] prompts,
/// no close right after a close, and a final close as `close_at_end`.
pub fn normalise(mut c: AcpCase) -> AcpCase {
    let mut prompts = 0;
    c.ops.retain(|op| {
        if sends_prompt(op) {
            prompts += 1;
        }
        !sends_prompt(op) || prompts <= MAX_PROMPTS
    });
    c.ops
        .dedup_by(|b, a| *a == AcpOp::Close && *b == AcpOp::Close);
    if c.ops.last() == Some(&AcpOp::Close) {
        c.ops.pop();
        c.close_at_end = true;
    }
    c
}
