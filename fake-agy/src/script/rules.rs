//! Which rule serves an invocation or a stdin line: the first, in file order, whose
//! `when` holds and whose use count is below its `times` limit.
//!
//! Rules speak of turn invocations: a probe (`--version`, `models`, `update`, a slash
//! command) is served only by a rule that targets probes (`mode = "command"` or an argv
//! predicate); otherwise it answers as the modelled agy. A command line agy's flag
//! parser answers itself (`-h`, an undefined flag) counts as a probe and is served only
//! by a rule with an `argv_has` predicate. `nth` counts invocations of the same kind
//! (turns for a turn, probes for a probe).

use crate::store::state::invocation_key;
use agy_protocol::command_line::InvocationKind;
use agy_protocol::script::{
    InvocationMatch, InvocationRule, RunMode, Script, Times, TurnMatch, TurnRule,
};
use std::collections::BTreeMap;

/// What an invocation rule is matched against.
#[derive(Debug, Clone, Copy)]
pub struct InvocationFacts<'a> {
    /// 1-based index among the scenario's invocations of the same kind.
    pub n: u32,
    /// Turn or probe.
    pub kind: InvocationKind,
    /// argv without `argv[0]`.
    pub argv: &'a [String],
    /// The `-p` prompt.
    pub prompt: Option<&'a str>,
    /// The run mode.
    pub mode: RunMode,
    /// The command line did not parse: agy's flag parser answers it.
    pub flag_error: bool,
}

/// The journal label of invocation rule `i`.
pub fn invocation_label(rule: &InvocationRule, i: usize) -> String {
    rule.name.clone().unwrap_or_else(|| invocation_key(i))
}

/// The journal label of turn rule `i`.
pub fn turn_label(rule: &TurnRule, i: usize) -> String {
    rule.name
        .clone()
        .unwrap_or_else(|| format!("turn {}", i + 1))
}

/// Picks the invocation rule (0-based index), given the use counts so far.
pub fn choose_invocation(
    script: &Script,
    facts: &InvocationFacts<'_>,
    counts: &BTreeMap<String, u32>,
) -> Option<usize> {
    script.invocations.iter().enumerate().find_map(|(i, r)| {
        let used = counts.get(&invocation_key(i)).copied().unwrap_or(0);
        let limit = Times::limit(r.times, r.when.is_some());
        let fits = limit.is_none_or(|l| used < l);
        let holds = r.when.as_ref().is_none_or(|m| invocation_matches(m, facts));
        let serves_kind = match (facts.flag_error, facts.kind) {
            (true, _) => targets_flag_errors(r),
            (false, InvocationKind::Turn) => true,
            (false, InvocationKind::Probe) => targets_probes(r),
        };
        (fits && holds && serves_kind).then_some(i)
    })
}

/// True when `rule` may serve a probe: its `when` names the command mode or predicates
/// on argv. A rule without `when` (or on the prompt or `nth` alone) serves turns only.
pub fn targets_probes(rule: &InvocationRule) -> bool {
    rule.when
        .as_ref()
        .is_some_and(|m| m.mode == Some(RunMode::Command) || !m.argv_has.is_empty())
}

/// True when `rule` may serve a command line agy's flag parser answers itself (`-h`, an
/// undefined flag): its `when` names tokens of the command line (`argv_has`).
pub fn targets_flag_errors(rule: &InvocationRule) -> bool {
    rule.when.as_ref().is_some_and(|m| !m.argv_has.is_empty())
}

/// True when every predicate of `m` holds.
pub fn invocation_matches(m: &InvocationMatch, f: &InvocationFacts<'_>) -> bool {
    let prompt = f.prompt.unwrap_or("");
    m.nth.is_none_or(|n| n == f.n)
        && m.prompt_contains
            .as_ref()
            .is_none_or(|c| prompt.contains(c.as_str()))
        && m.prompt_matches
            .as_ref()
            .is_none_or(|p| p.0.is_match(prompt))
        && m.argv_has.iter().all(|a| argv_has(f.argv, a))
        && !m.argv_lacks.iter().any(|a| argv_has(f.argv, a))
        && m.mode.is_none_or(|mode| {
            // `--version` is a probe whose run mode follows its output format.
            mode == f.mode || (mode == RunMode::Command && f.kind == InvocationKind::Probe)
        })
}

