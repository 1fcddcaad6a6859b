//! Reading a script with every problem located, and rendering one back to TOML.

use super::model::{InvocationRule, Script, ScriptHeader, TurnRule};
use super::rule::{check_reachable_rules, parse_rule_head, parse_step_table, ScriptStep};
use super::step::Step;
use crate::diag::{
    parse_embedded_file, parse_whole_document, Diagnostic, Diagnostics, EmbeddedFormat, SourceFile,
    TableWalker,
};
use crate::env::{FAKE_AGY_SCRIPT, FAKE_AGY_SCRIPT_TABLE};
use std::path::Path;
use toml::de::DeValue;
use toml::Spanned;

const SCRIPT_KEYS: &[&str] = &["script", "invocation", "turn", "model"];
const INVOCATION_KEYS: &[&str] = &["name", "when", "times", "steps", "turn"];
const TURN_KEYS: &[&str] = &["name", "when", "times", "steps"];
const STEP_EXAMPLE: &str = "{ sleep = \"50ms\" }, { exit = 0 }";

impl ScriptStep for Step {
    fn name(&self) -> &'static str {
        Step::name(self)
    }

    fn ends_process(&self) -> bool {
        matches!(self, Step::Exit(_) | Step::Crash(_) | Step::Hang(_))
    }
}

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
    let invocations: Vec<InvocationRule> = invocation_values
        .iter()
        .enumerate()
        .map(|(i, v)| parse_invocation(src, v, i + 1, diags))
        .collect();
    let turn_values = root.elements("turn", diags);
    let turns = parse_turns(src, &turn_values, "turn", diags);
    let model = root.get("model", diags).unwrap_or_default();
    root.finish(SCRIPT_KEYS, diags);
    let rules: Vec<(&[Step], usize)> = invocations
        .iter()
        .map(|r| r.steps.as_slice())
        .zip(invocation_values.iter().map(|v| v.span().start))
        .chain(
            turns
                .iter()
                .map(|t| t.steps.as_slice())
                .zip(turn_values.iter().map(|v| v.span().start)),
        )
        .collect();
    check_totals(src, &rules, diags);
    let heads = invocations.iter().map(|r| (r.when.is_some(), r.times));
    check_reachable_rules(src, "invocation", &invocation_values, heads, diags);
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
    let head = parse_rule_head(src, &mut w, diags);
    let steps = parse_steps(src, &mut w, diags);
    let turn_values = w.elements("turn", diags);
    let turns = parse_turns(src, &turn_values, &format!("turn of {what}"), diags);
    w.finish(INVOCATION_KEYS, diags);
    InvocationRule {
        name: head.name,
        when: head.when,
        times: head.times,
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
            let head = parse_rule_head(src, &mut w, diags);
            let steps = parse_steps(src, &mut w, diags);
            w.finish(TURN_KEYS, diags);
            TurnRule {
                name: head.name,
                when: head.when,
                times: head.times,
                steps,
            }
        })
        .collect();
    let heads = turns.iter().map(|t| (t.when.is_some(), t.times));
    check_reachable_rules(src, what, values, heads, diags);
    turns
}

/// Refuses a script whose rules, together, hold too many steps or images; the error
/// points at the rule that crosses the limit.
fn check_totals(src: &SourceFile, rules: &[(&[Step], usize)], diags: &mut Diagnostics) {
    let (mut steps, mut images) = (0usize, 0u64);
    for (rule, at) in rules {
        steps += rule.len();
        images += super::limits::images_of(rule);
        if let Err(e) = super::limits::check_script_totals(steps, images) {
            diags.push(Diagnostic::at(src, *at, e.message).with_hint(e.hint));
            return;
        }
    }
}

fn parse_steps(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    diags: &mut Diagnostics,
) -> Vec<Step> {
    parse_step_table(src, w, "steps", STEP_EXAMPLE, diags, |at, diags| {
        if let Err(e) = super::limits::check_step(at.step) {
            at.limit(src, e, diags);
        }
    })
}

