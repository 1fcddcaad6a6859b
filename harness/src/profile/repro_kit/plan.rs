//! The expectations of a reproduction: what a correct adapter of the profile reports
//! for the behaviour agy showed. Oneshot invocations are classified into the fuzz
//! oracle's agy behaviours and judged by it (ADR 0013's error table, in its order);
//! sessions by the `session` profile's plan (seed 000). Each expectation carries the
//! reason, written as a comment into the scenario.

use crate::profile::fuzz_kit::case::{Case, OneshotAgy, OneshotCase, OneshotStep};
use crate::profile::fuzz_kit::oracle::{oracle as fuzz_oracle, OpOracle};
use crate::profile::repro_kit::case::{Process, ReproCase};
use crate::profile::repro_kit::seen::{seen, Seen};
use crate::scenario::{
    AcpExpect, HistoryExpect, JournalExpect, OpExpect, OutcomeSet, OutputExpect, UsageExpect,
};
use agy_protocol::driver::Outcome;
use agy_protocol::GoDuration;

/// One op of the scenario and what its reply must show.
#[derive(Debug, Clone, PartialEq)]
pub struct OpPlan {
    /// The op as TOML (`generate = { … }`).
    pub action: String,
    /// How long the reply may take, when not the default.
    pub reply_within: Option<String>,
    /// The expectation.
    pub expect: OpExpect,
    /// Why, as comment lines.
    pub why: Vec<String>,
}

/// Every expectation of a reproduction.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The ops in order.
    pub ops: Vec<OpPlan>,
    /// `[expect.journal]`.
    pub journal: JournalExpect,
    /// `[expect.history]`.
    pub history: Option<HistoryExpect>,
    /// `[expect.acp]` (acp only; the journal checks do not apply there).
    pub acp: Option<AcpExpect>,
    /// The behaviour, kebab-case (the file name).
    pub slug: String,
    /// One sentence on the behaviour (the description).
    pub summary: String,
    /// Turns that end without a result (the adapter waits for one until its timeout).
    pub unanswered: usize,
}

/// A one-line TOML basic string, its invisible characters escaped
/// ([`crate::data_text::toml_string`]).
pub fn quote(s: &str) -> String {
    crate::data_text::toml_string(s)
}

/// An outcome set from the classes allowed: none, one, or any of several.
pub fn outcomes(classes: &[Outcome]) -> Option<OutcomeSet> {
    match classes {
        [] => None,
        [one] => Some(OutcomeSet::One(*one)),
        many => Some(OutcomeSet::Any(many.to_vec())),
    }
}

/// A Go duration literal of this file (`"10s"`).
pub fn duration(text: &str) -> Option<GoDuration> {
    GoDuration::parse(text).ok()
}

/// The fuzz oracle's op expectation in the scenario model.
fn op_expect(o: &OpOracle) -> OpExpect {
    OpExpect {
        outcome: outcomes(&o.outcome),
        retryable: o.retryable,
        output: o.output.map(|x| match x {
            "decodable" => OutputExpect::Decodable,
            "present" => OutputExpect::Present,
            _ => OutputExpect::Absent,
        }),
        image_size: o.image_size.map(|(w, h)| [w, h]),
        text: o.text.clone(),
        text_lacks: o.text_lacks.clone(),
        usage: o.usage.map(|(i, out)| UsageExpect {
            input_tokens: Some(i),
            output_tokens: Some(out),
            total_tokens: None,
        }),
        agy_gone_within: o.gone_within.and_then(duration),
        ..OpExpect::default()
    }
}

