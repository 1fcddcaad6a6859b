//! `only_if`: whether agy was given what an op's expectations are about. When it was
//! not (the client never sent agy the line, or ran agy with a flag the scenario does
//! not model), the op's expectations are not judged, and the report says why.

use super::journal_check::argv_has;
use crate::observation::{Observation, OpObservation};
use crate::scenario::AgyCondition;
use agy_protocol::journal::JournalRecord;
use agy_protocol::script::RunMode;
use agy_protocol::stream::parse_input_line;

/// Why `cond` does not hold for op `o`, or `None` when it holds.
pub fn unmet_condition(
    cond: &AgyCondition,
    obs: &Observation,
    o: &OpObservation,
) -> Option<String> {
    let during: Vec<&JournalRecord> = obs
        .journal
        .iter()
        .filter(|r| r.started_us <= o.replied_us && r.ended_us.is_none_or(|e| e >= o.sent_us))
        .collect();
    if let Some(prefix) = &cond.line_starts_with {
        let prompts: Vec<String> = during
            .iter()
            .flat_map(|r| &r.stdin.lines)
            .filter(|l| (o.sent_us..=o.replied_us).contains(&l.at_us))
            .map(|l| line_prompt(&l.text))
            .collect();
        if !prompts
            .iter()
            .any(|p| p.trim_start().starts_with(prefix.as_str()))
        {
            return Some(format!(
                "no stdin line agy received during the op starts with `{prefix}` (the client sent it otherwise): op {} {} not judged",
                o.index, o.name
            ));
        }
    }
    if let Some(flag) = &cond.argv_lacks {
        if let Some(r) = during.iter().find(|r| argv_has(&r.argv, flag)) {
            return Some(format!(
                "agy invocation {} ran with `{flag}`, which the scenario does not model: op {} {} not judged",
                r.invocation, o.index, o.name
            ));
        }
    }
    if let Some(modes) = &cond.mode {
        if let Some((r, mode)) = during.iter().find_map(|r| {
            // A probe is no turn (`agy --version` is journalled in text mode: the
            // mode its flags would run); a start of the interactive UI is the
            // adapter's mistake, not a mode the scenario leaves unmodelled: both are
            // judged.
            if r.kind() == agy_protocol::command_line::InvocationKind::Probe {
                return None;
            }
            let mode = r
                .mode
                .filter(|m| !matches!(m, RunMode::Command | RunMode::Interactive))?;
            (!modes.contains(&mode)).then_some((r, mode))
        }) {
            return Some(format!(
                "agy invocation {} ran in {} mode, which carries no status or envelope for the scenario to be about: op {} {} not judged",
                r.invocation,
                mode_word(mode),
                o.index,
                o.name
            ));
        }
    }
    None
}

/// How the report names a run mode (`--output-format`'s word for print runs).
fn mode_word(mode: RunMode) -> &'static str {
    match mode {
        RunMode::Text => "text",
        RunMode::Json => "json",
        RunMode::StreamJson => "stream-json",
        RunMode::Persistent => "persistent stream-json",
        RunMode::Command => "command",
        RunMode::Interactive => "interactive",
    }
}

/// The prompt of a stream-json stdin line, or the line itself when it is not one.
fn line_prompt(line: &str) -> String {
    parse_input_line(line)
        .map(|u| u.message.content.text())
        .unwrap_or_else(|_| line.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_record as record;
    use agy_protocol::journal::StdinLine;

    fn op() -> OpObservation {
        OpObservation {
            index: 3,
            name: "turn",
            sent_us: 100,
            replied_us: 200,
            reply: Err(crate::driver_client::DriverError::Timeout(
                std::time::Duration::ZERO,
            )),
            outcome: None,
            still_running: None,
        }
    }

    fn with_line(text: &str, at_us: u64) -> Observation {
        let mut r = record(1, 10, &["agy", "--input-format", "stream-json"], 50, None);
        r.stdin.lines.push(StdinLine {
            at_us,
            text: text.into(),
            rule: None,
        });
        Observation {
            journal: vec![r],
            ..Observation::default()
        }
    }

    #[test]
    fn a_slash_line_agy_received_meets_the_condition_and_a_preambled_one_does_not() {
        let cond = AgyCondition {
            line_starts_with: Some("/".into()),
            ..AgyCondition::default()
        };
        let slash = r#"{"event":"user","message":{"role":"user","content":"/model x"}}"#;
        let preambled =
            r#"{"event":"user","message":{"role":"user","content":"You are helpful.\n/model x"}}"#;
        assert_eq!(unmet_condition(&cond, &with_line(slash, 150), &op()), None);
        assert!(unmet_condition(&cond, &with_line(preambled, 150), &op()).is_some());
        assert!(
            unmet_condition(&cond, &with_line(slash, 20), &op()).is_some(),
            "a line of an earlier op"
        );
    }

    #[test]
    fn a_flag_the_scenario_does_not_model_leaves_the_op_unjudged() {
        let cond = AgyCondition {
            argv_lacks: Some("--json-schema".into()),
            ..AgyCondition::default()
        };
        let mut obs = with_line("x", 150);
        assert_eq!(unmet_condition(&cond, &obs, &op()), None);
        obs.journal[0].argv.push("--json-schema={}".into());
        let why = unmet_condition(&cond, &obs, &op()).expect("unmet");
        assert!(why.contains("--json-schema"), "{why}");
    }

    #[test]
    fn a_text_mode_run_leaves_an_envelope_scenario_unjudged_and_a_probe_does_not() {
        let cond = AgyCondition {
            mode: Some(vec![RunMode::Json, RunMode::StreamJson]),
            ..AgyCondition::default()
        };
        let mut obs = with_line("x", 150);
        obs.journal[0].mode = Some(RunMode::Json);
        assert_eq!(unmet_condition(&cond, &obs, &op()), None);
        let mut probe = obs.journal[0].clone();
        probe.invocation = 2;
        probe.mode = Some(RunMode::Command);
        obs.journal.push(probe);
        assert_eq!(unmet_condition(&cond, &obs, &op()), None, "a probe");
        obs.journal[0].mode = Some(RunMode::Interactive);
        assert_eq!(
            unmet_condition(&cond, &obs, &op()),
            None,
            "a start of the interactive UI is judged"
        );
        obs.journal[0].mode = Some(RunMode::Text);
        let why = unmet_condition(&cond, &obs, &op()).expect("unmet");
        assert!(why.contains("invocation 1 ran in text mode"), "{why}");
    }

    // Regression: agent-intern runs `agy --version` during a call, journalled in text
    // mode, and its envelope scenarios were not judged.
    #[test]
    fn a_version_probe_journalled_in_text_mode_leaves_the_op_judged() {
        let cond = AgyCondition {
            mode: Some(vec![RunMode::Json]),
            ..AgyCondition::default()
        };
        let mut obs = with_line("x", 150);
        obs.journal[0].mode = Some(RunMode::Json);
        let mut probe = record(2, 120, &["agy", "--version"], 130, Some(0));
        probe.mode = Some(RunMode::Text);
        obs.journal.push(probe);
        assert_eq!(unmet_condition(&cond, &obs, &op()), None);
    }
}
