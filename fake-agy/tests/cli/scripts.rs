//! Scripted behaviour: rule selection, state across invocations, output steps.

use crate::support::{json_lines, Sandbox};
use agy_protocol::env::{FAKE_AGY_SCRIPT, FAKE_AGY_SCRIPT_TABLE, FAKE_AGY_TIME_SCALE};

#[test]
fn the_third_call_fails() {
    let sb = Sandbox::new();
    let script = sb.script(
        r#"
[[invocation]]
times = 2
steps = [{ default = true }]
[[invocation]]
steps = [{ stderr = "boom" }, { exit = 5 }]
"#,
    );
    for expected in [0, 0, 5, 0] {
        sb.cmd()
            .env(FAKE_AGY_SCRIPT, &script)
            .args(["-p", "reply ok", "--output-format", "json"])
            .assert()
            .code(expected);
    }
    let rules: Vec<String> = sb
        .journal()
        .iter()
        .map(|r| r.rule.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        rules,
        ["invocation 1", "invocation 1", "invocation 2", "default"]
    );
}

#[test]
fn rules_match_prompt_and_argv() {
    let sb = Sandbox::new();
    let script = sb.script(
        r#"
[[invocation]]
name = "cats"
when = { prompt_contains = "cat", argv_has = ["--output-format json"] }
steps = [{ envelope = { response = "meow\n" } }]
"#,
    );
    let out = sb
        .cmd()
        .env(FAKE_AGY_SCRIPT, &script)
        .args(["-p", "a cat", "--output-format", "json"])
        .assert()
        .success();
    assert_eq!(
        json_lines(&out.get_output().stdout)[0]["response"],
        "meow\n"
    );
    let out = sb
        .cmd()
        .env(FAKE_AGY_SCRIPT, &script)
        .args(["-p", "a dog", "--output-format", "json"])
        .assert()
        .success();
    assert_eq!(
        json_lines(&out.get_output().stdout)[0]["response"],
        "Done.\n"
    );
    assert_eq!(sb.journal()[0].rule.as_deref(), Some("cats"));
}

#[test]
fn when_exhausted_fail_breaks_the_fake_on_an_extra_call() {
    let sb = Sandbox::new();
    let script =
        sb.script("[script]\nwhen_exhausted = \"fail\"\n[[invocation]]\nsteps = [{ exit = 0 }]\n");
    sb.cmd()
        .env(FAKE_AGY_SCRIPT, &script)
        .args(["-p", "x"])
        .assert()
        .code(0);
    let out = sb
        .cmd()
        .env(FAKE_AGY_SCRIPT, &script)
        .args(["-p", "x"])
        .assert()
        .code(fake_agy::exit_code::BROKEN);
    assert!(String::from_utf8_lossy(&out.get_output().stderr)
        .starts_with("fake-agy: invocation 2 matches no rule"));
}

#[test]
fn envelope_overrides_and_exit_code_follows_the_status() {
    let sb = Sandbox::new();
    let out = sb
        .scripted(r#"
[[invocation]]
steps = [{ envelope = { conversation_id = "", status = "ERROR", error = "authentication required", usage = "zero", num_turns = 0, duration_seconds = 0 } }]
"#)
        .args(["-p", "x", "--output-format", "json"])
        .assert()
        .code(1);
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "{\"conversation_id\":\"\",\"status\":\"ERROR\",\"response\":\"Done.\\n\",\"error\":\"authentication required\",\"duration_seconds\":0,\"num_turns\":0,\"usage\":{\"input_tokens\":0,\"output_tokens\":0,\"thinking_tokens\":0,\"cache_read_tokens\":0,\"total_tokens\":0}}\n"
    );
    assert!(
        !sb.app_dir().join("brain").exists(),
        "an explicit empty id creates no conversation"
    );
}

#[test]
fn raw_hex_and_truncated_output_is_written_verbatim() {
    let sb = Sandbox::new();
    let out = sb
        .scripted(
            r#"
[[invocation]]
steps = [
  { stdout = "{not json" },
  { stdout_hex = "ff fe 0a" },
  { stderr_raw = "no newline" },
  { stdout_raw = "{\"conversation_id\":\"abc\",\"sta" },
  { exit = 0 },
]
"#,
        )
        .args(["-p", "x", "--output-format", "json"])
        .assert()
        .success();
    let o = out.get_output();
    let mut expected = b"{not json\n\xff\xfe\n".to_vec();
    expected.extend_from_slice(b"{\"conversation_id\":\"abc\",\"sta");
    assert_eq!(o.stdout, expected);
    assert_eq!(o.stderr, b"no newline");
}