/// A text mentions the image model's quota error (docs/spike-records.md S7
/// correction: the 429 appears only in the agent's prose).
pub fn mentions_image_quota(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    [
        "resource_exhausted",
        "429 too many requests",
        "exhausted your capacity",
        "exhausted your quota",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// An error names an authentication failure (the documented and the recorded wording,
/// docs/agy-reference.md §2.2 item 3).
pub fn mentions_auth(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.contains("authentication required") || lower.contains("authentication failed")
}

fn static_status(s: &str) -> &'static str {
    [
        "ERROR",
        "INVALID",
        "WAITING",
        "RUNNING",
        "CANCELED",
        "INTERRUPTED",
    ]
    .into_iter()
    .find(|x| *x == s)
    .unwrap_or("ERROR")
}

/// Which of the fuzz oracle's agy behaviours a oneshot invocation shows, why, and the
/// behaviour's name.
pub fn classify(p: &Process) -> (OneshotAgy, String, &'static str) {
    let seen: Vec<Seen> = p.turns.iter().flat_map(|t| &t.steps).map(seen).collect();
    let result = seen.iter().rev().find_map(|s| match s {
        Seen::Result(r) => Some(r),
        _ => None,
    });
    let exit = seen.iter().find_map(|s| match s {
        Seen::Exit(c) => Some(*c),
        _ => None,
    });
    let (images, size) = seen.iter().fold((0, (1376, 768)), |acc, s| match s {
        Seen::Image(n, w, h) => (acc.0 + n, (*w, *h)),
        _ => acc,
    });
    let Some(r) = result else {
        if seen.contains(&Seen::Hang) {
            return (
                OneshotAgy::Hang,
                "agy never finishes: the adapter must kill it after its timeout (ADR 0013, `timeout_s + 30` s row): a retryable timeout, no process left".into(),
                "hung-agy-is-killed-after-the-timeout",
            );
        }
        return (
            OneshotAgy::Crash("abort"),
            "agy printed no envelope: whatever the adapter reports, it is not a success".into(),
            "output-without-envelope-is-not-a-success",
        );
    };
    match r.status.as_str() {
        "SUCCESS" if exit.is_some_and(|c| c != 0) => (
            OneshotAgy::SuccessExit1,
            format!("a SUCCESS envelope but exit {}: not a success", exit.unwrap_or_default()),
            "success-envelope-with-failing-exit-is-not-a-success",
        ),
        "SUCCESS" if images == 0 && r.response.as_deref() == Some("") && r.usage.is_zero() => (
            OneshotAgy::PrintTimeout,
            "SUCCESS with an empty response, zero usage and no image is agy's --print-timeout expiry (docs/spike-records.md S6c): ADR 0013 row 1, checked before the missing-output row, a retryable timeout".into(),
            "empty-success-is-a-retryable-timeout",
        ),
        "SUCCESS" if images == 0 && r.response.as_deref().is_some_and(mentions_image_quota) => (
            OneshotAgy::QuotaInProse,
            "SUCCESS, no image, and the image model's 429 in the prose (docs/spike-records.md S7 correction): a retryable transient error, before the missing-output row".into(),
            "image-quota-in-success-prose-is-transient",
        ),
        "SUCCESS" if images == 0 => (
            OneshotAgy::NoImage,
            "SUCCESS but no image in brain/<conversation_id>/: ADR 0013 row 2, output missing, not retryable".into(),
            "success-without-image-is-output-missing",
        ),
        "SUCCESS" if images == 1 => (
            OneshotAgy::Success {
                width: size.0,
                height: size.1,
            },
            "exit 0, SUCCESS and exactly one image: success, the image delivered and decodable (ADR 0013 decision 3)".into(),
            "success-delivers-the-image",
        ),
        "SUCCESS" => (
            OneshotAgy::TwoImages,
            format!("SUCCESS with {images} images in brain/<conversation_id>/: success needs exactly one (ADR 0013 decision 3)"),
            "several-images-are-not-a-success",
        ),
        "ERROR" if mentions_auth(&r.error) => (
            OneshotAgy::Auth,
            "an ERROR naming authentication: an auth error, not retryable".into(),
            "auth-error-is-not-retryable",
        ),
        s @ ("CANCELED" | "INTERRUPTED") => (
            OneshotAgy::Transient(static_status(s)),
            format!("status {s}: ADR 0013, a retryable transient error"),
            "canceled-run-is-transient",
        ),
        s => (
            OneshotAgy::Permanent(static_status(s)),
            format!("status {s}: ADR 0013, a permanent error"),
            "error-status-is-permanent",
        ),
    }
}

/// The op for one agy run of a profile that runs agy once per request:
/// `action(prompt, timeout_s)` with the run's prompt (or `default_prompt`), a 1 s timeout
/// for a run that hung (so the adapter's own bound is what ends it) and a reply bound
/// that covers the kill.
pub fn print_run_op(
    p: &Process,
    agy: &OneshotAgy,
    default_prompt: &str,
    action: impl Fn(&str, u64) -> String,
    expect: OpExpect,
    why: &str,
) -> OpPlan {
    let hang = matches!(agy, OneshotAgy::Hang);
    let timeout = if hang { 1 } else { p.timeout_s.unwrap_or(600) };
    let prompt = p.prompt.as_deref().unwrap_or(default_prompt);
    OpPlan {
        action: action(&quote(prompt), timeout),
        reply_within: hang.then(|| "45s".to_string()),
        expect,
        why: vec![format!("{}: {why}", p.origin)],
    }
}

/// A plan of one op per agy run: `journal` bounds the runs, no history, no ACP.
pub fn print_run_plan(
    ops: Vec<OpPlan>,
    journal: JournalExpect,
    slug: String,
    summary: String,
) -> Plan {
    Plan {
        ops,
        journal: JournalExpect {
            none_left_running: Some(true),
            ..journal
        },
        history: None,
        acp: None,
        slug,
        summary,
        unanswered: 0,
    }
}

/// Oneshot: one generate op per invocation, judged by the fuzz oracle.
pub fn oneshot_plan(case: &ReproCase) -> Plan {
    let classes: Vec<_> = case.processes.iter().map(classify).collect();
    let fuzz = fuzz_oracle(&Case::Oneshot(OneshotCase {
        steps: classes
            .iter()
            .map(|(agy, _, _)| OneshotStep {
                delay_ms: 0,
                agy: agy.clone(),
            })
            .collect(),
    }));
    let ops = case
        .processes
        .iter()
        .zip(&classes)
        .zip(&fuzz.ops)
        .map(|((p, (agy, why, _)), o)| {
            let generate = |prompt: &str, timeout: u64| {
                format!(
                    "generate = {{ prompt = {prompt}, aspect = \"16:9\", timeout_s = {timeout} }}"
                )
            };
            print_run_op(
                p,
                agy,
                "a purple hexagon, 16:9 widescreen",
                generate,
                op_expect(o),
                why,
            )
        })
        .collect();
    let (slug, summary) = classes
        .iter()
        .find(|c| !matches!(c.0, OneshotAgy::Success { .. }))
        .or(classes.first())
        .map(|c| (c.2.to_string(), c.1.clone()))
        .unwrap_or_default();
    let journal = JournalExpect {
        invocations: fuzz.invocations.and_then(|n| u32::try_from(n).ok()),
        argv_lacks: fuzz.argv_lacks.iter().map(|a| a.to_string()).collect(),
        ..JournalExpect::default()
    };
    print_run_plan(ops, journal, slug, summary)
}
