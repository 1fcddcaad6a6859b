//! A generated case: what agy does, per profile, and the ops a user of that profile
//! sends. Strategies are weighted toward the recorded quirks.

use proptest::prelude::*;

/// What one oneshot agy invocation does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OneshotAgy {
    /// exit 0, SUCCESS, one decodable image.
    Success {
        /// The image's width.
        width: u32,
        /// The image's height.
        height: u32,
    },
    /// `--print-timeout` expiry: exit 0, SUCCESS, empty response, zero usage.
    PrintTimeout,
    /// The image model's 429 only in SUCCESS prose, no image.
    QuotaInProse,
    /// SUCCESS with real usage and no image.
    NoImage,
    /// SUCCESS with two images.
    TwoImages,
    /// SUCCESS with an image that decodes nowhere.
    CorruptImage,
    /// An authentication failure (ERROR, exit 1).
    Auth,
    /// A non-success status that is permanent (ERROR, INVALID, WAITING, RUNNING).
    Permanent(&'static str),
    /// CANCELED / INTERRUPTED.
    Transient(&'static str),
    /// A crash mid-turn: a cut envelope, then death by a signal.
    Crash(&'static str),
    /// SUCCESS with an image, but exit 1.
    SuccessExit1,
    /// agy ignores SIGTERM and never answers.
    Hang,
    /// agy 1.2.16 on: the image-generator subagent saves the image in its own
    /// conversation's brain folder, not the run's (docs/agy-versions.md, ImageSubagent).
    SubagentImage,
}

/// One generate op and the invocation it meets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneshotStep {
    /// Milliseconds (script time) before agy acts.
    pub delay_ms: u32,
    /// What agy does.
    pub agy: OneshotAgy,
}

/// A oneshot case: generate ops in order, one invocation each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneshotCase {
    /// The generations.
    pub steps: Vec<OneshotStep>,
}

/// What agy does for one stdin line of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnAgy {
    /// Answers normally.
    Answer,
    /// Re-emits the previous turn's result first (replayed output).
    Replay,
    /// Delivers a late step of the previous turn, with usage, first.
    LateStep,
    /// Answers with a `num_turns` that did not advance.
    Stalled,
    /// Fails the turn (ERROR).
    Error,
    /// Writes the previous result again after its own.
    DuplicateResult,
}

impl TurnAgy {
    /// True when the adapter must not take this turn's agy output for an answer.
    pub fn fails(&self) -> bool {
        matches!(self, TurnAgy::Stalled | TurnAgy::Error)
    }
}

/// One turn of a session case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionTurn {
    /// Milliseconds (script time) before agy answers.
    pub delay_ms: u32,
    /// What agy does.
    pub agy: TurnAgy,
    /// Select another model before this turn.
    pub model_change: bool,
}

/// A session case: open, turns, close.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionCase {
    /// The first turn fails authentication (then nothing else happens).
    pub auth_failure: bool,
    /// The turns, in order.
    pub turns: Vec<SessionTurn>,
    /// After the last answer agy ignores SIGTERM and hangs.
    pub ignores_sigterm: bool,
}

/// A case of either profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Case {
    /// `oneshot`.
    Oneshot(OneshotCase),
    /// `session`.
    Session(SessionCase),
}

fn oneshot_agy() -> impl Strategy<Value = OneshotAgy> {
    // Shrinking moves toward the first alternative: the plain success.
    prop_oneof![
        3 => (prop_oneof![Just(1376u32), Just(1024)], prop_oneof![Just(768u32), Just(1024)])
            .prop_map(|(width, height)| OneshotAgy::Success { width, height }),
        3 => Just(OneshotAgy::PrintTimeout),
        2 => Just(OneshotAgy::QuotaInProse),
        2 => Just(OneshotAgy::NoImage),
        2 => Just(OneshotAgy::TwoImages),
        2 => Just(OneshotAgy::CorruptImage),
        2 => Just(OneshotAgy::Auth),
        1 => prop_oneof![Just("ERROR"), Just("INVALID"), Just("WAITING"), Just("RUNNING")]
            .prop_map(OneshotAgy::Permanent),
        1 => prop_oneof![Just("CANCELED"), Just("INTERRUPTED")].prop_map(OneshotAgy::Transient),
        1 => prop_oneof![Just("abort"), Just("segv"), Just("kill")].prop_map(OneshotAgy::Crash),
        1 => Just(OneshotAgy::SuccessExit1),
        1 => Just(OneshotAgy::Hang),
        2 => Just(OneshotAgy::SubagentImage),
    ]
}

/// Oneshot cases: one to three generations.
pub fn oneshot_case() -> impl Strategy<Value = Case> {
    prop::collection::vec(
        (0u32..800, oneshot_agy()).prop_map(|(delay_ms, agy)| OneshotStep { delay_ms, agy }),
        1..=3,
    )
    .prop_map(|steps| Case::Oneshot(OneshotCase { steps }))
}

fn turn_agy() -> impl Strategy<Value = TurnAgy> {
    prop_oneof![
        4 => Just(TurnAgy::Answer),
        2 => Just(TurnAgy::Replay),
        2 => Just(TurnAgy::LateStep),
        1 => Just(TurnAgy::Stalled),
        1 => Just(TurnAgy::Error),
        1 => Just(TurnAgy::DuplicateResult),
    ]
}

/// Session cases: one to four turns, model changes, an auth failure, a SIGTERM-ignoring
/// agy.
pub fn session_case() -> impl Strategy<Value = Case> {
    (
        prop::bool::weighted(0.1),
        prop::collection::vec(
            (0u32..400, turn_agy(), prop::bool::weighted(0.15)).prop_map(
                |(delay_ms, agy, model_change)| SessionTurn {
                    delay_ms,
                    agy,
                    model_change,
                },
            ),
            1..=4,
        ),
        prop::bool::weighted(0.25),
    )
        .prop_map(|(auth_failure, turns, ignores_sigterm)| {
            Case::Session(normalise(SessionCase {
                auth_failure,
                turns,
                ignores_sigterm,
            }))
        })
}

/// Keeps a session case within what the script vocabulary acts out on one process:
/// replayed, late and stalled output only after a successful turn on the same process;
/// no model change before the first turn; a SIGTERM-ignoring hang only after a
/// successful last turn.
pub fn normalise(mut c: SessionCase) -> SessionCase {
    let mut previous_ok = false;
    for (i, t) in c.turns.iter_mut().enumerate() {
        if i == 0 {
            t.model_change = false;
        }
        if t.model_change {
            previous_ok = false;
        }
        let needs_previous = matches!(
            t.agy,
            TurnAgy::Replay | TurnAgy::LateStep | TurnAgy::Stalled
        );
        if needs_previous && !previous_ok {
            t.agy = TurnAgy::Answer;
        }
        previous_ok = !t.agy.fails();
    }
    let last_ok = c.turns.last().is_some_and(|t| !t.agy.fails());
    c.ignores_sigterm &= last_ok && !c.auth_failure;
    c
}