#[test]
fn close_stdout_ends_the_stream_while_the_process_runs_on() {
    let sb = Sandbox::new();
    let mut c = sb.std_cmd();
    c.env(FAKE_AGY_SCRIPT, sb.script("[[invocation]]\nsteps = [{ stdout = \"partial\" }, { close_stdout = true }, { stderr = \"still here\" }, { exit = 4 }]\n"))
        .args(["-p", "x"]);
    let out = crate::support::wait_with_timeout(
        c.spawn().expect("spawn"),
        std::time::Duration::from_secs(20),
    );
    assert_eq!(out.stdout, b"partial\n");
    assert_eq!(out.stderr, b"still here\n");
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn scenario_table_of_a_scenario_file_is_read() {
    let sb = Sandbox::new();
    let p = sb.path().join("scenario.toml");
    std::fs::write(&p, "[scenario]\nname = \"x\"\n[[agy.invocation]]\nsteps = [{ stdout = \"from agy table\" }, { exit = 9 }]\n").expect("write");
    sb.cmd()
        .env(FAKE_AGY_SCRIPT, &p)
        .env(FAKE_AGY_SCRIPT_TABLE, "agy")
        .args(["-p", "x"])
        .assert()
        .code(9)
        .stdout("from agy table\n");
}

#[test]
fn default_step_with_overrides_and_unadvanced_turns() {
    let sb = Sandbox::new();
    let out = sb
        .scripted("[[invocation]]\nsteps = [{ default = { response = \"custom\\n\", chunks = 3, advance_turns = false, usage = { input = 10, output = 5 } } }]\n")
        .args(["-p", "x", "--output-format", "stream-json"])
        .assert()
        .success();
    let ev = json_lines(&out.get_output().stdout);
    let actives = ev
        .iter()
        .filter(|e| e["step_update"]["state"] == "ACTIVE")
        .count();
    assert_eq!(actives, 3);
    let result = &ev.last().expect("result")["result"];
    assert_eq!(result["response"], "custom\n");
    assert_eq!(result["num_turns"], 0);
    assert_eq!(result["usage"]["total_tokens"], 15);
}

#[test]
fn sleep_is_scaled_by_the_time_scale() {
    // A 1-hour sleep at scale 0 finishes at once; the test's timeout would catch it.
    let sb = Sandbox::new();
    sb.scripted("[[invocation]]\nsteps = [{ sleep = \"1h\" }, { exit = 0 }]\n")
        .env(FAKE_AGY_TIME_SCALE, "0")
        .args(["-p", "x"])
        .assert()
        .success();
}

#[test]
fn a_rule_without_steps_acts_out_the_default_run() {
    let sb = Sandbox::new();
    let out = sb
        .scripted("[[invocation]]\nname = \"plain\"\n")
        .args(["-p", "reply HI", "--output-format", "json"])
        .assert()
        .success();
    assert_eq!(json_lines(&out.get_output().stdout)[0]["response"], "HI\n");
    assert_eq!(sb.journal()[0].rule.as_deref(), Some("plain"));
}

#[test]
fn init_and_step_update_are_written_in_any_format_and_same_index_reuses_the_last() {
    let sb = Sandbox::new();
    let out = sb
        .scripted(
            r#"
[[invocation]]
steps = [
  { init = { model = "m" } },
  { step_update = { step_type = "tool", state = "ACTIVE", tool_name = "view_file", parameters = { AbsolutePath = "/x" } } },
  { step_update = { step_type = "tool", same_index = true, output = "1 lines, 2 bytes" } },
  { file = { path = "notes/a.bin", hex = "00 ff" } },
  { envelope = {} },
]
"#,
        )
        .args(["-p", "x", "--output-format", "json"])
        .assert()
        .success();
    let ev = json_lines(&out.get_output().stdout);
    assert_eq!(ev[0]["event"], "init");
    assert_eq!(ev[0]["init"]["model"], "m");
    assert_eq!(
        ev[1]["step_update"]["step_index"],
        ev[2]["step_update"]["step_index"]
    );
    assert_eq!(ev[2]["step_update"]["tool_info"]["name"], "view_file");
    assert_eq!(
        ev[2]["step_update"]["tool_info"]["output"],
        "1 lines, 2 bytes"
    );
    let id = ev[3]["conversation_id"].as_str().expect("id");
    let f = sb.app_dir().join("brain").join(id).join("notes/a.bin");
    assert_eq!(std::fs::read(&f).expect("file"), [0x00, 0xff]);
    assert!(sb.journal()[0]
        .files
        .iter()
        .any(|r| r.path == f.display().to_string()));
}

#[test]
fn quota_step_defers_exit_3_until_the_steps_end() {
    let sb = Sandbox::new();
    let out = sb
        .scripted("[[invocation]]\nsteps = [{ quota_exhausted = { message = \"credits too low\" } }, { duplicate_result = true }]\n")
        .args(["-p", "x", "--output-format", "stream-json"])
        .assert()
        .code(3);
    let ev = json_lines(&out.get_output().stdout);
    let n = ev.len();
    assert_eq!(ev[n - 1], ev[n - 2], "the result twice");
    assert_eq!(ev[n - 1]["result"]["error"], "credits too low");
    assert!(String::from_utf8_lossy(&out.get_output().stderr)
        .starts_with("error: credits too low\nAGY_ERROR: {"));
}

#[test]
fn replay_previous_works_across_processes_of_a_conversation() {
    let sb = Sandbox::new();
    let script = sb.script(
        "[[invocation]]\nwhen = { argv_has = [\"--conversation\"] }\nsteps = [{ replay_previous = true }, { default = true }]\n",
    );
    let first = sb
        .cmd()
        .env(FAKE_AGY_SCRIPT, &script)
        .args(["-p", "reply ONE", "--output-format", "stream-json"])
        .assert()
        .success();
    let ev1 = json_lines(&first.get_output().stdout);
    let id = ev1[0]["conversation_id"].as_str().expect("id").to_string();
    let second = sb
        .cmd()
        .env(FAKE_AGY_SCRIPT, &script)
        .args([
            "-p",
            "reply TWO",
            "--output-format",
            "stream-json",
            "--conversation",
            &id,
        ])
        .assert()
        .success();
    let ev2 = json_lines(&second.get_output().stdout);
    assert_eq!(
        ev2[..ev1.len() - 1],
        ev1[1..],
        "turn 1's steps and result first"
    );
    assert_eq!(ev2.last().expect("r")["result"]["num_turns"], 2);
}

#[test]
fn print_timeout_step_follows_the_version() {
    let sb = Sandbox::new();
    let out = sb
        .scripted(
            "[script]\nagy = \"1.1.24\"\n[[invocation]]\nsteps = [{ print_timeout = true }]\n",
        )
        .args([
            "-p",
            "x",
            "--output-format",
            "json",
            "--print-timeout",
            "90s",
        ])
        .assert()
        .code(1)
        .stderr("");
    let env = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(env["error"], "timeout waiting for response");
    assert_eq!(env["duration_seconds"], 90);
}

#[test]
fn trace_step_selects_an_invocation_by_number() {
    let sb = Sandbox::new();
    let header = r#"{"trace":1,"agy_version":"1.2.6","recorded":"2026-09-20","platform":"linux_amd64","source":"test"}"#;
    let text = format!(
        "{header}\n{{\"invocation\":{{\"argv\":[\"agy\"]}}}}\n{{\"t\":0,\"stdout\":\"first\\n\"}}\n{{\"invocation\":{{\"argv\":[\"agy\"]}}}}\n{{\"t\":0,\"stdout\":\"second\\n\"}}\n{{\"t\":0,\"exit\":{{\"code\":6}}}}\n"
    );
    std::fs::write(sb.path().join("two.jsonl"), text).expect("trace");
    sb.scripted("[[invocation]]\nsteps = [{ trace = \"two.jsonl#2\" }]\n")
        .args(["-p", "x"])
        .assert()
        .code(6)
        .stdout("second\n");
}

#[test]
fn deny_step_in_print_mode_shows_the_denial_turn() {
    let sb = Sandbox::new();
    let out = sb
        .scripted("[[invocation]]\nsteps = [{ deny = true }]\n")
        .args(["-p", "x", "--output-format", "stream-json"])
        .assert()
        .code(0);
    let ev = json_lines(&out.get_output().stdout);
    assert_eq!(ev[1]["step_update"]["step_type"], "user_input");
    let r = &ev.last().expect("r")["result"];
    assert_eq!(r["denied_actions"][0]["display_name"], "RunCommand");
}

#[test]
fn a_step_can_carry_unknown_keys_another_conversation_and_no_tool_info() {
    // The subagent step of capture ut-1.3.1-subagent (stdout line 5), placeholder
    // Go-escaped: a tool_name without tool_info, and a `subagent_info` the types do
    // not name.
    let line = r#"{"event":"step_update","step_update":{"conversation_id":"4054c80b-4ccb-486c-bb7d-0e951ef13f13","step_index":2,"state":"DONE","step_type":"subagent","tool_name":"invoke_subagent","duration_seconds":0.446841518,"subagent_info":{"subagents":[{"type_name":"research","role":"Secret Reader","initial_prompt":"Read notes.txt and reply with the secret word only.","conversation_id":"cc320b5c-7911-449e-b45f-013887cb5cfe","log_uri":"file://~/.gemini/antigravity-cli/brain/cc320b5c-7911-449e-b45f-013887cb5cfe/.system_generated/logs/transcript.jsonl","workspace_uris":["file://\u003cscratch\u003e/proj-sub"]}]}}}"#;
    let sb = Sandbox::new();
    let out = sb
        .scripted(r#"
[[invocation]]
steps = [
  { step_update = { conversation_id = "4054c80b-4ccb-486c-bb7d-0e951ef13f13", step_index = 2, state = "DONE", step_type = "subagent", tool_name = "invoke_subagent", tool_info = false, duration_seconds = 0.446841518, extra = '{"subagent_info":{"subagents":[{"type_name":"research","role":"Secret Reader","initial_prompt":"Read notes.txt and reply with the secret word only.","conversation_id":"cc320b5c-7911-449e-b45f-013887cb5cfe","log_uri":"file://~/.gemini/antigravity-cli/brain/cc320b5c-7911-449e-b45f-013887cb5cfe/.system_generated/logs/transcript.jsonl","workspace_uris":["file://<scratch>/proj-sub"]}]}}' } },
  { envelope = { status = "SUCCESS", response = "x", extra = '{"json_schema":{"type":"object","required":null}}' } },
  { exit = 0 },
]
"#)
        .args(["-p", "x", "--output-format", "stream-json"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.contains(&line), "{stdout}");
    let result = lines.last().copied().unwrap_or("");
    assert!(
        result.ends_with(r#""json_schema":{"type":"object","required":null}}}"#),
        "{result}"
    );
}

#[test]
fn extra_that_is_not_a_json_object_is_reported_with_its_line() {
    let sb = Sandbox::new();
    let out = sb
        .scripted("[[invocation]]\nsteps = [\n  { step_update = { extra = '[1]' } },\n]\n")
        .args(["-p", "x"])
        .assert()
        .code(agy_protocol::script::FAKE_BROKEN_EXIT);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains(":3:"), "{err}");
    assert!(err.contains("JSON object"), "{err}");
}

#[test]
fn a_script_path_that_never_ends_is_refused_unread() {
    let sb = Sandbox::new();
    sb.cmd()
        .env(FAKE_AGY_SCRIPT, "/dev/zero")
        .args(["-p", "hi", "--output-format", "json"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(70)
        .stderr(predicates::str::contains("not a regular file"));
}

#[test]
fn a_trace_path_that_never_ends_is_refused_unread() {
    let sb = Sandbox::new();
    // Outside the script's folder: refused by where it is.
    let script = sb.script("[[invocation]]\nsteps = [{ trace = \"/dev/zero\" }]\n");
    sb.cmd()
        .env(FAKE_AGY_SCRIPT, &script)
        .args(["-p", "hi", "--output-format", "json"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(70)
        .stderr(predicates::str::contains("outside the script's repository"));
    // Inside it, a FIFO no one writes to: refused by what it is.
    let sb = Sandbox::new();
    let fifo = sb.path().join("never.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let script = sb.script("[[invocation]]\nsteps = [{ trace = \"never.jsonl\" }]\n");
    sb.cmd()
        .env(FAKE_AGY_SCRIPT, &script)
        .args(["-p", "hi", "--output-format", "json"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(70)
        .stderr(predicates::str::contains("not a regular file"));
}
