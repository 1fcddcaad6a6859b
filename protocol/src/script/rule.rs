//! What the agy and ACP script formats share: a rule's head (`name`, `when`, `times`),
//! its step table, and the check that every rule can be chosen. Each format keeps its
//! own keys and step checks; the reading and the reports are the same.

use super::limits::LimitError;
use super::model::Times;
use crate::diag::{deserialize_one_key, Diagnostic, Diagnostics, SourceFile, TableWalker};
use serde::de::DeserializeOwned;
use toml::de::DeValue;
use toml::Spanned;

/// A step of a script format: a one-key table that may end the process.
pub(crate) trait ScriptStep: DeserializeOwned {
    /// The step's key as written in a script.
    fn name(&self) -> &'static str;
    /// True when nothing after this step runs (exit, crash, hang).
    fn ends_process(&self) -> bool;
}

/// A rule's `name`, `when` and `times`.
#[derive(Debug)]
pub(crate) struct RuleHead<W> {
    pub name: Option<String>,
    pub when: Option<W>,
    pub times: Option<Times>,
}

/// Reads a rule's head from `w`; `times = 0` is reported (the rule would never run).
pub(crate) fn parse_rule_head<W: DeserializeOwned>(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    diags: &mut Diagnostics,
) -> RuleHead<W> {
    let name = w.get("name", diags);
    let when = w.get("when", diags);
    let times = w.get("times", diags);
    if times == Some(Times::Count(0)) {
        let offset = w
            .raw("times")
            .map(|v| v.span().start)
            .unwrap_or(w.span_start());
        diags.push(
            Diagnostic::at(
                src,
                offset,
                format!("`times = 0` in {} means the rule never runs", w.what()),
            )
            .with_hint("remove the rule, or give a count of at least 1 or `\"always\"`"),
        );
    }
    RuleHead { name, when, times }
}

/// One parsed step, where it stands, for a format's own checks.
pub(crate) struct StepAt<'a, S> {
    /// 1-based position in its table.
    pub number: usize,
    /// `step N of <rule>`.
    pub what: &'a str,
    /// Byte offset of the step in the file.
    pub offset: usize,
    /// The step.
    pub step: &'a S,
}

impl<S> StepAt<'_, S> {
    /// Reports a limit the step breaks.
    pub(crate) fn limit(&self, src: &SourceFile, e: LimitError, diags: &mut Diagnostics) {
        diags.push(
            Diagnostic::at(src, self.offset, format!("{}: {}", self.what, e.message))
                .with_hint(e.hint),
        );
    }
}

/// Reads the step table `key` of `w`. Every step that cannot be read is reported, as is
/// the first step after one that ends the process (once per run of dead steps); `check`
/// adds the format's own checks for each step read.
pub(crate) fn parse_step_table<S: ScriptStep>(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    key: &str,
    example: &str,
    diags: &mut Diagnostics,
    mut check: impl FnMut(&StepAt<'_, S>, &mut Diagnostics),
) -> Vec<S> {
    let what = w.what().to_string();
    let values = w.elements(key, diags);
    let mut steps = Vec::with_capacity(values.len());
    let mut ended_by: Option<(usize, &'static str)> = None;
    for (i, v) in values.iter().enumerate() {
        let step_what = format!("step {} of {what}", i + 1);
        let parsed: Option<S> = deserialize_one_key(src, v, &step_what, example, diags);
        if let Some((n, name)) = ended_by.take() {
            diags.push(
                Diagnostic::at(src, v.span().start, format!("{step_what} is never reached"))
                    .with_hint(format!(
                        "step {n} (`{name}`) ends the process; move or remove this step"
                    )),
            );
        }
        let Some(step) = parsed else { continue };
        let at = StepAt {
            number: i + 1,
            what: &step_what,
            offset: v.span().start,
            step: &step,
        };
        check(&at, diags);
        if step.ends_process() {
            ended_by = Some((i + 1, step.name()));
        }
        steps.push(step);
    }
    steps
}

/// Reports every rule after a catch-all: a rule that serves every invocation (or
/// prompt, or line) without limit hides the rules after it. `values` are the rules'
/// tables, `rules` whether each has a `when` and its `times`.
pub(crate) fn check_reachable_rules(
    src: &SourceFile,
    what: &str,
    values: &[&Spanned<DeValue<'_>>],
    rules: impl Iterator<Item = (bool, Option<Times>)>,
    diags: &mut Diagnostics,
) {
    let mut catch_all: Option<usize> = None;
    for (i, (has_when, times)) in rules.enumerate() {
        if let (Some(first), Some(v)) = (catch_all, values.get(i)) {
            diags.push(
                Diagnostic::at(src, v.span().start, format!("{what} {} can never be chosen", i + 1))
                    .with_hint(format!(
                        "{what} {} before it has no `when` and `times = \"always\"`; move this rule above it",
                        first + 1
                    )),
            );
        }
        if catch_all.is_none() && !has_when && Times::limit(times, has_when).is_none() {
            catch_all = Some(i);
        }
    }
}