/// `item` is a token (`--continue`, also matching `--print-timeout=1s` for
/// `--print-timeout`) or `flag value` as two adjacent tokens (or `flag=value`).
pub fn argv_has(argv: &[String], item: &str) -> bool {
    match item.split_once(' ') {
        Some((flag, value)) => {
            argv.windows(2).any(|w| w[0] == flag && w[1] == value)
                || argv.iter().any(|t| *t == format!("{flag}={value}"))
        }
        None => argv
            .iter()
            .any(|t| t == item || t.starts_with(&format!("{item}="))),
    }
}

/// Use counts of turn rules within one process.
#[derive(Debug, Clone, Default)]
pub struct TurnChooser {
    counts: Vec<u32>,
}

impl TurnChooser {
    /// Picks the turn rule (0-based) for line `line` (1-based) with `content`, and
    /// counts the use.
    pub fn choose(&mut self, rules: &[TurnRule], line: u32, content: &str) -> Option<usize> {
        if self.counts.len() < rules.len() {
            self.counts.resize(rules.len(), 0);
        }
        let pick = rules.iter().enumerate().find_map(|(i, r)| {
            let limit = Times::limit(r.times, r.when.is_some());
            let fits = limit.is_none_or(|l| self.counts[i] < l);
            let holds = r
                .when
                .as_ref()
                .is_none_or(|m| turn_matches(m, line, content));
            (fits && holds).then_some(i)
        })?;
        self.counts[pick] += 1;
        Some(pick)
    }
}

fn turn_matches(m: &TurnMatch, line: u32, content: &str) -> bool {
    m.line.is_none_or(|l| l == line)
        && m.content_contains
            .as_ref()
            .is_none_or(|c| content.contains(c.as_str()))
        && m.content_matches
            .as_ref()
            .is_none_or(|p| p.0.is_match(content))
}

/// The turn rules in force and their use counts.
#[derive(Debug, Clone, Default)]
pub struct TurnContext {
    /// The rules (the invocation's own, else the script's top-level ones).
    pub rules: Vec<TurnRule>,
    /// Use counts.
    pub chooser: TurnChooser,
    /// `when_exhausted = "fail"`: a line no rule serves breaks the fake.
    pub fail_when_exhausted: bool,
    /// True once stdin reached EOF and the loop ended.
    pub done: bool,
    /// `malformed_lines = "skip"`: lines without message or content, or not JSON, are
    /// skipped with a warning instead of ending the session.
    pub skip_malformed: bool,
    /// The options of the invocation's `default` step that serves the stdin lines: a
    /// line no turn rule answers gets the default turn with them (`response`,
    /// `duration`, …), as the same step gives a print run its one turn.
    pub line_default: agy_protocol::script::DefaultSpec,
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::diag::SourceFile;
    use agy_protocol::script::parse_script;

    fn script(text: &str) -> Script {
        parse_script(&SourceFile::new("s.toml", text)).expect("parses")
    }

    fn facts<'a>(n: u32, argv: &'a [String], prompt: Option<&'a str>) -> InvocationFacts<'a> {
        InvocationFacts {
            n,
            kind: InvocationKind::Turn,
            argv,
            prompt,
            mode: RunMode::Json,
            flag_error: false,
        }
    }

