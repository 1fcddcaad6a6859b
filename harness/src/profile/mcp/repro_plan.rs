//! The plan of an `mcp` reproduction: one tool call per agy print run the report shows,
//! each judged by the `mcp` contract (docs/contract.md, "mcp"): a success carries agy's
//! answer, a failure is `isError` with the class its text names, and no agy process is
//! left behind.

use crate::profile::fuzz_kit::case::OneshotAgy;
use crate::profile::repro_kit::case::ReproCase;
use crate::profile::repro_kit::plan::{
    classify, duration, outcomes, print_run_op, print_run_plan, Plan,
};
use crate::scenario::{JournalExpect, OpExpect};
use agy_protocol::driver::Outcome;

/// The expectation of one tool call whose agy run showed `agy`.
fn tool_expect(agy: &OneshotAgy) -> OpExpect {
    let (outcome, name): (&[Outcome], Option<&str>) = match agy {
        OneshotAgy::PrintTimeout | OneshotAgy::Hang => (&[Outcome::Timeout], Some("timeout")),
        OneshotAgy::Auth => (&[Outcome::Auth], Some("auth")),
        OneshotAgy::QuotaInProse => (&[Outcome::Success, Outcome::Transient], None),
        OneshotAgy::Permanent(_)
        | OneshotAgy::Transient(_)
        | OneshotAgy::Crash(_)
        | OneshotAgy::SuccessExit1 => (
            &[
                Outcome::Timeout,
                Outcome::Transient,
                Outcome::Auth,
                Outcome::Permanent,
            ],
            None,
        ),
        OneshotAgy::Success { .. }
        | OneshotAgy::NoImage
        | OneshotAgy::TwoImages
        | OneshotAgy::CorruptImage
        | OneshotAgy::SubagentImage => (&[Outcome::Success], None),
    };
    OpExpect {
        outcome: outcomes(outcome),
        error_name: name.map(str::to_string),
        agy_gone_within: duration("10s"),
        ..OpExpect::default()
    }
}

/// `mcp`: one tool call per invocation.
pub fn tool_plan(case: &ReproCase) -> Plan {
    let classes: Vec<_> = case.processes.iter().map(classify).collect();
    let ops = case
        .processes
        .iter()
        .zip(&classes)
        .map(|(p, (agy, why, _))| {
            let call = |prompt: &str, timeout: u64| {
                format!("tool_call = {{ prompt = {prompt}, timeout_s = {timeout} }}")
            };
            print_run_op(p, agy, "a question", call, tool_expect(agy), why)
        })
        .collect();
    let (slug, summary) = classes
        .iter()
        .find(|c| !matches!(c.0, OneshotAgy::Success { .. }))
        .or(classes.first())
        .map(|c| (format!("tool-{}", c.2), c.1.clone()))
        .unwrap_or_default();
    let journal = JournalExpect {
        invocations: u32::try_from(case.processes.len()).ok(),
        ..JournalExpect::default()
    };
    print_run_plan(ops, journal, slug, summary)
}
