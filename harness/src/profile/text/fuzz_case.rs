//! A generated `text` case: what each print run of a text client does, its oracle (the
//! outcome each `ask` must report) and its scenario file. One ask per run; the cases
//! are weighted toward the bug classes of print-mode clients (docs/contract.md, `text`).

use crate::profile::fuzz_kit::render::{header, q, q_list, write_expect};
use crate::scenario::Profile;
use agy_protocol::driver::Outcome;
use proptest::prelude::*;
use std::fmt::Write;

/// What one print run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextAgy {
    /// exit 0, SUCCESS, the answer.
    Answer,
    /// `--print-timeout` expiry as the modelled version shows it.
    PrintTimeout,
    /// CANCELED, empty response, exit 0.
    Canceled,
    /// An authentication failure (ERROR, exit 1).
    Auth,
    /// Quota stop mid-turn: ERROR, `AGY_ERROR:` on stderr, exit 3.
    Quota,
    /// The model is rejected before the turn (ERROR, exit 1).
    RejectedModel,
    /// Some text streamed, then death by a signal.
    CrashAfterText,
    /// agy ignores SIGTERM and never answers.
    Hang,
}

/// One ask and the run it meets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextStep {
    /// Milliseconds (script time) before agy acts.
    pub delay_ms: u32,
    /// What agy does.
    pub agy: TextAgy,
}

/// A text case: asks in order, one run each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextCase {
    /// The asks.
    pub steps: Vec<TextStep>,
}

fn text_agy() -> impl Strategy<Value = TextAgy> {
    // Shrinking moves toward the first alternative: the plain answer.
    prop_oneof![
        4 => Just(TextAgy::Answer),
        2 => Just(TextAgy::PrintTimeout),
        1 => Just(TextAgy::Canceled),
        1 => Just(TextAgy::Auth),
        1 => Just(TextAgy::Quota),
        1 => Just(TextAgy::RejectedModel),
        1 => Just(TextAgy::CrashAfterText),
        1 => Just(TextAgy::Hang),
    ]
}

/// Text cases: one to three asks.
pub fn text_case() -> impl Strategy<Value = TextCase> {
    prop::collection::vec(
        (0u32..800, text_agy()).prop_map(|(delay_ms, agy)| TextStep { delay_ms, agy }),
        1..=3,
    )
    .prop_map(|steps| TextCase { steps })
}

/// The answer of ask `i` (0-based).
fn answer(i: usize) -> String {
    format!("answer number {}", i + 1)
}

/// The `expect` parts of ask `i`: the outcome classes the contract allows, and more.
pub fn ask_expect(i: usize, agy: TextAgy) -> Vec<String> {
    let failed = |allowed: &[Outcome], retryable: Option<bool>| {
        let names: Vec<&str> = allowed.iter().map(|o| o.as_str()).collect();
        let outcome = match names.as_slice() {
            [one] => q(one),
            many => q_list(many),
        };
        let mut p = vec![format!("outcome = {outcome}")];
        if let Some(r) = retryable {
            p.push(format!("retryable = {r}"));
        }
        p
    };
    match agy {
        TextAgy::Answer => vec![
            format!("outcome = {}", q(Outcome::Success.as_str())),
            format!("text = {}", q(&answer(i))),
        ],
        TextAgy::PrintTimeout => failed(&[Outcome::Timeout], Some(true)),
        TextAgy::Canceled => failed(&[Outcome::Transient], Some(true)),
        TextAgy::Auth => failed(&[Outcome::Auth], Some(false)),
        TextAgy::Quota => failed(&[Outcome::Transient], Some(true)),
        TextAgy::RejectedModel => failed(&[Outcome::Permanent], Some(false)),
        TextAgy::CrashAfterText => failed(&[Outcome::Permanent, Outcome::Transient], None),
        TextAgy::Hang => {
            let mut p = failed(&[Outcome::Timeout], Some(true));
            p.push("agy_gone_within = \"10s\"".into());
            p
        }
    }
}

/// The script steps of ask `i`'s run.
fn steps(i: usize, s: &TextStep) -> Vec<String> {
    let mut out = vec![format!("{{ sleep = \"{}ms\" }}", s.delay_ms)];
    match s.agy {
        TextAgy::Answer => out.push(format!(
            "{{ envelope = {{ status = \"SUCCESS\", response = {}, usage = {{ input = 1200, output = 40 }} }} }}",
            q(&answer(i))
        )),
        TextAgy::PrintTimeout => out.push("{ print_timeout = true }".into()),
        TextAgy::Canceled => out.push("{ envelope = { status = \"CANCELED\", response = \"\" } }".into()),
        TextAgy::Auth => out.push("{ envelope = { conversation_id = \"\", status = \"ERROR\", response = \"\", error = \"authentication failed or timed out\", duration_seconds = 0, num_turns = 0, usage = \"zero\" } }".into()),
        TextAgy::Quota => out.push("{ quota_exhausted = true }".into()),
        TextAgy::RejectedModel => out.push("{ envelope = { conversation_id = \"\", status = \"ERROR\", response = \"\", error = \"invalid model selection (--model \\\"x\\\" --effort \\\"\\\"): model x is not recognized as a known model or custom model in settings\", duration_seconds = 0, num_turns = 0, usage = \"zero\" } }".into()),
        TextAgy::CrashAfterText => {
            out.push("{ stdout_raw = \"The answer begins\" }".into());
            out.push("{ crash = \"segv\" }".into());
        }
        TextAgy::Hang => {
            out.insert(0, "{ on_sigterm = \"ignore\" }".into());
            out.push("{ hang = true }".into());
        }
    }
    out
}

/// The scenario file of `c`, named `name`, with `comment` lines on top.
pub fn render_text(
    profile: Profile,
    c: &TextCase,
    name: &str,
    description: &str,
    comment: &[String],
) -> String {
    let mut out = header(profile, None, name, description, comment);
    for (i, s) in c.steps.iter().enumerate() {
        let _ = writeln!(
            out,
            "[[agy.invocation]]\nwhen  = {{ nth = {} }}\nsteps = [\n  {},\n]\n",
            i + 1,
            steps(i, s).join(",\n  ")
        );
    }
    for (i, s) in c.steps.iter().enumerate() {
        let timeout = if s.agy == TextAgy::Hang { 1 } else { 60 };
        let _ = writeln!(
            out,
            "[[op]]\nask = {{ prompt = \"question number {}\", timeout_s = {timeout} }}",
            i + 1
        );
        write_expect(&mut out, &ask_expect(i, s.agy));
    }
    let _ = writeln!(
        out,
        "[expect.journal]\nnone_left_running = true\ninvocations = {}\nargv_lacks = [\"--dangerously-skip-permissions\"]",
        c.steps.len()
    );
    out
}

crate::profile::fuzz_case!(
    /// A generated `text` case as `fuzz` holds it.
    Text(TextCase) => render_text
);
