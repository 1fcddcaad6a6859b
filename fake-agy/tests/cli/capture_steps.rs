//! The script vocabulary a converted capture needs (docs/script-format.md): rules that
//! answer a command line agy's flag parser would answer, `log`, `command_result`, a
//! result's `format`, `key_order`, `step_error`, `json_schema` and a usage without
//! `cache_read_tokens`.

use crate::support::Sandbox;
use predicates::str::starts_with;

#[test]
fn a_rule_naming_help_answers_it_and_other_flag_errors_keep_the_parsers_answer() {
    let sb = Sandbox::new();
    let script = "[[invocation]]\nname = \"help\"\nwhen = { argv_has = [\"-h\"] }\nsteps = [{ stderr = \"Usage: agy [flags]\" }, { exit = 0 }]\n";
    let out = sb.scripted(script).arg("-h").assert().code(0);
    assert_eq!(out.get_output().stderr, b"Usage: agy [flags]\n");
    assert_eq!(sb.journal()[0].rule.as_deref(), Some("help"));
    sb.scripted(script)
        .arg("--nope")
        .assert()
        .code(2)
        .stderr(starts_with(
            "flags provided but not defined: -nope\nUsage of agy:\n",
        ));
}

#[test]
fn a_rule_without_an_argv_predicate_leaves_help_to_the_parser() {
    let sb = Sandbox::new();
    let out = sb
        .scripted("[[invocation]]\nwhen = { mode = \"command\" }\nsteps = [{ exit = 5 }]\n[[invocation]]\nsteps = [{ exit = 6 }]\n")
        .arg("-h")
        .assert()
        .code(0);
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stderr),
        fake_agy::root_usage(agy_protocol::AgyVersion::DEFAULT)
    );
}

#[test]
fn default_in_a_rule_naming_an_undefined_flag_is_the_parsers_answer() {
    let sb = Sandbox::new();
    sb.scripted("[[invocation]]\nwhen = { argv_has = [\"--nope\"] }\nsteps = [{ stderr = \"first\" }, { default = true }]\n")
        .args(["-p", "x", "--nope"])
        .assert()
        .code(2)
        .stderr(starts_with(
            "first\nflags provided but not defined: -nope\nUsage of agy:\n",
        ));
}

#[test]
fn log_steps_append_to_the_log_file_even_when_the_command_line_does_not_parse() {
    let sb = Sandbox::new();
    let script = "[[invocation]]\nwhen = { argv_has = [\"--no-such-flag\"] }\nsteps = [{ log = \"I0730 first\\n\" }, { log = \"E0730 cut\" }]\n[[invocation]]\nsteps = [{ log = \"one\\n\" }]\n";
    sb.scripted(script)
        .args(["-p", "x", "--no-such-flag", "--log-file", "run.log"])
        .assert()
        .code(0)
        .stdout("")
        .stderr("");
    let log = std::fs::read_to_string(sb.path().join("run.log")).expect("log written");
    assert_eq!(log, "I0730 first\nE0730 cut");
    sb.scripted(script)
        .args(["-p", "x", "--log-file=second.log"])
        .assert()
        .code(0);
    let log = std::fs::read_to_string(sb.path().join("second.log")).expect("log written");
    assert_eq!(log, "one\n");
}

#[test]
fn a_command_result_and_a_result_in_a_form_the_argv_does_not_give() {
    let sb = Sandbox::new();
    let script = r#"[[invocation]]
steps = [
  { command_result = { name = "model", data = '{"id":"m-high","label":"M (High)","is_default":false}' } },
  { envelope = { conversation_id = "", response = "m-high\tM (High)\n", duration_seconds = 0, num_turns = 0, usage = "zero", format = "stream_json" } },
]
"#;
    let out = sb.scripted(script).args(["-p", "x"]).assert().code(0);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert_eq!(
        stdout,
        concat!(
            r#"{"event":"command_result","command":{"name":"model","data":{"id":"m-high","label":"M (High)","is_default":false}}}"#,
            "\n",
            r#"{"event":"result","result":{"conversation_id":"","status":"SUCCESS","response":"m-high\tM (High)\n","duration_seconds":0,"num_turns":0,"usage":{"input_tokens":0,"output_tokens":0,"thinking_tokens":0,"cache_read_tokens":0,"total_tokens":0}}}"#,
            "\n"
        )
    );
}

#[test]
fn key_order_step_error_json_schema_and_a_usage_without_cache_reads_are_written() {
    let sb = Sandbox::new();
    let script = r#"[[invocation]]
steps = [
  { init = { cwd = "/w", tools = [], permission_mode = "request-review", conversation_id = "c", extra = '{"agent":"review"}', key_order = ["cwd", "agent"] } },
  { step_update = { conversation_id = "c", step_index = 7, state = "ERROR", step_type = "tool", tool_name = "run_command", parameters = { CommandLine = "echo hi" }, step_error = { type = "TOOL_ERROR", message = "permission check failed" } } },
  { envelope = { conversation_id = "c", response = "OK\n", duration_seconds = 2.5, num_turns = 1, usage = { input = 16791, output = 4, thinking = 0, cache_read_key = false }, json_schema = '{"type":"object","required":["a"]}' } },
]
"#;
    let out = sb
        .scripted(script)
        .args(["-p", "x", "--output-format", "json"])
        .assert()
        .code(0);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            r#"{"event":"init","conversation_id":"c","init":{"cwd":"/w","agent":"review","tools":[],"permission_mode":"request-review"}}"#,
            r#"{"event":"step_update","step_update":{"conversation_id":"c","step_index":7,"state":"ERROR","step_type":"tool","tool_name":"run_command","tool_info":{"name":"run_command","parameters":{"CommandLine":"echo hi"}},"error":{"type":"TOOL_ERROR","message":"permission check failed"}}}"#,
            r#"{"conversation_id":"c","status":"SUCCESS","response":"OK\n","duration_seconds":2.5,"num_turns":1,"json_schema":{"type":"object","required":["a"]},"usage":{"input_tokens":16791,"output_tokens":4,"thinking_tokens":0,"total_tokens":16795}}"#,
        ]
    );
}
