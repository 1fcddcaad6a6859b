//! The plan of a `text` reproduction: one `ask` per agy run, each judged by the
//! print-mode text client's contract (docs/contract.md, `text`). A run is read the way
//! the oneshot oracle reads it ([`crate::profile::repro_kit::plan`]); what it means for a text client
//! differs: a SUCCESS with prose is the answer, whatever the brain folder holds.

use crate::profile::fuzz_kit::case::OneshotAgy;
use crate::profile::repro_kit::case::ReproCase;
use crate::profile::repro_kit::plan::{
    classify, duration, outcomes, print_run_op, print_run_plan, Plan,
};
use crate::scenario::{JournalExpect, OpExpect};
use agy_protocol::driver::Outcome;

/// What a correct text client reports for a run read as `agy`: the outcomes allowed,
/// whether it is retryable, and why.
fn expected(agy: &OneshotAgy) -> (&'static [Outcome], Option<bool>, &'static str) {
    match agy {
        OneshotAgy::PrintTimeout => (&[Outcome::Timeout], Some(true), "an empty SUCCESS with zero usage is agy's print timeout (docs/agy-reference.md §2.4): a retryable timeout, never an answer"),
        OneshotAgy::Auth => (&[Outcome::Auth], Some(false), "an authentication failure: `auth`, not retried"),
        OneshotAgy::Transient(_) => (&[Outcome::Transient], Some(true), "CANCELED or INTERRUPTED: a transient failure, not an empty success"),
        OneshotAgy::Permanent(_) => (&[Outcome::Permanent, Outcome::Transient], None, "a status that is no answer: not a success"),
        OneshotAgy::Crash(_) | OneshotAgy::SuccessExit1 => (&[Outcome::Permanent, Outcome::Transient, Outcome::OutputMissing], None, "a failing exit or no result: not a success, whatever text streamed"),
        OneshotAgy::Hang => (&[Outcome::Timeout], Some(true), "agy never finishes: killed within timeout_s plus the grace, a retryable timeout, no process left"),
        _ => (&[Outcome::Success], None, "exit 0 and SUCCESS with an answer: the answer is the response"),
    }
}

/// Text: one ask per invocation.
pub fn text_plan(case: &ReproCase) -> Plan {
    let classes: Vec<_> = case.processes.iter().map(classify).collect();
    let ops = case
        .processes
        .iter()
        .zip(&classes)
        .map(|(p, (agy, _, _))| {
            let (allowed, retryable, why) = expected(agy);
            let expect = OpExpect {
                outcome: outcomes(allowed),
                retryable,
                agy_gone_within: matches!(agy, OneshotAgy::Hang)
                    .then(|| duration("10s"))
                    .flatten(),
                ..OpExpect::default()
            };
            let ask = |prompt: &str, timeout: u64| {
                format!("ask = {{ prompt = {prompt}, timeout_s = {timeout} }}")
            };
            print_run_op(p, agy, "say hello", ask, expect, why)
        })
        .collect();
    let (slug, summary) = classes
        .iter()
        .find(|c| expected(&c.0).0 != [Outcome::Success])
        .or(classes.first())
        .map(|c| (format!("text-{}", c.2), expected(&c.0).2.to_string()))
        .unwrap_or_default();
    let journal = JournalExpect {
        invocations: u32::try_from(case.processes.len()).ok(),
        argv_lacks: vec!["--dangerously-skip-permissions".into()],
        ..JournalExpect::default()
    };
    print_run_plan(ops, journal, slug, summary)
}
