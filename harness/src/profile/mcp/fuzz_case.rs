//! Generated `mcp` cases: a few tool calls, each run by one agy print run that answers
//! or fails in one of the ways the `mcp` contract names, and the scenario file that
//! judges them by that contract (docs/contract.md, "mcp").

use crate::profile::fuzz_kit::render::{header, write_expect};
use crate::scenario::Profile;
use proptest::prelude::*;
use std::fmt::Write as _;

/// What agy does for one tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolAgy {
    /// Answers.
    Answer,
    /// Signed out: a pre-turn ERROR, exit 1.
    SignedOut,
    /// Quota exhausted mid-turn: ERROR, exit 3.
    Quota,
    /// The print timeout: SUCCESS with an empty response and zero usage.
    PrintTimeout,
}

/// A generated `mcp` case: one agy run per tool call, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCase {
    /// The calls.
    pub calls: Vec<ToolAgy>,
}

/// The `mcp` cases.
pub fn tool_case() -> impl Strategy<Value = ToolCase> {
    let agy = prop_oneof![
        3 => Just(ToolAgy::Answer),
        1 => Just(ToolAgy::SignedOut),
        1 => Just(ToolAgy::Quota),
        1 => Just(ToolAgy::PrintTimeout),
    ];
    prop::collection::vec(agy, 1..=3).prop_map(|calls| ToolCase { calls })
}

/// The steps of call `n`'s agy run and the reply the contract expects.
fn call_parts(n: usize, agy: ToolAgy) -> (String, Vec<String>) {
    let zero = "duration_seconds = 0, num_turns = 0, usage = \"zero\"";
    match agy {
        ToolAgy::Answer => (
            format!("{{ default = {{ response = \"answer {n}\" }} }}"),
            vec!["outcome = \"success\"".into(), format!("text = \"answer {n}\"")],
        ),
        ToolAgy::SignedOut => (
            format!("{{ stderr = \"error: authentication required\" }}, {{ envelope = {{ conversation_id = \"\", status = \"ERROR\", response = \"\", error = \"authentication required\", {zero} }} }}, {{ exit = 1 }}"),
            vec!["outcome = \"auth\"".into(), "error_name = \"auth\"".into()],
        ),
        ToolAgy::Quota => (
            "{ quota_exhausted = true }".into(),
            vec!["outcome = \"transient\"".into(), "error_name = \"quota\"".into()],
        ),
        ToolAgy::PrintTimeout => (
            "{ envelope = { status = \"SUCCESS\", response = \"\", duration_seconds = 0, num_turns = 1, usage = \"zero\" } }, { exit = 0 }".into(),
            vec!["outcome = \"timeout\"".into(), "error_name = \"timeout\"".into()],
        ),
    }
}

/// The scenario file of `case`, named `name`, with `comment` lines on top.
pub fn render_tool(
    profile: Profile,
    case: &ToolCase,
    name: &str,
    description: &str,
    comment: &[String],
) -> String {
    let mut out = header(profile, None, name, description, comment);
    let parts: Vec<(String, Vec<String>)> = case
        .calls
        .iter()
        .enumerate()
        .map(|(i, agy)| call_parts(i + 1, *agy))
        .collect();
    for (steps, _) in &parts {
        let _ = writeln!(out, "[[agy.invocation]]\nsteps = [{steps}]\n");
    }
    for (i, (_, expect)) in parts.iter().enumerate() {
        let _ = writeln!(
            out,
            "[[op]]\ntool_call = {{ prompt = \"question {}\", timeout_s = 600 }}",
            i + 1
        );
        let mut expect = expect.clone();
        expect.push("agy_gone_within = \"5s\"".into());
        write_expect(&mut out, &expect);
    }
    let _ = writeln!(
        out,
        "[expect.journal]\ninvocations = {}\nnone_left_running = true",
        case.calls.len()
    );
    out
}

crate::profile::fuzz_case!(
    /// A generated `mcp` case as `fuzz` holds it.
    Tool(ToolCase) => render_tool
);
