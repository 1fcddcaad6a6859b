//! Reading an ACP script with every problem located, and rendering one back to TOML.

use super::model::{AcpScript, AgentSpec, PromptRule, RestoreSpec};
use super::reply::{line_problem, OpeningSpec, ReplyRule, ReplyStep};
use super::step::AcpStep;
use crate::diag::{
    parse_embedded_file, parse_whole_document, Diagnostic, Diagnostics, EmbeddedFormat, SourceFile,
    TableWalker,
};
use crate::env::{FAKE_AGY_ACP_SCRIPT, FAKE_AGY_ACP_SCRIPT_TABLE};
use crate::script::rule::{
    check_reachable_rules, parse_rule_head, parse_step_table, ScriptStep, StepAt,
};
use std::path::Path;
use toml::de::DeValue;
use toml::Spanned;

const SCRIPT_KEYS: &[&str] = &["agent", "load", "resume", "prompt", "opening", "reply"];
const RESTORE_KEYS: &[&str] = &["replay", "late", "error"];
const RULE_KEYS: &[&str] = &["name", "when", "times", "steps"];
const STEP_EXAMPLE: &str = "{ text = \"Done.\" }, { respond = \"end_turn\" }";
const REPLY_EXAMPLE: &str = "{ line = '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}' }";

impl ScriptStep for ReplyStep {
    fn name(&self) -> &'static str {
        ReplyStep::name(self)
    }

    fn ends_process(&self) -> bool {
        false
    }
}

impl ScriptStep for AcpStep {
    fn name(&self) -> &'static str {
        AcpStep::name(self)
    }

    fn ends_process(&self) -> bool {
        AcpStep::ends_process(self)
    }
}

/// Parses an ACP script file. With `table`, the script is that top-level table of the
/// file (a scenario's `[acp]`); otherwise the whole file.
pub fn parse_acp_script_file(path: &Path, table: Option<&str>) -> Result<AcpScript, Diagnostics> {
    let format = EmbeddedFormat {
        name: "ACP script",
        path_env: FAKE_AGY_ACP_SCRIPT,
        table_env: FAKE_AGY_ACP_SCRIPT_TABLE,
    };
    parse_embedded_file(path, table, format, &parse_acp_script_value)
}

/// Parses a whole document as an ACP script.
pub fn parse_acp_script(src: &SourceFile) -> Result<AcpScript, Diagnostics> {
    parse_whole_document(src, "the ACP script", &parse_acp_script_value)
}

/// Parses one TOML value (a table) as an ACP script, pushing every problem into
/// `diags`: for a script embedded in another file, such as a scenario's `[acp]` table,
/// so errors point at that file's own lines.
pub fn parse_acp_script_value(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    what: &str,
    diags: &mut Diagnostics,
) -> AcpScript {
    let Some(mut root) = TableWalker::from_value(src, value, what, diags) else {
        return AcpScript::default();
    };
    let agent: AgentSpec = root.get("agent", diags).unwrap_or_default();
    let load = root
        .raw("load")
        .map(|v| parse_restore(src, v, "`[load]`", diags))
        .unwrap_or_default();
    let resume = root
        .raw("resume")
        .map(|v| parse_restore(src, v, "`[resume]`", diags))
        .unwrap_or_default();
    let prompt_values = root.elements("prompt", diags);
    let prompts: Vec<PromptRule> = prompt_values
        .iter()
        .enumerate()
        .map(|(i, v)| parse_prompt(src, v, i + 1, diags))
        .collect();
    let heads = prompts.iter().map(|r| (r.when.is_some(), r.times));
    check_reachable_rules(src, "prompt", &prompt_values, heads, diags);
    let opening = root
        .raw("opening")
        .map(|v| parse_opening(src, v, diags))
        .unwrap_or_default();
    let reply_values = root.elements("reply", diags);
    let replies: Vec<ReplyRule> = reply_values
        .iter()
        .enumerate()
        .map(|(i, v)| parse_reply(src, v, i + 1, diags))
        .collect();
    let heads = replies.iter().map(|r| (r.when.is_some(), r.times));
    check_reachable_rules(src, "reply", &reply_values, heads, diags);
    root.finish(SCRIPT_KEYS, diags);
    AcpScript {
        agent,
        load,
        resume,
        prompts,
        opening,
        replies,
    }
}