/// Renders a script as TOML that [`parse_script`] reads back to an equal script.
pub fn render_script(script: &Script) -> Result<String, toml::ser::Error> {
    toml::to_string(script)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::{
        CommandResultSpec, EnvelopeSpec, Flag, InitSpec, InvocationMatch, JsonObject, ResultFormat,
        StepErrorSpec, StepSpec, Times, True, UsageSpec,
    };
    use proptest::prelude::*;

    fn parse(text: &str) -> Result<Script, Diagnostics> {
        parse_script(&SourceFile::new("s.toml", text))
    }

    #[test]
    fn a_script_asking_for_too_many_steps_or_images_is_refused_at_the_rule() {
        // Regression: nothing capped the steps of a small file (40,000 image steps
        // wrote 1.8 GB).
        let many = "{ stderr = \"x\" }, ".repeat(3000);
        let text = format!("[[invocation]]\nsteps = [{many}]\n[[invocation]]\nsteps = [{many}]\n");
        let err = parse(&text).expect_err("too many steps").to_string();
        assert!(
            err.contains("more than 4096 steps") && err.contains("s.toml:3:"),
            "{err}"
        );
        let images = "{ image = { width = 8, height = 8, count = 64 } }, ".repeat(17);
        let err = parse(&format!("[[turn]]\nsteps = [{images}]\n")).expect_err("images");
        assert!(err.to_string().contains("more than 1024 images"), "{err}");
        let fine = "{ image = { width = 8, height = 8, count = 64 } }, ".repeat(16);
        assert!(parse(&format!("[[turn]]\nsteps = [{fine}]\n")).is_ok());
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
        // Regression: `exit = 256` was accepted (and exited 0).
        let err = parse("[[invocation]]\nsteps = [\n  { exit = 256 },\n]\n[[invocation]]\nsteps = [{ exit = -1 }]\n")
            .expect_err("rejects");
        let at: Vec<(usize, usize)> = err.iter().map(|d| (d.line, d.column)).collect();
        assert_eq!(at, vec![(3, 3), (6, 10)], "{err}");
        assert!(err.0[0].message.contains("outside 0–255"), "{err}");
        assert!(err.0[0].hint.is_some(), "{err}");
    }

    #[test]
    fn a_json_text_field_that_is_no_object_is_located() {
        let err = parse(
            "[[invocation]]\nsteps = [\n  { command_result = { name = \"models\", data = '[1]' } },\n  { init = { json_schema = '{' } },\n]\n",
        )
        .expect_err("rejects");
        let lines: Vec<usize> = err.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![3, 4], "{err}");
        assert!(err.0[0].message.contains("JSON object"), "{err}");
        assert!(err.0[1].message.contains("not JSON"), "{err}");
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
            "[a-z \\n]{0,12}".prop_map(Step::Log),
            ("[a-z]{1,8}", proptest::option::of(arb_object()))
                .prop_map(|(name, data)| Step::CommandResult(CommandResultSpec { name, data })),
            arb_capture_step(),
        ]
    }

    /// A JSON object as scripts write it in text: keys in any order, nulls allowed.
    fn arb_object() -> impl Strategy<Value = JsonObject> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<i32>().prop_map(serde_json::Value::from),
            "[a-z<>&]{0,6}".prop_map(serde_json::Value::from),
        ];
        proptest::collection::vec(("[a-z]{1,6}", leaf), 0..4)
            .prop_map(|kv| JsonObject(kv.into_iter().collect()))
    }

    /// The fields a converted capture uses: a result's form and key order, a step's
    /// step-level error, an init's echoed schema, a usage without `cache_read_tokens`.
    fn arb_capture_step() -> impl Strategy<Value = Step> {
        let keys = proptest::collection::vec("[a-z_]{1,10}", 0..4);
        let format = proptest::option::of(prop_oneof![
            Just(ResultFormat::Text),
            Just(ResultFormat::Json),
            Just(ResultFormat::StreamJson),
        ]);
        let usage = (0u64..1000, proptest::option::of(any::<bool>())).prop_map(|(n, key)| {
            UsageSpec::Counts {
                input: n,
                output: n / 2,
                thinking: 0,
                cache_read: 0,
                total: Some(n + n / 2),
                cache_read_key: key,
            }
        });
        prop_oneof![
            (
                keys.clone(),
                format,
                proptest::option::of(arb_object()),
                usage
            )
                .prop_map(|(key_order, format, json_schema, usage)| Step::Envelope(
                    EnvelopeSpec {
                        key_order,
                        format,
                        json_schema,
                        usage: Some(usage),
                        ..Default::default()
                    }
                )),
            (keys.clone(), "[A-Z_]{1,10}", "[a-z ]{0,10}").prop_map(
                |(key_order, kind, message)| {
                    Step::StepUpdate(StepSpec {
                        key_order,
                        tool_name: Some("run_command".into()),
                        step_error: Some(StepErrorSpec { kind, message }),
                        ..Default::default()
                    })
                }
            ),
            (keys, proptest::option::of(arb_object())).prop_map(|(key_order, json_schema)| {
                Step::Init(Flag(InitSpec {
                    key_order,
                    json_schema,
                    ..Default::default()
                }))
            }),
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
