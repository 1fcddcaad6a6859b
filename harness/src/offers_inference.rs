//! What an adapter offers, inferred from a neutral run (docs/harness.md, "The adapter
//! config"; docs/contract.md, "Premises and capabilities"): the run asks for a model, an
//! effort, skipped permissions and a continued conversation, then for an answer from an
//! agy that hangs past a short timeout; what agy was given, and how the hung run ended,
//! say which premises the adapter offers. `agy-harness check --infer` prints the
//! `offers = [...]` line to paste.

use agy_protocol::command_line::{invocation_kind, parse_args, InvocationKind};
use agy_protocol::journal::JournalRecord;
use agy_protocol::script::RunMode;
use agy_protocol::Premise;

/// The model the neutral run asks for.
pub const ASKED_MODEL: &str = "gemini-3.8-flash";
/// The effort the neutral run asks for.
pub const ASKED_EFFORT: &str = "high";

/// The neutral run of the `text` profile: two asks of one conversation, both with the
/// same model, effort and skipped permissions (a changed selection may start a new
/// conversation), then one whose agy hangs past its timeout.
pub const TEXT_NEUTRAL_RUN: &str = r#"[scenario]
name    = "text/neutral-run"
profile = "text"

[[agy.invocation]]
steps = [{ default = { response = "One." } }]

[[agy.invocation]]
steps = [{ default = { response = "Two." } }]

[[agy.invocation]]
steps = [{ hang = true }]

[[op]]
ask = { session = "neutral", prompt = "First neutral question", timeout_s = 60, model = "gemini-3.8-flash", effort = "high", permission = "skip" }

[[op]]
ask = { session = "neutral", prompt = "Second neutral question", timeout_s = 60, model = "gemini-3.8-flash", effort = "high", permission = "skip" }

[[op]]
ask          = { prompt = "Third neutral question", timeout_s = 1 }
reply_within = "15s"
"#;

/// One premise as the run showed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inference {
    /// The premise.
    pub premise: Premise,
    /// Whether the run showed the adapter offers it; `None`: the run cannot show it.
    pub offered: Option<bool>,
    /// What the run showed.
    pub because: String,
}

/// What the neutral run showed: its turn invocations in order (a probe such as
/// `agy --version` is left out), and whether the third ask's hung agy was stopped
/// before the reply bound.
pub fn infer_offers(journal: &[JournalRecord], hung_run_stopped: bool) -> Vec<Inference> {
    let turns: Vec<&JournalRecord> = journal
        .iter()
        .filter(|r| invocation_kind(&r.argv) == InvocationKind::Turn)
        .collect();
    let mut out = output_modes(&turns);
    out.extend(first_ask(turns.first().copied()));
    out.push(continuation(turns.get(1).copied()));
    out.push(Inference {
        premise: Premise::CallerTimeout,
        offered: Some(hung_run_stopped),
        because: if hung_run_stopped {
            "an agy that hung past the ask's timeout was stopped".into()
        } else {
            "an agy that hung past the ask's timeout was not stopped before the reply bound".into()
        },
    });
    for premise in [
        Premise::Concurrency,
        Premise::Cancel,
        Premise::ErrorClassAuth,
        Premise::ErrorClassQuota,
        Premise::ErrorClassRejectedModel,
    ] {
        out.push(Inference {
            premise,
            offered: None,
            because: "a neutral run cannot show it: decide by hand".into(),
        });
    }
    out
}

/// The output modes the turn runs used (a start of the interactive UI uses none).
fn output_modes(turns: &[&JournalRecord]) -> Vec<Inference> {
    let modes: Vec<RunMode> = turns.iter().filter_map(|r| mode_of(r)).collect();
    [
        (Premise::OutputText, RunMode::Text, "text"),
        (Premise::OutputJson, RunMode::Json, "json"),
        (
            Premise::OutputStreamJson,
            RunMode::StreamJson,
            "stream-json",
        ),
    ]
    .into_iter()
    .map(|(premise, mode, word)| {
        let used = modes.contains(&mode);
        Inference {
            premise,
            offered: Some(used),
            because: format!(
                "{} run of the neutral run used {word} output",
                if used { "a" } else { "no" }
            ),
        }
    })
    .collect()
}

/// The run mode of a record: the journal's, else read from its argv.
fn mode_of(r: &JournalRecord) -> Option<RunMode> {
    r.mode.or_else(|| {
        parse_args(r.argv.get(1..).unwrap_or_default())
            .ok()
            .map(|a| a.run_mode())
    })
}

/// Model, effort and skipped permissions, from the first ask's run.
fn first_ask(run: Option<&JournalRecord>) -> Vec<Inference> {
    let args = run.and_then(|r| parse_args(r.argv.get(1..).unwrap_or_default()).ok());
    let model = args.as_ref().and_then(|a| a.model.clone());
    let effort = args.as_ref().and_then(|a| a.effort.clone());
    let model_reached = model.as_deref().is_some_and(|m| m.starts_with(ASKED_MODEL));
    let effort_reached = effort.as_deref() == Some(ASKED_EFFORT)
        || model
            .as_deref()
            .is_some_and(|m| m.ends_with(&format!("-{ASKED_EFFORT}")));
    let skipped = args.as_ref().is_some_and(|a| a.skip_permissions);
    let said = |reached: bool, what: &str| {
        format!(
            "the first ask's {what} {} agy",
            if reached { "reached" } else { "did not reach" }
        )
    };
    vec![
        Inference {
            premise: Premise::ModelChoice,
            offered: Some(model_reached),
            because: said(model_reached, &format!("model `{ASKED_MODEL}`")),
        },
        Inference {
            premise: Premise::EffortChoice,
            offered: Some(effort_reached),
            because: said(effort_reached, &format!("effort `{ASKED_EFFORT}`")),
        },
        Inference {
            premise: Premise::SkipPermissions,
            offered: Some(skipped),
            because: said(
                skipped,
                "skipped permissions (`--dangerously-skip-permissions`)",
            ),
        },
    ]
}

