//! The learning rules on real corpus captures: each learned field equals what the
//! capture shows (values read off the capture files, not off the rules).

use super::*;
use agy_protocol::trace::Trace;
use toml::Value;

fn traces(ids: &[&str]) -> Vec<(String, Trace)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces");
    ids.iter()
        .map(|id| {
            let name = format!("{id}.jsonl");
            let text = std::fs::read_to_string(dir.join(&name)).expect("a committed trace");
            (name.clone(), Trace::parse(&name, &text).expect("parses"))
        })
        .collect()
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_version_comes_from_a_version_run_before_any_trace_header() {
    let learned = learn_from_traces(&traces(&["ut-1.3.1-ok", "mv-1.1.12-version"]));
    let f = &learned.fields["calibration.agy"];
    assert_eq!(f.value.as_str(), Some("1.1.12"));
    assert_eq!(f.evidence, "mv-1.1.12-version.jsonl#1");
    let header_only = learn_from_traces(&traces(&["ut-1.3.1-ok"]));
    assert_eq!(
        header_only.fields["calibration.agy"].evidence,
        "ut-1.3.1-ok.jsonl (header)"
    );
}

#[test]
fn the_model_catalogue_is_the_models_listing_in_order() {
    let learned = learn_from_traces(&traces(&["mv-1.1.12-models"]));
    let models = learned
        .get("models.model")
        .and_then(Value::as_array)
        .expect("models");
    assert_eq!(models.len(), 11);
    assert_eq!(models[0]["id"].as_str(), Some("gemini-3.6-flash-high"));
    assert_eq!(models[0]["label"].as_str(), Some("Gemini 3.6 Flash (High)"));
    assert_eq!(models[10]["id"].as_str(), Some("gpt-oss-120b-medium"));
    assert_eq!(
        learned.get("models.listing").and_then(Value::as_str),
        Some("{id}\t{label}")
    );
}

#[test]
fn init_tools_and_usage_keys_come_from_a_stream_json_turn() {
    let learned = learn_from_traces(&traces(&["ut-1.3.1-ok"]));
    let tools = strings(learned.get("init.tools"));
    assert_eq!(
        tools.first().map(String::as_str),
        Some("ask_custom_permission")
    );
    assert!(tools.contains(&"browser_get_dom".to_string()), "{tools:?}");
    assert_eq!(
        strings(learned.get("usage.keys")),
        [
            "input_tokens",
            "output_tokens",
            "thinking_tokens",
            "cache_read_tokens",
            "total_tokens"
        ]
    );
}

#[test]
fn a_first_turns_added_steps_and_usage_checkpoint_are_learned() {
    // mv-1.1.12-stream-default: user_input, unknown DONE, the answer, then a checkpoint
    // with usage before the result.
    let learned = learn_from_traces(&traces(&["mv-1.1.12-stream-default"]));
    assert_eq!(
        strings(learned.get("turns.first_after_user_input")),
        ["unknown"]
    );
    assert_eq!(
        learned
            .get("turns.first_usage_checkpoint")
            .and_then(Value::as_str),
        Some("after-first-tool")
    );
    // ut-1.3.1-ok: the answer right after user_input, no checkpoint, SUCCESS.
    let learned = learn_from_traces(&traces(&["ut-1.3.1-ok"]));
    assert_eq!(
        learned.get("turns.first_after_user_input"),
        Some(&Value::Array(Vec::new()))
    );
    assert_eq!(
        learned
            .get("turns.first_usage_checkpoint")
            .and_then(Value::as_str),
        Some("none")
    );
}

#[test]
fn a_run_with_agent_shows_no_default_agents_steps() {
    // jd-1.1.9-review-stream runs `--agent agy-review`: no `unknown` step, which says
    // nothing of the default agent's.
    let learned = learn_from_traces(&traces(&["jd-1.1.9-review-stream"]));
    assert_eq!(learned.get("turns.first_after_user_input"), None);
    assert_eq!(
        learned
            .get("turns.first_usage_checkpoint")
            .and_then(Value::as_str),
        Some("after-first-tool")
    );
}

#[test]
fn a_print_timeout_is_learned_from_the_run_that_timed_out() {
    let old = learn_from_traces(&traces(&["gb-1.1.18-print-timeout"]));
    assert_eq!(
        old.get("print_timeout.status").and_then(Value::as_str),
        Some("ERROR")
    );
    assert_eq!(
        old.get("print_timeout.exit_code")
            .and_then(Value::as_integer),
        Some(1)
    );
    assert!(
        old.get("print_timeout.notice").is_none(),
        "no stderr: no notice learned"
    );
    assert_eq!(
        old.get("print_timeout.error").and_then(Value::as_str),
        Some("timeout waiting for response")
    );
    let new = learn_from_traces(&traces(&["pb-1.2.17-print-timeout"]));
    assert_eq!(
        new.get("print_timeout.status").and_then(Value::as_str),
        Some("SUCCESS")
    );
    assert_eq!(
        new.get("print_timeout.exit_code")
            .and_then(Value::as_integer),
        Some(0)
    );
    assert_eq!(
        new.get("print_timeout.notice").and_then(Value::as_str),
        Some(
            "[agy] print timeout after {duration} with turn in progress; returning partial output"
        )
    );
    assert!(new.get("print_timeout.error").is_none());
}

