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

/// The prompts of the neutral run's three asks: each run is told apart by the ask it
/// carries, so a client that runs agy twice for one ask, or re-sends the chat, is read
/// right.
const ASK_PROMPTS: [&str; 3] = [
    "First neutral question",
    "Second neutral question",
    "Third neutral question",
];

/// The neutral run of the `text` profile: two asks of one conversation, both with the
/// same model, effort and skipped permissions (a changed selection may start a new
/// conversation), then one whose agy hangs past its timeout and asks nothing of
/// permissions. Its agy answers each ask by the prompt it carries, however often the
/// client runs it (the later asks' rules first: a client may re-send the chat), and
/// whatever model it is given (an envelope step checks none): a client that passes the
/// model and not the effort is read as it is, not stopped by agy's refusal of a
/// tier-less model.
pub const TEXT_NEUTRAL_RUN: &str = r#"[scenario]
name    = "text/neutral-run"
profile = "text"

[[agy.invocation]]
when  = { prompt_contains = "Third neutral question" }
times = "always"
steps = [{ hang = true }]

[[agy.invocation]]
when  = { prompt_contains = "Second neutral question" }
times = "always"
steps = [{ envelope = { status = "SUCCESS", response = "Two." } }, { exit = 0 }]

[[agy.invocation]]
when  = { prompt_contains = "First neutral question" }
times = "always"
steps = [{ envelope = { status = "SUCCESS", response = "One." } }, { exit = 0 }]

# A prompt piped on stdin is read only when the turn runs (docs/script-format.md): such a
# client's runs get this answer, and its hung third ask is not acted.
[[agy.invocation]]
times = "always"
steps = [{ envelope = { status = "SUCCESS", response = "Done." } }, { exit = 0 }]

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
    let run_of = |ask: usize| run_of_ask(&turns, ask);
    let mut out = output_modes(&turns);
    out.extend(first_ask(run_of(0), run_of(2)));
    out.push(continuation(run_of(1)));
    let hung = turns
        .iter()
        .any(|r| r.argv.iter().any(|a| a.contains(ASK_PROMPTS[2])));
    out.push(Inference {
        premise: Premise::CallerTimeout,
        offered: hung.then_some(hung_run_stopped),
        because: match (hung, hung_run_stopped) {
            (false, _) => "the third ask's prompt reached no agy argv (piped on stdin?), so no agy hung for it: decide by hand".into(),
            (true, true) => "an agy that hung past the ask's timeout was stopped".into(),
            (true, false) => "an agy that hung past the ask's timeout was not stopped before the reply bound".into(),
        },
    });
    for premise in [
        Premise::Concurrency,
        Premise::Cancel,
        Premise::ErrorClassAuth,
        Premise::ErrorClassQuota,
        Premise::ErrorClassRejectedModel,
        Premise::ErrorClassTimeout,
    ] {
        out.push(Inference {
            premise,
            offered: None,
            because: "a neutral run cannot show it: decide by hand".into(),
        });
    }
    out
}

/// The run of ask `ask` (0-based): the first turn that carries its prompt, in its argv
/// or on its stdin; without one (a client that rewrites the prompt), the turn at its
/// position.
fn run_of_ask<'a>(turns: &[&'a JournalRecord], ask: usize) -> Option<&'a JournalRecord> {
    let prompt = ASK_PROMPTS[ask];
    let carries = |r: &&&JournalRecord| {
        r.argv.iter().any(|a| a.contains(prompt))
            || r.stdin.lines.iter().any(|l| l.text.contains(prompt))
    };
    turns
        .iter()
        .find(carries)
        .or_else(|| turns.get(ask))
        .copied()
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