    fn probe<'a>(n: u32, argv: &'a [String]) -> InvocationFacts<'a> {
        InvocationFacts {
            n,
            kind: InvocationKind::Probe,
            argv,
            prompt: None,
            mode: RunMode::Text,
            flag_error: false,
        }
    }

    fn flag_error<'a>(argv: &'a [String]) -> InvocationFacts<'a> {
        InvocationFacts {
            n: 1,
            kind: InvocationKind::Probe,
            argv,
            prompt: None,
            mode: RunMode::Command,
            flag_error: true,
        }
    }

    #[test]
    fn only_a_rule_naming_the_command_line_serves_one_the_flag_parser_answers() {
        let s = script(
            "[[invocation]]\nsteps=[{exit=1}]\n[[invocation]]\nwhen={mode=\"command\"}\nsteps=[{exit=2}]\n[[invocation]]\nwhen={argv_has=[\"-h\"]}\nsteps=[{exit=3}]\n",
        );
        let help: Vec<String> = vec!["-h".into()];
        let undefined: Vec<String> = vec!["--nope".into()];
        let counts = BTreeMap::new();
        assert_eq!(choose_invocation(&s, &flag_error(&help), &counts), Some(2));
        assert_eq!(
            choose_invocation(&s, &flag_error(&undefined), &counts),
            None
        );
        assert!(!targets_flag_errors(&s.invocations[1]));
    }

    #[test]
    fn a_rule_without_when_does_not_serve_a_probe() {
        let s = script("[[invocation]]\ntimes=3\nsteps=[{exit=1}]\n[[invocation]]\nwhen={nth=1}\nsteps=[{exit=2}]\n");
        let argv: Vec<String> = vec!["--version".into()];
        assert_eq!(
            choose_invocation(&s, &probe(1, &argv), &BTreeMap::new()),
            None
        );
    }

    #[test]
    fn command_mode_and_argv_predicates_target_probes() {
        let s = script("[[invocation]]\nwhen={mode=\"command\"}\nsteps=[{exit=1}]\n");
        let argv: Vec<String> = vec!["--version".into()];
        assert_eq!(
            choose_invocation(&s, &probe(1, &argv), &BTreeMap::new()),
            Some(0)
        );
        let s = script("[[invocation]]\nwhen={argv_has=[\"models\"]}\nsteps=[{exit=1}]\n");
        let models: Vec<String> = vec!["models".into()];
        assert_eq!(
            choose_invocation(&s, &probe(1, &models), &BTreeMap::new()),
            Some(0)
        );
        assert_eq!(
            choose_invocation(&s, &probe(1, &argv), &BTreeMap::new()),
            None
        );
    }

    #[test]
    fn rules_serve_in_order_until_their_limit() {
        let s =
            script("[[invocation]]\nsteps=[{exit=1}]\n[[invocation]]\ntimes=2\nsteps=[{exit=2}]\n");
        let argv: Vec<String> = vec![];
        let mut counts = BTreeMap::new();
        let mut picks = vec![];
        for n in 1..=4 {
            let p = choose_invocation(&s, &facts(n, &argv, None), &counts);
            if let Some(i) = p {
                *counts.entry(invocation_key(i)).or_insert(0) += 1;
            }
            picks.push(p);
        }
        assert_eq!(picks, vec![Some(0), Some(1), Some(1), None]);
    }

    #[test]
    fn when_matches_prompt_argv_and_nth() {
        let s = script(
            "[[invocation]]\nwhen={nth=3}\nsteps=[{exit=3}]\n[[invocation]]\nwhen={prompt_contains=\"cat\", argv_has=[\"--output-format json\"]}\nsteps=[{exit=4}]\n",
        );
        let argv: Vec<String> = ["-p", "a cat", "--output-format", "json"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let counts = BTreeMap::new();
        assert_eq!(
            choose_invocation(&s, &facts(1, &argv, Some("a cat")), &counts),
            Some(1)
        );
        assert_eq!(
            choose_invocation(&s, &facts(3, &argv, Some("a cat")), &counts),
            Some(0)
        );
        assert_eq!(
            choose_invocation(&s, &facts(1, &argv, Some("a dog")), &counts),
            None
        );
    }

    #[test]
    fn argv_items_match_both_flag_forms() {
        let argv: Vec<String> = ["--print-timeout=1s", "--output-format", "json"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert!(argv_has(&argv, "--print-timeout"));
        assert!(argv_has(&argv, "--print-timeout 1s"));
        assert!(argv_has(&argv, "--output-format json"));
        assert!(!argv_has(&argv, "--continue"));
    }

    #[test]
    fn turn_rules_match_line_and_content() {
        let s = script("[[turn]]\nwhen={line=2}\nsteps=[]\n[[turn]]\nwhen={content_contains=\"x\"}\nsteps=[]\n");
        let mut c = TurnChooser::default();
        assert_eq!(c.choose(&s.turns, 1, "abc"), None);
        assert_eq!(c.choose(&s.turns, 2, "abc"), Some(0));
        assert_eq!(c.choose(&s.turns, 3, "xyz"), Some(1));
    }
}