/// Whether the second ask of the conversation continued it.
fn continuation(run: Option<&JournalRecord>) -> Inference {
    let args = run.and_then(|r| parse_args(r.argv.get(1..).unwrap_or_default()).ok());
    let continued = args
        .as_ref()
        .is_some_and(|a| a.conversation.is_some() || a.continue_last);
    Inference {
        premise: Premise::Continuation,
        offered: Some(continued),
        because: format!(
            "the second ask of the conversation ran {} `--conversation` or `--continue`",
            if continued { "with" } else { "without" }
        ),
    }
}

/// The `offers = [...]` line the inferences come to, then one comment line per premise.
pub fn render_offers(inferences: &[Inference]) -> String {
    let offered: Vec<String> = (inferences.iter())
        .filter(|i| i.offered == Some(true))
        .map(|i| format!("\"{}\"", i.premise))
        .collect();
    let mut out = format!("offers = [{}]\n", offered.join(", "));
    for i in inferences {
        let mark = match i.offered {
            Some(true) => "offered",
            Some(false) => "not offered",
            None => "unknown",
        };
        out.push_str(&format!("# {} — {mark}: {}\n", i.premise, i.because));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_record as record;

    fn journal(first: &[&str], second: &[&str]) -> Vec<JournalRecord> {
        vec![
            record(1, 10, &["agy", "--version"], 10, Some(20)),
            record(2, 11, first, 30, Some(40)),
            record(3, 12, second, 50, Some(60)),
        ]
    }

    fn offered(i: &[Inference], p: Premise) -> Option<bool> {
        i.iter().find(|x| x.premise == p).and_then(|x| x.offered)
    }

    #[test]
    fn a_json_client_that_passes_model_effort_and_conversation_offers_them() {
        let runs = journal(
            &[
                "agy",
                "-p",
                "First",
                "--output-format",
                "json",
                "--model",
                "gemini-3.8-flash",
                "--effort",
                "high",
                "--dangerously-skip-permissions",
            ],
            &[
                "agy",
                "-p",
                "Second",
                "--output-format",
                "json",
                "--conversation",
                "c-1",
            ],
        );
        let i = infer_offers(&runs, true);
        assert_eq!(offered(&i, Premise::OutputJson), Some(true));
        assert_eq!(offered(&i, Premise::OutputText), Some(false));
        assert_eq!(offered(&i, Premise::ModelChoice), Some(true));
        assert_eq!(offered(&i, Premise::EffortChoice), Some(true));
        assert_eq!(offered(&i, Premise::SkipPermissions), Some(true));
        assert_eq!(offered(&i, Premise::Continuation), Some(true));
        assert_eq!(offered(&i, Premise::CallerTimeout), Some(true));
        assert_eq!(offered(&i, Premise::Concurrency), None);
        let line = render_offers(&i);
        assert!(
            line.starts_with("offers = [\"output-mode:json\", \"model-choice\", \"effort-choice\", \"skip-permissions\", \"continuation\", \"caller-timeout\"]\n"),
            "{line}"
        );
    }

    #[test]
    fn a_text_client_that_drops_the_model_and_re_sends_the_chat_offers_neither() {
        let runs = journal(&["agy", "-p", "First"], &["agy", "-p", "First\nSecond"]);
        let i = infer_offers(&runs, false);
        assert_eq!(offered(&i, Premise::OutputText), Some(true));
        assert_eq!(offered(&i, Premise::OutputJson), Some(false));
        assert_eq!(offered(&i, Premise::ModelChoice), Some(false));
        assert_eq!(offered(&i, Premise::EffortChoice), Some(false));
        assert_eq!(offered(&i, Premise::Continuation), Some(false));
        assert_eq!(offered(&i, Premise::CallerTimeout), Some(false));
        let line = render_offers(&i);
        assert!(
            line.starts_with("offers = [\"output-mode:text\"]\n"),
            "{line}"
        );
        assert!(line.contains("# concurrency — unknown"), "{line}");
    }

    #[test]
    fn a_tiered_model_id_carries_the_effort_and_a_tui_start_uses_no_output_mode() {
        let runs = journal(&["agy", "--model", "gemini-3.8-flash-high"], &["agy"]);
        let i = infer_offers(&runs, false);
        assert_eq!(offered(&i, Premise::ModelChoice), Some(true));
        assert_eq!(offered(&i, Premise::EffortChoice), Some(true));
        assert_eq!(
            offered(&i, Premise::OutputText),
            Some(false),
            "the TUI is no text mode"
        );
    }
}