#[test]
fn a_slash_command_on_stdin_that_ends_the_session_is_learned_as_fatal() {
    let learned = learn_from_traces(&traces(&["ut-1.3.1-stream-slash-fatal"]));
    assert_eq!(
        learned
            .get("persistent.slash_command")
            .and_then(Value::as_str),
        Some("fatal")
    );
    assert_eq!(
        learned
            .get("persistent.slash_exit_code")
            .and_then(Value::as_integer),
        Some(2)
    );
}

#[test]
fn a_later_recording_that_disagrees_is_kept_as_a_disagreement() {
    let learned = learn_from_traces(&traces(&[
        "gb-1.1.18-print-timeout",
        "pb-1.2.17-print-timeout",
    ]));
    let f = &learned.fields["print_timeout.status"];
    assert_eq!(f.value.as_str(), Some("ERROR"));
    assert_eq!(
        f.disagreements,
        ["pb-1.2.17-print-timeout.jsonl#1: \"SUCCESS\""]
    );
}

const BASE: &str = r#"
[calibration]
agy = "1.2.17"
evidence = "pb-1.2.17-success-pong"

[usage]
keys = ["input_tokens", "output_tokens"]
evidence = "ab-unknown-usage-json"

[print_timeout]
status = "ERROR"
exit_code = 1
notice = ""
unverified = true
"#;

#[test]
fn learned_fields_replace_the_base_with_their_recording_as_evidence_and_the_rest_is_inherited() {
    let base: toml::Table = toml::from_str(BASE).expect("a table");
    let learned = learn_from_traces(&traces(&["ut-1.3.1-ok", "pb-1.2.17-print-timeout"]));
    let applied = apply_learned(&base, &learned);
    let usage = applied.table["usage"].as_table().expect("usage");
    assert_eq!(usage["keys"].as_array().map(Vec::len), Some(5));
    assert_eq!(
        usage["evidence"]["keys"].as_str(),
        Some("recording ut-1.3.1-ok.jsonl#1")
    );
    let timeout = applied.table["print_timeout"]
        .as_table()
        .expect("print_timeout");
    assert_eq!(timeout["status"].as_str(), Some("SUCCESS"));
    assert!(timeout.get("unverified").is_none(), "{timeout:?}");
    assert_eq!(applied.table["calibration"]["agy"].as_str(), Some("1.3.1"));
    assert!(applied.inherited.is_empty(), "{:?}", applied.inherited);
    assert!(applied.unplaced.contains(&"init.tools".to_string()));
    let partial = apply_learned(&base, &learn_from_traces(&traces(&["mv-1.1.12-version"])));
    assert_eq!(
        partial.inherited,
        [
            "print_timeout.exit_code",
            "print_timeout.notice",
            "print_timeout.status",
            "usage.keys"
        ]
    );
    assert_eq!(
        partial.table["usage"]["evidence"].as_str(),
        Some("ab-unknown-usage-json")
    );
}

mod no_panic {
    use super::super::rules::observe_invocation;
    use agy_protocol::journal::ExitRecord;
    use agy_protocol::trace::{InvocationStart, TimedEvent, TraceEvent, TracedInvocation};
    use proptest::prelude::*;

    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            ".{0,40}",
            Just("{\"event\":\"init\",\"init\":{\"tools\":[1,\"a\"]}}\n".to_string()),
            Just("{\"event\":\"result\",\"result\":{\"status\":\"ERROR\",\"usage\":{\"x\":1},\"error\":\"timeout\"}}\n".to_string()),
            Just("{\"status\":\"SUCCESS\",\"usage\":[]}\n".to_string()),
            Just("[agy] print timeout after 1s\n".to_string()),
            Just("a\tb\n".to_string()),
        ]
    }

    proptest! {
        #[test]
        fn any_recorded_invocation_is_observed_without_panicking(
            args in proptest::collection::vec(prop_oneof![
                Just("--version".to_string()), Just("models".to_string()),
                Just("--print-timeout".to_string()), Just("1s".to_string()),
                Just("--input-format".to_string()), Just("stream-json".to_string()),
                "[-a-z0-9=]{0,10}",
            ], 0..5),
            stdin in proptest::option::of(prop_oneof![
                Just("{\"event\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"/model\"}}".to_string()),
                ".{0,30}",
            ]),
            out in proptest::collection::vec(line(), 0..4),
            err in proptest::collection::vec(line(), 0..3),
            code in proptest::option::of(0i32..3),
        ) {
            let mut events = Vec::new();
            let mut push = |event| events.push(TimedEvent { t: 0.0, event });
            if let Some(s) = stdin { push(TraceEvent::Stdin(s)); }
            out.into_iter().for_each(|s| push(TraceEvent::Stdout(s)));
            err.into_iter().for_each(|s| push(TraceEvent::Stderr(s)));
            push(TraceEvent::Exit(ExitRecord { code, signal: None }));
            let mut argv = vec!["agy".to_string()];
            argv.extend(args);
            let inv = TracedInvocation { start: InvocationStart { argv, ..Default::default() }, events };
            let _ = observe_invocation(&inv);
        }
    }
}
