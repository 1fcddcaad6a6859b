//! Whether an MCP server's tool has the `mcp` profile's shape ([`MCP_SHAPE`]), inferred
//! from a neutral run (docs/contract.md, "Outside the profile"): one tool call against an
//! agy that answers a known text. A tool that starts agy's interactive UI, runs no agy
//! turn, or answers without agy's answer (a run id, a status) is outside the shape, and
//! `agy-harness check --infer` prints the `outside_profile` line to paste under `[mcp]`.

use crate::mcp_table::MCP_SHAPE;
use agy_protocol::command_line::{invocation_kind, parse_args, InvocationKind};
use agy_protocol::journal::JournalRecord;
use agy_protocol::script::RunMode;

/// The answer fake-agy gives in the neutral run of the `mcp` profile.
pub const MCP_NEUTRAL_ANSWER: &str = "Neutral answer 7Q";

/// The neutral run of the `mcp` profile: one call, whose agy answers
/// [`MCP_NEUTRAL_ANSWER`]; the op's expectation says whether the answer came back.
pub const MCP_NEUTRAL_RUN: &str = r#"[scenario]
name    = "mcp/neutral-run"
profile = "mcp"

[[agy.invocation]]
steps = [{ default = { response = "Neutral answer 7Q" } }]

[[op]]
tool_call = { prompt = "Neutral question", timeout_s = 60 }
expect    = { outcome = "success", text_contains = ["Neutral answer 7Q"] }
"#;

/// Why the neutral run shows the tool outside the `mcp` profile's shape, `None` when it
/// has the shape: `journal` is fake-agy's, `answered` whether the call's answer was a
/// success carrying [`MCP_NEUTRAL_ANSWER`].
pub fn infer_outside(journal: &[JournalRecord], answered: bool) -> Option<String> {
    let turns: Vec<&JournalRecord> = journal
        .iter()
        .filter(|r| invocation_kind(&r.argv) == InvocationKind::Turn)
        .collect();
    if let Some(ui) = turns.iter().find(|r| is_interactive(r)) {
        return Some(format!(
            "the tool starts agy's interactive UI (`{}`), not a print run (`-p`/`--print`)",
            ui.argv.join(" ")
        ));
    }
    if turns.is_empty() {
        return Some("the call ran no agy turn".into());
    }
    (!answered).then(|| {
        "the call ran agy, but its answer does not carry agy's answer (a run id or a status instead?)".into()
    })
}

fn is_interactive(r: &JournalRecord) -> bool {
    let mode = r.mode.or_else(|| {
        parse_args(r.argv.get(1..).unwrap_or_default())
            .ok()
            .map(|a| a.run_mode())
    });
    mode == Some(RunMode::Interactive)
}

/// What `check --infer` prints for the tool: the line to paste, or that it has the shape.
pub fn render_outside(outside: Option<&str>) -> String {
    match outside {
        Some(why) => format!(
            "the tool is not of the `mcp` profile's shape ({MCP_SHAPE}); if that is so, paste under `[mcp]`, with the file and lines that show it:\noutside_profile = {:?}\n",
            why
        ),
        None => format!("the tool has the `mcp` profile's shape ({MCP_SHAPE})\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_record as record;

    #[test]
    fn a_print_run_whose_answer_comes_back_has_the_shape() {
        let journal = [record(1, 1, &["agy", "-p", "Neutral question"], 0, Some(1))];
        assert_eq!(infer_outside(&journal, true), None);
        assert!(render_outside(None).contains("has the `mcp` profile's shape"));
    }

    #[test]
    fn a_run_id_answer_an_interactive_start_or_no_turn_is_outside_the_shape() {
        let print = [record(1, 1, &["agy", "-p", "Neutral question"], 0, Some(1))];
        let why = infer_outside(&print, false).expect("outside");
        assert!(why.contains("does not carry agy's answer"), "{why}");
        let ui = [record(
            1,
            1,
            &["agy", "--prompt-interactive", "Neutral question"],
            0,
            Some(1),
        )];
        let why = infer_outside(&ui, true).expect("outside");
        assert!(why.contains("interactive UI"), "{why}");
        let probe_only = [record(1, 1, &["agy", "--version"], 0, Some(1))];
        let why = infer_outside(&probe_only, false).expect("outside");
        assert!(why.contains("no agy turn"), "{why}");
        assert!(
            render_outside(Some(&why)).contains("outside_profile = \"the call ran no agy turn\"")
        );
    }
}