fn parse_opening(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    diags: &mut Diagnostics,
) -> OpeningSpec {
    let Some(mut w) = TableWalker::from_value(src, value, "`[opening]`", diags) else {
        return OpeningSpec::default();
    };
    let steps = parse_reply_steps(src, &mut w, false, diags);
    w.finish(&["steps"], diags);
    OpeningSpec { steps }
}

fn parse_reply(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    n: usize,
    diags: &mut Diagnostics,
) -> ReplyRule {
    let what = format!("reply {n}");
    let Some(mut w) = TableWalker::from_value(src, value, what, diags) else {
        return ReplyRule::default();
    };
    let head = parse_rule_head(src, &mut w, diags);
    let steps = parse_reply_steps(src, &mut w, true, diags);
    w.finish(RULE_KEYS, diags);
    ReplyRule {
        name: head.name,
        when: head.when,
        times: head.times,
        steps,
    }
}

/// The steps of a reply (`answers` a request) or of the opening (no request to answer).
fn parse_reply_steps(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    answers: bool,
    diags: &mut Diagnostics,
) -> Vec<ReplyStep> {
    parse_step_table(
        src,
        w,
        "steps",
        REPLY_EXAMPLE,
        diags,
        |at, diags| match at.step {
            ReplyStep::Line(line) => {
                if let Some((problem, hint)) = line_problem(line) {
                    diags.push(
                        Diagnostic::at(src, at.offset, format!("{}: the line {problem}", at.what))
                            .with_hint(hint),
                    );
                }
            }
            ReplyStep::Error(_) if !answers => diags.push(
                Diagnostic::at(
                    src,
                    at.offset,
                    format!("{} is `error`, but the opening answers no request", at.what),
                )
                .with_hint("write the error message as a `line`, or move it into a `[[reply]]`"),
            ),
            _ => {}
        },
    )
}

fn parse_restore(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    what: &str,
    diags: &mut Diagnostics,
) -> RestoreSpec {
    let Some(mut w) = TableWalker::from_value(src, value, what, diags) else {
        return RestoreSpec::default();
    };
    let replay = w.get("replay", diags);
    let error = w.get("error", diags);
    let late = parse_steps(src, &mut w, "late", false, diags);
    w.finish(RESTORE_KEYS, diags);
    RestoreSpec {
        replay,
        late,
        error,
    }
}

fn parse_prompt(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    n: usize,
    diags: &mut Diagnostics,
) -> PromptRule {
    let what = format!("prompt {n}");
    let Some(mut w) = TableWalker::from_value(src, value, what, diags) else {
        return PromptRule::default();
    };
    let head = parse_rule_head(src, &mut w, diags);
    let steps = parse_steps(src, &mut w, "steps", true, diags);
    w.finish(RULE_KEYS, diags);
    PromptRule {
        name: head.name,
        when: head.when,
        times: head.times,
        steps,
    }
}

/// The steps of a prompt turn (`in_turn`) or of a restore's late phase: a turn
/// responds at most once, a late phase never (it runs after the response).
fn parse_steps(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    key: &str,
    in_turn: bool,
    diags: &mut Diagnostics,
) -> Vec<AcpStep> {
    let mut responded_at: Option<usize> = None;
    parse_step_table(src, w, key, STEP_EXAMPLE, diags, |at, diags| {
        check_step(src, at, in_turn, &mut responded_at, diags);
    })
}

fn check_step(
    src: &SourceFile,
    at: &StepAt<'_, AcpStep>,
    in_turn: bool,
    responded_at: &mut Option<usize>,
    diags: &mut Diagnostics,
) {
    match at.step {
        AcpStep::Respond(_) if !in_turn => diags.push(
            Diagnostic::at(
                src,
                at.offset,
                format!(
                    "{} is `respond`, but `late` steps run after the response",
                    at.what
                ),
            )
            .with_hint(
                "remove it: `late` steps are already sent after the load or resume response",
            ),
        ),
        AcpStep::Respond(_) => {
            if let Some(first) = responded_at {
                diags.push(
                    Diagnostic::at(
                        src,
                        at.offset,
                        format!("{} answers the prompt a second time", at.what),
                    )
                    .with_hint(format!(
                        "step {first} already answered it; a prompt gets one response"
                    )),
                );
            }
            responded_at.get_or_insert(at.number);
        }
        AcpStep::Exit(code) => {
            if let Err(e) = crate::script::limits::check_exit_code(*code) {
                at.limit(src, e, diags);
            }
        }
        _ => {}
    }
}

