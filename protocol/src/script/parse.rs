//! Reading a script with every problem located, and rendering one back to TOML.

use super::model::{InvocationRule, Script, ScriptHeader, Times, TurnRule};
use super::step::Step;
use crate::diag::{
    deserialize_one_key, parse_embedded_file, parse_whole_document, Diagnostic, Diagnostics,
    EmbeddedFormat, SourceFile, TableWalker,
};
use crate::env::{FAKE_AGY_SCRIPT, FAKE_AGY_SCRIPT_TABLE};
use std::path::Path;
use toml::de::DeValue;
use toml::Spanned;

const SCRIPT_KEYS: &[&str] = &["script", "invocation", "turn", "model"];
const INVOCATION_KEYS: &[&str] = &["name", "when", "times", "steps", "turn"];
const TURN_KEYS: &[&str] = &["name", "when", "times", "steps"];

/// Parses a script file. With `table`, the script is that top-level table of the file
/// (a scenario's `[agy]`); otherwise the whole file.
pub fn parse_script_file(path: &Path, table: Option<&str>) -> Result<Script, Diagnostics> {
    let format = EmbeddedFormat {
        name: "script",
        path_env: FAKE_AGY_SCRIPT,
        table_env: FAKE_AGY_SCRIPT_TABLE,
    };
    parse_embedded_file(path, table, format, &parse_script_value)
}

/// Parses a whole document as a script.
pub fn parse_script(src: &SourceFile) -> Result<Script, Diagnostics> {
    parse_whole_document(src, "the script", &parse_script_value)
}

/// Parses a script from a spanned TOML table (a whole file or a scenario's `[agy]`).
pub fn parse_script_value(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    what: &str,
    diags: &mut Diagnostics,
) -> Script {
    let Some(mut root) = TableWalker::from_value(src, value, what, diags) else {
        return Script::default();
    };
    let header: ScriptHeader = root.get("script", diags).unwrap_or_default();
    let invocation_values = root.elements("invocation", diags);
    let invocation_starts: Vec<usize> = invocation_values.iter().map(|v| v.span().start).collect();
    let invocations: Vec<InvocationRule> = invocation_values
        .into_iter()
        .enumerate()
        .map(|(i, v)| parse_invocation(src, v, i + 1, diags))
        .collect();
    let turn_values = root.elements("turn", diags);
    let turns = parse_turns(src, &turn_values, "turn", diags);
    let model = root.get("model", diags).unwrap_or_default();
    root.finish(SCRIPT_KEYS, diags);
    check_reachable_rules(
        src,
        "invocation",
        &invocation_starts,
        invocations.iter().map(|r| (r.when.is_some(), r.times)),
        diags,
    );
    Script {
        script: header,
        invocations,
        turns,
        model,
    }
}

fn parse_invocation(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    n: usize,
    diags: &mut Diagnostics,
) -> InvocationRule {
    let what = format!("invocation {n}");
    let Some(mut w) = TableWalker::from_value(src, value, what.clone(), diags) else {
        return InvocationRule::default();
    };
    let name = w.get("name", diags);
    let when = w.get("when", diags);
    let times = w.get("times", diags);
    check_times(src, &mut w, times, diags);
    let steps = parse_steps(src, &mut w, diags);
    let turn_values = w.elements("turn", diags);
    let turns = parse_turns(src, &turn_values, &format!("turn of {what}"), diags);
    w.finish(INVOCATION_KEYS, diags);
    InvocationRule {
        name,
        when,
        times,
        steps,
        turns,
    }
}

fn parse_turns(
    src: &SourceFile,
    values: &[&Spanned<DeValue<'_>>],
    what: &str,
    diags: &mut Diagnostics,
) -> Vec<TurnRule> {
    let turns: Vec<TurnRule> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let what = format!("{what} {}", i + 1);
            let Some(mut w) = TableWalker::from_value(src, v, what, diags) else {
                return TurnRule::default();
            };
            let name = w.get("name", diags);
            let when = w.get("when", diags);
            let times = w.get("times", diags);
            check_times(src, &mut w, times, diags);
            let steps = parse_steps(src, &mut w, diags);
            w.finish(TURN_KEYS, diags);
            TurnRule {
                name,
                when,
                times,
                steps,
            }
        })
        .collect();
    let starts: Vec<usize> = values.iter().map(|v| v.span().start).collect();
    check_reachable_rules(
        src,
        what,
        &starts,
        turns.iter().map(|t| (t.when.is_some(), t.times)),
        diags,
    );
    turns
}

