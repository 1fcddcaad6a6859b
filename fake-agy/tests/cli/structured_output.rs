//! `--json-schema`: every default turn answers with a value that conforms, carried as
//! `structured_output` and as the response text; a bad schema and an answer that cannot
//! conform fail (docs/agy-versions.md, "Structured output").

use crate::session_driver::{user, Driver};
use crate::support::{json_lines, Sandbox};
use serde_json::{json, Value};

fn reply_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "reply": {"type": "string", "minLength": 1},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "labels": {"type": "array", "items": {"enum": ["short", "long"]}, "minItems": 1},
            "extra": {"type": "string"}
        },
        "required": ["reply", "confidence", "labels"],
        "additionalProperties": false
    })
}

/// Checks one `result` payload against `schema` with the schema crate.
fn assert_conforms(result: &Value, schema: &Value) {
    let validator = jsonschema::validator_for(schema).expect("schema compiles");
    let out = &result["structured_output"];
    assert!(!out.is_null(), "no structured_output: {result}");
    let errors: Vec<String> = validator.iter_errors(out).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{out} does not conform: {errors:?}");
    let text = result["response"].as_str().expect("response");
    let parsed: Value = serde_json::from_str(text.trim_end()).expect("response is JSON");
    assert_eq!(&parsed, out, "response text and structured_output agree");
}

/// The untether `json_schema_finish` shape (agy 1.3.1): the `finish` tool ACTIVE with the
/// value as parameters, then a step of type `finish` DONE, right before the result; the
/// result keys put `structured_output` and `json_schema` between `num_turns` and `usage`.
fn assert_finish_steps(turn: &[Value], value: &Value) {
    let n = turn.len();
    assert!(n >= 3, "{turn:?}");
    let call = &turn[n - 3]["step_update"];
    let done = &turn[n - 2]["step_update"];
    assert_eq!(
        (
            &call["state"],
            &call["tool_name"],
            &call["tool_info"]["parameters"]
        ),
        (&json!("ACTIVE"), &json!("finish"), value)
    );
    assert_eq!(
        (&done["state"], &done["step_type"]),
        (&json!("DONE"), &json!("finish"))
    );
    assert_eq!(done["step_index"], call["step_index"]);
    let keys: Vec<&str> = turn[n - 1]["result"]
        .as_object()
        .expect("result")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "conversation_id",
            "status",
            "response",
            "duration_seconds",
            "num_turns",
            "structured_output",
            "json_schema",
            "usage"
        ]
    );
}

#[tokio::test]
async fn a_persistent_client_gets_conforming_structured_output_on_every_turn() {
    let sb = Sandbox::new();
    let schema = reply_schema();
    let file = sb.path().join("schema.json");
    std::fs::write(&file, schema.to_string()).expect("schema file");
    for arg in [schema.to_string(), file.display().to_string()] {
        let mut d = Driver::start(&sb, None, &["--json-schema", &arg], &[]);
        for prompt in [
            "reply with the single word PONG",
            "what is 2+2?",
            "draw a red circle",
        ] {
            d.send(&user(prompt)).await;
            let turn = d.turn().await;
            let result = &turn.last().expect("result")["result"];
            assert_eq!(result["status"], "SUCCESS", "{prompt}: {result}");
            assert_conforms(result, &schema);
            assert_eq!(result["json_schema"], schema);
            assert_finish_steps(&turn, &result["structured_output"]);
        }
        let (status, _) = d.finish().await;
        assert_eq!(status.code(), Some(0));
    }
}

/// A persistent process served by a scripted `[[invocation]]` rule still answers under the
/// schema it was started with: the schema is agy's, not a decision of the script's model.
#[tokio::test]
async fn a_scripted_persistent_invocation_still_answers_under_the_schema() {
    let sb = Sandbox::new();
    let schema = reply_schema();
    for script in [
        "[[invocation]]\nsteps = [{ default = true }]\n",
        "[[invocation]]\nsteps = [{ on_sigterm = \"ignore\" }, { default = true }]\n",
    ] {
        let mut d = Driver::start(
            &sb,
            Some(script),
            &["--json-schema", &schema.to_string()],
            &[],
        );
        d.send(&user("reply with the single word PONG")).await;
        let turn = d.turn().await;
        let result = &turn.last().expect("result")["result"];
        assert_eq!(result["status"], "SUCCESS", "{script}: {result}");
        assert_conforms(result, &schema);
        assert_eq!(result["json_schema"], schema, "{script}");
        let (status, _) = d.finish().await;
        assert_eq!(status.code(), Some(0));
    }
}

#[test]
fn a_print_run_carries_structured_output_in_the_envelope() {
    let sb = Sandbox::new();
    let schema = reply_schema();
    let out = sb
        .cmd()
        .args([
            "-p",
            "reply with the single word PONG",
            "--output-format",
            "json",
        ])
        .args(["--json-schema", &schema.to_string()])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let env = json_lines(&out.stdout).pop().expect("envelope");
    assert_conforms(&env, &schema);
    assert_eq!(env["structured_output"]["reply"], "PONG");
}

#[test]
fn an_invalid_schema_fails_before_the_turn() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["-p", "hello", "--output-format", "stream-json"])
        .args(["--json-schema", r#"{"type": "objekt"}"#])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let events = json_lines(&out.stdout);
    assert_eq!(events.len(), 1, "a lone result: {events:?}");
    assert_eq!(events[0]["result"]["status"], "ERROR");
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: invalid --json-schema"));
}

#[test]
fn an_answer_that_cannot_conform_fails_the_turn() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["-p", "hello", "--output-format", "json"])
        .args([
            "--json-schema",
            r#"{"type": "string", "pattern": "^[0-9]+$"}"#,
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let env = json_lines(&out.stdout).pop().expect("envelope");
    assert_eq!(env["status"], "ERROR");
    assert!(
        env["error"]
            .as_str()
            .unwrap_or("")
            .contains("does not conform"),
        "{env}"
    );
    assert!(env.get("structured_output").is_none());
}

#[test]
fn a_script_sets_the_structured_output() {
    let sb = Sandbox::new();
    let out = sb
        .scripted("[[invocation]]\nsteps = [{ default = { structured_output = { reply = \"scripted\" } } }]\n")
        .args(["-p", "hello", "--output-format", "json"])
        .args(["--json-schema", r#"{"type": "object"}"#])
        .output()
        .expect("runs");
    let env = json_lines(&out.stdout).pop().expect("envelope");
    assert_eq!(env["structured_output"], json!({"reply": "scripted"}));
    assert_eq!(env["response"], "{\"reply\":\"scripted\"}\n");
}