/// Renders a script as TOML that [`parse_acp_script`] reads back to an equal script.
pub fn render_acp_script(script: &AcpScript) -> Result<String, toml::ser::Error> {
    toml::to_string(script)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::script::{
        ErrorSpec, PromptMatch, ReplayTiming, ReplyId, RequestMatch, StopReasonName, ToolUpdateSpec,
    };
    use crate::script::{Times, True};
    use proptest::prelude::*;

    fn parse(text: &str) -> Result<AcpScript, Diagnostics> {
        parse_acp_script(&SourceFile::new("acp.toml", text))
    }

    #[test]
    fn late_notification_script_parses() {
        let script = parse(
            r#"
[agent]
version = "agy_acp_server_1.1.1"
cancel = "ignore"

[load]
replay = "after_response"
late = [{ text = "LATE OLD OUTPUT" }, { tool_call = { title = "Run edit_file?" } }, { permission = true }]

[[prompt]]
steps = [{ text = "Done." }, { respond = "end_turn" }, { text = "late" }]
"#,
        )
        .expect("parses");
        assert_eq!(script.load.replay, Some(ReplayTiming::AfterResponse));
        assert_eq!(script.load.late.len(), 3);
        assert_eq!(
            script.prompts[0].steps[1],
            AcpStep::Respond(StopReasonName::EndTurn)
        );
        assert_eq!(
            script.agent.version.map(|v| v.to_string()).as_deref(),
            Some("agy_acp_server_1.1.1")
        );
    }

    #[test]
    fn every_problem_is_reported_with_its_line() {
        let err = parse(
            "[agent]\nversoin = \"1.3.0\"\n[load]\nreplay = \"sideways\"\n[[prompt]]\nsteps = [\n  { txt = \"a\" },\n  { crash = \"kill\" },\n  { text = \"b\" },\n]\n",
        )
        .expect_err("rejects");
        let lines: Vec<usize> = err.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![2, 4, 7, 9], "{err}");
        assert!(
            err.0[0].hint.as_deref().unwrap_or("").contains("`version`"),
            "{err}"
        );
        assert!(
            err.0[2].hint.as_deref().unwrap_or("").contains("`text`"),
            "{err}"
        );
        assert!(err.0[3].message.contains("never reached"), "{err}");
    }

    #[test]
    fn exit_codes_outside_a_byte_are_located() {
        // Regression: `exit = 300` was accepted.
        let err =
            parse("[[prompt]]\nsteps = [{ exit = 300 }]\n[[prompt]]\nsteps = [{ exit = -2 }]\n")
                .expect_err("rejects");
        let at: Vec<(usize, usize)> = err
            .iter()
            .filter(|d| d.message.contains("outside 0–255"))
            .map(|d| (d.line, d.column))
            .collect();
        assert_eq!(at, vec![(2, 10), (4, 10)], "{err}");
    }

    #[test]
    fn respond_in_a_late_phase_is_rejected() {
        let err = parse("[resume]\nlate = [{ respond = \"end_turn\" }]\n").expect_err("rejects");
        assert!(
            err.0[0]
                .message
                .contains("`late` steps run after the response"),
            "{err}"
        );
        assert_eq!((err.0[0].line, err.0[0].column), (2, 9));
    }

    #[test]
    fn unknown_top_level_table_gets_a_suggestion() {
        let err = parse("[[promt]]\n").expect_err("rejects");
        assert!(
            err.0[0]
                .hint
                .as_deref()
                .unwrap_or("")
                .contains("did you mean `prompt`"),
            "{err}"
        );
    }

    #[test]
    fn the_acp_table_of_a_scenario_is_read_with_file_locations() {
        let dir = std::env::temp_dir().join(format!("acp-script-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("scenario.toml");
        std::fs::write(
            &path,
            "[scenario]\nname = \"x\"\n[acp.load]\nreplay = \"after_response\"\n[[acp.prompt]]\nsteps = [{ crash = \"kil\" }]\n",
        )
        .expect("write");
        let err = parse_acp_script_file(&path, Some("acp")).expect_err("bad crash kind");
        assert_eq!((err.0[0].line, err.0[0].column), (6, 20), "{err}");
        std::fs::write(
            &path,
            "[scenario]\nname = \"x\"\n[acp.load]\nreplay = \"after_response\"\n",
        )
        .expect("write");
        let script = parse_acp_script_file(&path, Some("acp")).expect("parses");
        assert_eq!(script.load.replay, Some(ReplayTiming::AfterResponse));
        let missing = parse_acp_script_file(&path, Some("nope")).expect_err("no table");
        assert!(
            missing.0[0].message.contains("no `[nope]` table"),
            "{missing}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn reply_and_opening_problems_are_each_located_with_a_hint() {
        let err = parse(concat!(
            "[opening]\n",
            "steps = [{ error = { code = -32000, message = \"x\" } }]\n",
            "[[reply]]\n",
            "when = { nth = 1, methd = \"initialize\" }\n",
            "steps = [\n",
            "  { line = '{\"jsonrpc\":\"2.0\"' },\n",
            "  { line = \"{}\\n{}\" },\n",
            "  { lien = '{}' },\n",
            "]\n",
        ))
        .expect_err("rejects");
        let at: Vec<(usize, usize)> = err.iter().map(|d| (d.line, d.column)).collect();
        assert_eq!(at, [(2, 10), (4, 19), (6, 3), (7, 3), (8, 5)], "{err}");
        assert!(err.iter().all(|d| d.hint.is_some()), "{err}");
        assert!(err.0[0].message.contains("answers no request"), "{err}");
        assert!(err.0[2].message.contains("not one JSON value"), "{err}");
        assert!(err.0[3].message.contains("line break"), "{err}");
        assert!(
            err.0[4].hint.as_deref().unwrap_or("").contains("`line`"),
            "{err}"
        );
    }

    #[test]
    fn a_reply_after_a_catch_all_reply_is_reported() {
        let err = parse("[[reply]]\ntimes = \"always\"\n[[reply]]\nwhen = { nth = 2 }\n")
            .expect_err("rejects");
        assert!(
            err.0[0].message.contains("reply 2 can never be chosen"),
            "{err}"
        );
        assert_eq!(err.0[0].line, 3);
    }

    #[test]
    fn a_reply_script_reads_its_lines_and_typed_errors() {
        let script = parse(concat!(
            "[opening]\n",
            "steps = [{ line = '{\"direction\": \"agent\", \"a\": 1}' }]\n",
            "[[reply]]\n",
            "when = { nth = 2, method = \"session/cancel\", id = \"c-1\" }\n",
            "steps = [{ error = { code = -32601, message = \"Method not found\", data = { method = \"session/cancel\" } } }]\n",
        ))
        .expect("parses");
        assert_eq!(
            script.opening.steps,
            [ReplyStep::Line(r#"{"direction": "agent", "a": 1}"#.into())]
        );
        let rule = &script.replies[0];
        assert_eq!(
            rule.when,
            Some(RequestMatch {
                nth: Some(2),
                method: Some("session/cancel".into()),
                id: Some(reply_id_text("c-1")),
            })
        );
        assert_eq!(
            rule.steps,
            [ReplyStep::Error(ErrorSpec {
                code: -32601,
                message: "Method not found".into(),
                data: Some(serde_json::json!({ "method": "session/cancel" })),
            })]
        );
    }

    fn reply_id_text(s: &str) -> ReplyId {
        ReplyId::Text(s.into())
    }

    /// JSON values, rendered compactly or with Python's spacing, as one line.
    fn arb_json_line() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            "\\PC{0,10}".prop_map(serde_json::Value::from),
        ];
        let value = leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                proptest::collection::vec(("[a-zA-Z_/]{1,8}", inner), 0..4)
                    .prop_map(|kv| { serde_json::Value::Object(kv.into_iter().collect()) }),
            ]
        });
        (value, any::<bool>()).prop_map(|(v, python)| {
            let compact = v.to_string();
            if python {
                format!("{{\"direction\": \"agent\", \"params\": {compact}}}")
            } else {
                compact
            }
        })
    }

    fn arb_reply_step() -> impl Strategy<Value = ReplyStep> {
        prop_oneof![
            arb_json_line().prop_map(ReplyStep::Line),
            "[a-z ]{0,12}".prop_map(ReplyStep::Stderr),
            (-32768i32..-31999, "\\PC{0,12}").prop_map(|(code, message)| ReplyStep::Error(
                ErrorSpec {
                    code,
                    message,
                    data: None,
                }
            )),
        ]
    }

    fn arb_reply() -> impl Strategy<Value = ReplyRule> {
        (
            proptest::option::of("[a-z ]{1,8}"),
            proptest::option::of(1u32..9),
            proptest::option::of("(initialize|session/new|session/prompt)"),
            proptest::option::of(prop_oneof![
                any::<i64>().prop_map(ReplyId::Number),
                "[a-z0-9-]{0,6}".prop_map(ReplyId::Text),
            ]),
            proptest::collection::vec(arb_reply_step(), 0..4),
        )
            .prop_map(|(name, nth, method, id, steps)| ReplyRule {
                name,
                when: Some(RequestMatch { nth, method, id }),
                times: Some(Times::Count(1)),
                steps,
            })
    }

    fn arb_step() -> impl Strategy<Value = AcpStep> {
        prop_oneof![
            "[a-z ]{0,12}".prop_map(AcpStep::Text),
            "[a-z ]{0,12}".prop_map(AcpStep::Thought),
            "[a-z ]{0,12}".prop_map(AcpStep::Stderr),
            Just(AcpStep::Default(True)),
            Just(AcpStep::DuplicateToolCall(True)),
            Just(AcpStep::WaitForCancel(True)),
            Just(AcpStep::Commands(True)),
            (0u64..10_000)
                .prop_map(|ms| AcpStep::Sleep(std::time::Duration::from_millis(ms).into())),
            "(in_progress|completed|failed)".prop_map(|status| AcpStep::ToolUpdate(
                ToolUpdateSpec {
                    status,
                    ..Default::default()
                }
            )),
        ]
    }

    fn arb_rule() -> impl Strategy<Value = PromptRule> {
        (
            proptest::option::of("[a-z]{1,8}"),
            proptest::option::of("[a-z]{1,8}"),
            proptest::collection::vec(arb_step(), 0..5),
            proptest::option::of(prop_oneof![
                Just(StopReasonName::EndTurn),
                Just(StopReasonName::Refusal),
                Just(StopReasonName::MaxTokens),
            ]),
        )
            .prop_map(|(name, contains, mut steps, respond)| {
                if let Some(r) = respond {
                    steps.push(AcpStep::Respond(r));
                }
                PromptRule {
                    name,
                    when: contains.map(|c| PromptMatch {
                        contains: Some(c),
                        ..Default::default()
                    }),
                    times: Some(Times::Count(1)),
                    steps,
                }
            })
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC*") {
            let _ = parse(&s);
        }

        #[test]
        fn toml_shaped_text_never_panics(
            lines in proptest::collection::vec(
                prop_oneof![
                    Just("[[prompt]]".to_string()),
                    Just("[agent]".to_string()),
                    Just("[load]".to_string()),
                    Just("[[reply]]".to_string()),
                    Just("[opening]".to_string()),
                    "steps = \\[\\{ (line|error|sleep) = [0-9a-z'{}\"]{1,8} \\}\\]",
                    "[a-z_]{1,10} = \"[a-z0-9_. ]{0,8}\"",
                    "(steps|late) = \\[\\{ [a-z_]{1,12} = [0-9a-z\"]{1,6} \\}\\]",
                ],
                0..8,
            )
        ) {
            let _ = parse(&lines.join("\n"));
        }

        #[test]
        fn rendered_scripts_parse_back_equal(
            prompts in proptest::collection::vec(arb_rule(), 0..4),
            replay in proptest::option::of(prop_oneof![
                Just(ReplayTiming::BeforeResponse),
                Just(ReplayTiming::AfterResponse),
                Just(ReplayTiming::None),
            ]),
            late in proptest::collection::vec(arb_step(), 0..3),
            opening in proptest::collection::vec(
                arb_json_line().prop_map(ReplyStep::Line), 0..3),
            replies in proptest::collection::vec(arb_reply(), 0..3),
        ) {
            let script = AcpScript {
                load: RestoreSpec { replay, late, error: None },
                prompts,
                opening: OpeningSpec { steps: opening },
                replies,
                ..Default::default()
            };
            let text = render_acp_script(&script).expect("renders");
            let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(back, script);
        }
    }
}