fn check_times(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    times: Option<Times>,
    diags: &mut Diagnostics,
) {
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
}

/// A rule that serves every invocation without limit hides every rule after it.
fn check_reachable_rules(
    src: &SourceFile,
    what: &str,
    starts: &[usize],
    rules: impl Iterator<Item = (bool, Option<Times>)>,
    diags: &mut Diagnostics,
) {
    let mut catch_all: Option<usize> = None;
    for (i, (has_when, times)) in rules.enumerate() {
        if let (Some(first), Some(&start)) = (catch_all, starts.get(i)) {
            diags.push(
                Diagnostic::at(src, start, format!("{what} {} can never be chosen", i + 1))
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

fn parse_steps(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    diags: &mut Diagnostics,
) -> Vec<Step> {
    let what = w.what().to_string();
    let values = w.elements("steps", diags);
    let mut steps = Vec::with_capacity(values.len());
    let mut ended_by: Option<(usize, &'static str)> = None;
    for (i, v) in values.iter().enumerate() {
        let step_what = format!("step {} of {what}", i + 1);
        let parsed = deserialize_one_key(
            src,
            v,
            &step_what,
            "{ sleep = \"50ms\" }, { exit = 0 }",
            diags,
        );
        if let Some((n, name)) = ended_by {
            diags.push(
                Diagnostic::at(src, v.span().start, format!("{step_what} is never reached"))
                    .with_hint(format!(
                        "step {n} (`{name}`) ends the process; move or remove this step"
                    )),
            );
            ended_by = None; // report once per run of dead steps
        }
        if let Some(Err(e)) = parsed.as_ref().map(super::limits::check_step) {
            diags.push(
                Diagnostic::at(src, v.span().start, format!("{step_what}: {}", e.message))
                    .with_hint(e.hint),
            );
        }
        if let Some(step) = parsed {
            if matches!(step, Step::Exit(_) | Step::Crash(_) | Step::Hang(_)) {
                ended_by = Some((i + 1, step.name()));
            }
            steps.push(step);
        }
    }
    steps
}

/// Renders a script as TOML that [`parse_script`] reads back to an equal script.
pub fn render_script(script: &Script) -> Result<String, toml::ser::Error> {
    toml::to_string(script)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::{Flag, InvocationMatch, True};
    use proptest::prelude::*;

    fn parse(text: &str) -> Result<Script, Diagnostics> {
        parse_script(&SourceFile::new("s.toml", text))
    }

    #[test]
    fn print_timeout_illustration_parses() {
        let script = parse(
            r#"
[[invocation]]
steps = [
  { sleep = "50ms" },
  { stderr = "[agy] print timeout after 1s with turn in progress; returning partial output" },
  { envelope = { status = "SUCCESS", response = "", duration_seconds = 0, usage = "zero" } },
  { exit = 0 },
]
"#,
        )
        .expect("parses");
        assert_eq!(script.invocations.len(), 1);
        assert_eq!(script.invocations[0].steps.len(), 4);
    }

    #[test]
    fn every_bad_step_is_reported_with_its_line() {
        let err = parse(
            "[[invocation]]\nsteps = [\n  { slep = \"1s\" },\n  { sleep = \"soon\" },\n  { exit = 0, sleep = \"1s\" },\n]\n",
        )
        .expect_err("rejects");
        let lines: Vec<usize> = err.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![3, 4, 5], "{err}");
        assert!(
            err.0[0]
                .hint
                .as_deref()
                .unwrap_or("")
                .contains("did you mean `sleep`"),
            "{err}"
        );
        assert!(err.0[1].message.contains("invalid duration"), "{err}");
    }

    #[test]
    fn unknown_rule_key_gets_a_suggestion() {
        let err = parse("[[invocation]]\nstpes = []\n").expect_err("rejects");
        assert_eq!((err.0[0].line, err.0[0].column), (2, 1));
        assert!(
            err.0[0].hint.as_deref().unwrap_or("").contains("`steps`"),
            "{err}"
        );
    }

    #[test]
    fn steps_after_exit_are_unreachable() {
        let err = parse("[[invocation]]\nsteps = [{ exit = 1 }, { stdout = \"x\" }]\n")
            .expect_err("rejects");
        assert!(err.0[0].message.contains("never reached"), "{err}");
    }

    #[test]
    fn exit_codes_out_of_range_are_located() {
        // Issue 13: `exit = 256` was accepted (and exited 0).
        let err = parse("[[invocation]]\nsteps = [\n  { exit = 256 },\n]\n[[invocation]]\nsteps = [{ exit = -1 }]\n")
            .expect_err("rejects");
        let at: Vec<(usize, usize)> = err.iter().map(|d| (d.line, d.column)).collect();
        assert_eq!(at, vec![(3, 3), (6, 10)], "{err}");
        assert!(err.0[0].message.contains("outside 0–255"), "{err}");
        assert!(err.0[0].hint.is_some(), "{err}");
    }

    #[test]
    fn rule_after_a_catch_all_is_reported() {
        let err = parse("[[invocation]]\ntimes = \"always\"\n[[invocation]]\nsteps = []\n")
            .expect_err("rejects");
        assert!(
            err.0[0]
                .message
                .contains("invocation 2 can never be chosen"),
            "{err}"
        );
        assert_eq!(err.0[0].line, 3);
    }

    #[test]
    fn embedded_script_table_is_read_from_a_scenario() {
        let dir = std::env::temp_dir().join(format!("agy-protocol-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("scenario.toml");
        std::fs::write(
            &path,
            "[scenario]\nname = \"x\"\n[[agy.invocation]]\nsteps = [{ exit = 3 }]\n",
        )
        .expect("write");
        let script = parse_script_file(&path, Some("agy")).expect("parses");
        assert_eq!(script.invocations[0].steps, vec![Step::Exit(3)]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn arb_step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0i32..=255)
                .prop_filter("reserved", |c| *c != crate::script::FAKE_BROKEN_EXIT)
                .prop_map(Step::Exit),
            "[a-z ]{0,12}".prop_map(Step::Stdout),
            "[a-z ]{0,12}".prop_map(Step::Stderr),
            (0u64..100_000).prop_map(|ms| Step::Sleep(std::time::Duration::from_millis(ms).into())),
            Just(Step::Hang(True)),
            Just(Step::Default(Flag::default())),
            Just(Step::CloseStdout(True)),
            Just(Step::ReplayPrevious(True)),
        ]
    }

    fn arb_rule() -> impl Strategy<Value = InvocationRule> {
        (
            proptest::option::of("[a-z]{1,8}"),
            proptest::option::of("[a-z]{1,8}"),
            proptest::collection::vec(arb_step(), 0..4),
        )
            .prop_map(|(name, contains, steps)| InvocationRule {
                name,
                when: contains.map(|c| InvocationMatch {
                    prompt_contains: Some(c),
                    ..Default::default()
                }),
                times: Some(Times::Count(1)),
                steps,
                turns: Vec::new(),
            })
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC*") {
            let _ = parse(&s);
        }

        #[test]
        fn arbitrary_toml_shaped_text_never_panics(
            lines in proptest::collection::vec(
                prop_oneof![
                    Just("[[invocation]]".to_string()),
                    Just("[[turn]]".to_string()),
                    Just("[script]".to_string()),
                    "[a-z_]{1,10} = \"[a-z0-9 ]{0,6}\"",
                    "steps = \\[\\{ [a-z_]{1,10} = [0-9]{1,3} \\}\\]",
                ],
                0..8,
            )
        ) {
            let _ = parse(&lines.join("\n"));
        }

        #[test]
        fn rendered_scripts_parse_back_equal(rules in proptest::collection::vec(arb_rule(), 0..4)) {
            // Steps after a process-ending step are rejected by design; keep only the
            // reachable prefix so the model is one a user could write.
            let rules: Vec<InvocationRule> = rules.into_iter().map(|mut r| {
                if let Some(end) = r.steps.iter().position(|s| matches!(s, Step::Exit(_) | Step::Hang(_))) {
                    r.steps.truncate(end + 1);
                }
                r
            }).collect();
            let script = Script { invocations: rules, ..Default::default() };
            let text = render_script(&script).expect("renders");
            let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(back, script);
        }
    }
}
