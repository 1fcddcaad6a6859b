//! Where a persistent session's turn answer is read from. Both readings are correct for
//! every session scenario: agy streams a turn's answer as `agent_response` steps and
//! repeats it as the result's `response` (docs/agy-reference.md §3.3, §3.4: in every
//! capture `response` equals the joined `text_delta`s). The second reading
//! exists so `agy-harness repro` can check that a minimal scenario keeps what any correct
//! adapter may read an answer from, not only what this adapter reads by default.

/// Which part of a turn's output is its answer (`--answers-from`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum AnswerSource {
    /// The accepted `agent_response` steps' text, or the result's `response` when
    /// nothing was streamed.
    #[default]
    StreamedOrResult,
    /// Only the accepted `agent_response` steps' text; the result's `response` is
    /// never read (as a client that renders text while it streams).
    Streamed,
}