/// Model, effort and skipped permissions, from the first ask's run; the third ask
/// asks nothing of permissions, so a client whose run of it skips them too skips them
/// always, which is no choice the caller has.
fn first_ask(run: Option<&JournalRecord>, unasked: Option<&JournalRecord>) -> Vec<Inference> {
    let parsed = |r: Option<&JournalRecord>| {
        r.and_then(|r| parse_args(r.argv.get(1..).unwrap_or_default()).ok())
    };
    let args = parsed(run);
    let always_skips = parsed(unasked).is_some_and(|a| a.skip_permissions);
    let model = args.as_ref().and_then(|a| a.model.clone());
    let effort = args.as_ref().and_then(|a| a.effort.clone());
    let model_reached = model.as_deref().is_some_and(|m| m.starts_with(ASKED_MODEL));
    let effort_reached = effort.as_deref() == Some(ASKED_EFFORT)
        || model
            .as_deref()
            .is_some_and(|m| m.ends_with(&format!("-{ASKED_EFFORT}")));
    let skipped = args.as_ref().is_some_and(|a| a.skip_permissions) && !always_skips;
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
            because: if always_skips {
                "every run skips permissions (`--dangerously-skip-permissions`), asked or not: no choice for the caller".into()
            } else {
                said(
                    skipped,
                    "skipped permissions (`--dangerously-skip-permissions`)",
                )
            },
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
            record(4, 13, &third(second), 70, None),
        ]
    }

    /// The third ask's run: the second's argv with the third ask's prompt.
    fn third<'a>(second: &[&'a str]) -> Vec<&'a str> {
        second
            .iter()
            .map(|a| {
                if a.contains(ASK_PROMPTS[1]) {
                    ASK_PROMPTS[2]
                } else {
                    a
                }
            })
            .collect()
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
                ASK_PROMPTS[0],
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
                ASK_PROMPTS[1],
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
        assert_eq!(offered(&i, Premise::ErrorClassTimeout), None);
        assert!(i.iter().any(|x| x.premise == Premise::ErrorClassTimeout));
        let line = render_offers(&i);
        assert!(
            line.starts_with("offers = [\"output-mode:json\", \"model-choice\", \"effort-choice\", \"skip-permissions\", \"continuation\", \"caller-timeout\"]\n"),
            "{line}"
        );
    }

    #[test]
    fn a_text_client_that_drops_the_model_and_re_sends_the_chat_offers_neither() {
        let resent = format!("{}\n{}", ASK_PROMPTS[0], ASK_PROMPTS[1]);
        let runs = journal(&["agy", "-p", ASK_PROMPTS[0]], &["agy", "-p", &resent]);
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

    // Regression: playmaker-cli runs agy twice for one ask; read by position, the
    // first ask's second run was taken for the second ask's.
    #[test]
    fn each_ask_is_read_from_the_run_that_carries_its_prompt() {
        let first = [
            "agy",
            "-p",
            ASK_PROMPTS[0],
            "--model",
            "gemini-3.8-flash-high",
        ];
        let runs = vec![
            record(1, 10, &first, 10, Some(20)),
            record(2, 11, &first, 30, Some(40)),
            record(
                3,
                12,
                &["agy", "-p", ASK_PROMPTS[1], "--conversation", "c-1"],
                50,
                Some(60),
            ),
        ];
        let i = infer_offers(&runs, true);
        assert_eq!(offered(&i, Premise::Continuation), Some(true), "{i:?}");
        assert_eq!(offered(&i, Premise::ModelChoice), Some(true), "{i:?}");
    }

    // Regression: wechatbridge-cli passes --dangerously-skip-permissions on every run;
    // read from the ask that asked for it alone, it showed as the caller's choice.
    #[test]
    fn a_client_that_always_skips_permissions_offers_no_choice() {
        let skip = "--dangerously-skip-permissions";
        let runs = vec![
            record(1, 10, &["agy", "-p", ASK_PROMPTS[0], skip], 10, Some(20)),
            record(2, 11, &["agy", "-p", ASK_PROMPTS[1], skip], 30, Some(40)),
            record(3, 12, &["agy", "-p", ASK_PROMPTS[2], skip], 50, None),
        ];
        let i = infer_offers(&runs, true);
        assert_eq!(offered(&i, Premise::SkipPermissions), Some(false), "{i:?}");
        let asked_only = vec![
            record(1, 10, &["agy", "-p", ASK_PROMPTS[0], skip], 10, Some(20)),
            record(3, 12, &["agy", "-p", ASK_PROMPTS[2]], 50, None),
        ];
        let i = infer_offers(&asked_only, true);
        assert_eq!(offered(&i, Premise::SkipPermissions), Some(true), "{i:?}");
    }

    #[test]
    fn the_neutral_run_carries_each_ask_s_prompt() {
        for prompt in ASK_PROMPTS {
            assert_eq!(TEXT_NEUTRAL_RUN.matches(prompt).count(), 2, "{prompt}");
        }
    }

    #[test]
    fn a_third_ask_whose_prompt_reached_no_argv_leaves_the_timeout_to_decide_by_hand() {
        let runs = vec![record(1, 10, &["agy"], 10, Some(20))];
        let i = infer_offers(&runs, true);
        assert_eq!(offered(&i, Premise::CallerTimeout), None, "{i:?}");
    }
}
