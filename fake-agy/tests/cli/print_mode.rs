//! Default print-mode behaviour: envelopes, exit codes, print timeout, model errors,
//! denial, versions.

use crate::support::{json_lines, snapshot_settings, Sandbox};
use agy_protocol::env::{
    FAKE_AGY_SCRIPT, FAKE_AGY_TIME_SCALE, FAKE_AGY_TURN_DURATION, FAKE_AGY_VERSION,
};
use agy_protocol::{Envelope, Status};

fn envelope(out: &[u8]) -> Envelope {
    let text = String::from_utf8_lossy(out);
    assert_eq!(text.lines().count(), 1, "one envelope line: {text}");
    Envelope::parse(text.trim_end()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn json_envelope_has_the_recorded_key_order_and_usage_rule() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["-p", "reply PONG", "--output-format", "json"])
        .assert()
        .success();
    let stdout = out.get_output().stdout.clone();
    let text = String::from_utf8_lossy(&stdout);
    let keys: Vec<&str> = [
        "conversation_id",
        "status",
        "response",
        "duration_seconds",
        "num_turns",
        "usage",
    ]
    .into_iter()
    .collect();
    let mut last = 0;
    for k in keys {
        let pos = text
            .find(&format!("\"{k}\""))
            .unwrap_or_else(|| panic!("{k} missing: {text}"));
        assert!(pos >= last, "{k} out of order: {text}");
        last = pos;
    }
    let env = envelope(&stdout);
    assert_eq!(env.status, Status::Success);
    assert_eq!(env.response, "PONG\n");
    assert_eq!(env.num_turns, 1);
    assert!(env.usage.total_is_consistent());
    assert!(!text.contains("\"error\""), "error omitted when empty");
}

#[test]
fn the_common_smoke_check_gets_its_word_and_an_unclear_one_gets_done() {
    // "Reply with exactly the word pong." was answered `exactly`.
    let sb = Sandbox::new();
    for (prompt, answer) in [
        ("Reply with exactly the word pong.", "pong\n"),
        ("Reply with exactly the word OK and nothing else.", "OK\n"),
        (
            "Read notes.txt and reply with the secret word only.",
            "Done.\n",
        ),
    ] {
        let out = sb
            .cmd()
            .args(["-p", prompt, "--output-format", "json"])
            .assert()
            .success();
        assert_eq!(
            envelope(&out.get_output().stdout).response,
            answer,
            "{prompt}"
        );
    }
}

#[test]
fn text_mode_prints_the_response_only() {
    let sb = Sandbox::new();
    sb.cmd()
        .args(["-p", "reply with the single word ok"])
        .assert()
        .success()
        .stdout("ok\n");
}

#[test]
fn print_timeout_on_1_2_6_is_an_empty_success_with_a_stderr_notice() {
    // docs/spike-records.md S6c / docs/agy-reference.md §2.4.
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .env(FAKE_AGY_TURN_DURATION, "10s")
        .args([
            "-p",
            "write an essay",
            "--output-format",
            "json",
            "--print-timeout",
            "1ms",
        ])
        .assert()
        .code(0)
        .stderr("[agy] print timeout after 1ms with turn in progress; returning partial output\n");
    let env = envelope(&out.get_output().stdout);
    assert_eq!(
        (env.status, env.response.as_str(), env.num_turns),
        (Status::Success, "", 1)
    );
    assert!(env.usage.is_zero());
    assert_eq!(env.duration_seconds, 0.0);
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("\"duration_seconds\":0,"));
}

/// A text-mode print run (no `--output-format`) whose `--print-timeout` expires.
fn text_timeout(sb: &Sandbox, version: &str, script: Option<&str>) -> assert_cmd::assert::Assert {
    let mut c = match script {
        Some(text) => sb.scripted(text),
        None => sb.cmd(),
    };
    c.env(FAKE_AGY_VERSION, version)
        .env(FAKE_AGY_TURN_DURATION, "10s")
        .args(["-p", "write an essay", "--print-timeout", "1ms"])
        .assert()
}

#[test]
fn text_mode_print_timeout_per_version() {
    // gb-1.1.18-text-timeout: nothing on stdout, the error on stderr, exit 1.
    let sb = Sandbox::new();
    text_timeout(&sb, "1.1.18", None)
        .code(1)
        .stdout("")
        .stderr("Error: timeout waiting for response\n");
    // 1.2.x: the notice (TF S6c, PB, ai-1.2.2-print-timeout-partial) and the partial
    // answer, empty for a default turn, on stdout (unverified in text mode).
    let sb = Sandbox::new();
    text_timeout(&sb, "1.2.6", None)
        .code(0)
        .stdout("")
        .stderr("[agy] print timeout after 1ms with turn in progress; returning partial output\n");
}

#[test]
fn a_script_states_the_partial_text_and_the_notice_the_record_leaves_open() {
    let sb = Sandbox::new();
    let script = "[[invocation]]\nsteps = [{ print_timeout = { partial = \"Half an ess\", notice = \"[agy] cut\" } }]\n";
    text_timeout(&sb, "1.2.6", Some(script))
        .code(0)
        .stdout("Half an ess")
        .stderr("[agy] cut\n");
    let sb = Sandbox::new();
    let script = "[[invocation]]\nsteps = [{ print_timeout = { notice = \"\" } }]\n";
    text_timeout(&sb, "1.1.18", Some(script)).code(1).stderr("");
}

#[test]
fn print_timeout_on_1_1_24_is_an_error_with_exit_1_and_empty_stderr() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .env(FAKE_AGY_VERSION, "1.1.24")
        .env(FAKE_AGY_TURN_DURATION, "10s")
        .args([
            "-p",
            "x",
            "--output-format",
            "json",
            "--print-timeout",
            "1ms",
        ])
        .assert()
        .code(1)
        .stderr("");
    let env = envelope(&out.get_output().stdout);
    assert_eq!(env.status, Status::Error);
    assert_eq!(env.error, "timeout waiting for response");
}

#[test]
fn time_scale_shrinks_the_turn_so_a_long_timeout_does_not_fire() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .env(FAKE_AGY_TURN_DURATION, "1h")
        .env(FAKE_AGY_TIME_SCALE, "0")
        .args([
            "-p",
            "x",
            "--output-format",
            "json",
            "--print-timeout",
            "2h",
        ])
        .assert()
        .success();
    assert_eq!(envelope(&out.get_output().stdout).response, "Done.\n");
}

#[test]
fn unknown_model_is_a_pre_turn_error_with_the_model_list() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args([
            "-p",
            "x",
            "--output-format",
            "json",
            "--model",
            "does-not-exist",
        ])
        .assert()
        .code(1);
    let o = out.get_output();
    let env = envelope(&o.stdout);
    assert_eq!(env.conversation_id, "");
    assert_eq!(env.num_turns, 0);
    assert!(env.usage.is_zero());
    assert!(env.error.starts_with("invalid model selection (--model \"does-not-exist\" --effort \"\"): model does-not-exist is not recognized as a known model or custom model in settings\nAvailable models:\n  Gemini 3.8 Flash (High)"), "{}", env.error);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(stderr, format!("error: {}\n", env.error));
    assert!(
        !sb.app_dir().join("brain").exists(),
        "no conversation for a pre-turn error"
    );
}

#[test]
fn model_effort_conflict_in_stream_json_is_a_lone_result() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .env(FAKE_AGY_VERSION, "1.2.17")
        .args([
            "-p",
            "x",
            "--output-format",
            "stream-json",
            "--model",
            "gemini-3.8-flash-low",
            "--effort",
            "high",
        ])
        .assert()
        .code(1);
    // The PB trace's bytes (error-model-effort-conflict.stdout / .stderr).
    let expected_out = std::fs::read(
        crate::support::workspace()
            .join("traces/upstream/joiomi__playbook-plugin__error-model-effort-conflict.stdout"),
    )
    .expect("raw");
    let expected_err = std::fs::read(
        crate::support::workspace()
            .join("traces/upstream/joiomi__playbook-plugin__error-model-effort-conflict.stderr"),
    )
    .expect("raw");
    assert_eq!(out.get_output().stdout, expected_out);
    assert_eq!(out.get_output().stderr, expected_err);
}

#[test]
fn unknown_model_on_1_2_17_matches_the_recorded_stderr() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .env(FAKE_AGY_VERSION, "1.2.17")
        .args([
            "-p",
            "x",
            "--output-format",
            "stream-json",
            "--model",
            "gemini-9.9-nope",
        ])
        .assert()
        .code(1);
    let expected = std::fs::read(
        crate::support::workspace()
            .join("traces/upstream/joiomi__playbook-plugin__error-model-rejected.stderr"),
    )
    .expect("raw");
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stderr),
        String::from_utf8_lossy(&expected)
    );
}

#[test]
fn gated_tool_without_bypass_is_soft_denied() {
    // docs/agy-reference.md §2.5 (1.2.x): SUCCESS, empty response, denied_actions, exit 0.
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args([
            "-p",
            "create a file named notes.txt",
            "--output-format",
            "json",
        ])
        .assert()
        .code(0);
    let env = envelope(&out.get_output().stdout);
    assert_eq!(
        (env.status.clone(), env.response.as_str()),
        (Status::Success, "")
    );
    assert_eq!(env.denied_actions.len(), 1);
    assert_eq!(env.denied_actions[0].action, "command");
    assert_eq!(env.denied_actions[0].display_name, "RunCommand");
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("auto-denied"));
    let bypass = sb
        .cmd()
        .args([
            "-p",
            "create a file named notes.txt",
            "--output-format",
            "json",
            "--dangerously-skip-permissions",
        ])
        .assert()
        .code(0);
    assert!(envelope(&bypass.get_output().stdout)
        .denied_actions
        .is_empty());
}

#[test]
fn denial_on_1_1_22_is_canceled() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .env(FAKE_AGY_VERSION, "1.1.22")
        .args(["-p", "run the shell command ls", "--output-format", "json"])
        .assert()
        .code(0);
    assert_eq!(envelope(&out.get_output().stdout).status, Status::Canceled);
}

#[test]
fn version_prints_the_modelled_version() {
    let sb = Sandbox::new();
    sb.cmd()
        .arg("--version")
        .assert()
        .success()
        .stdout("1.2.6\n");
    sb.cmd()
        .env(FAKE_AGY_VERSION, "1.2.17")
        .arg("-version")
        .assert()
        .success()
        .stdout("1.2.17\n");
}

#[test]
fn models_text_lists_id_and_label_with_a_stderr_banner() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .arg("models")
        .assert()
        .success()
        .stderr("Fetching available models...\n");
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.starts_with("gemini-3.8-flash-high\tGemini 3.8 Flash (High)\n"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 14);
    let json = sb
        .cmd()
        .args(["--output-format=json", "models"])
        .assert()
        .success();
    let v = &json_lines(&json.get_output().stdout)[0];
    assert_eq!(v["command"]["name"], "models");
    assert_eq!(
        v["command"]["data"]["models"][0]["id"],
        "gemini-3.8-flash-high"
    );
}

#[test]
fn usage_slash_command_has_the_recorded_shapes() {
    let sb = Sandbox::new();
    let text = sb.cmd().args(["-p", "/usage"]).assert().success();
    let t = String::from_utf8_lossy(&text.get_output().stdout).to_string();
    assert_eq!(t.lines().count(), 4);
    assert!(t.lines().all(|l| l.split('\t').count() == 4), "{t}");
    let json = sb
        .cmd()
        .args(["-p", "/quota", "--output-format", "json"])
        .assert()
        .success();
    let v = &json_lines(&json.get_output().stdout)[0];
    assert_eq!(v["conversation_id"], "");
    assert_eq!(v["num_turns"], 0);
    assert_eq!(v["command"]["name"], "usage");
    let ids: Vec<String> = v["command"]["data"]["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["buckets"].as_array().cloned().unwrap_or_default())
        .map(|b| b["id"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(ids, ["gemini-weekly", "gemini-5h", "3p-weekly", "3p-5h"]);
}

#[test]
fn stream_json_print_run_follows_the_turn_order() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args([
            "-p",
            "reply PONG",
            "--output-format",
            "stream-json",
            "--model",
            "gemini-3.8-flash-high",
        ])
        .assert()
        .success();
    let events = json_lines(&out.get_output().stdout);
    let names: Vec<String> = events
        .iter()
        .map(|e| {
            let ev = e["event"].as_str().unwrap_or("").to_string();
            match ev.as_str() {
                "step_update" => format!(
                    "{}:{}",
                    e["step_update"]["step_type"].as_str().unwrap_or(""),
                    e["step_update"]["state"].as_str().unwrap_or("")
                ),
                _ => ev,
            }
        })
        .collect();
    assert_eq!(
        names,
        [
            "init",
            "user_input:DONE",
            "agent_response:ACTIVE",
            "agent_response:DONE",
            "result"
        ]
    );
    assert_eq!(events[0]["init"]["model"], "gemini-3.8-flash-high");
    assert_eq!(
        events[0]["init"]["tools"].as_array().map(|t| t.len()),
        Some(57)
    );
    assert_eq!(events[0]["init"]["permission_mode"], "request-review");
    snapshot_settings().bind(|| {
        let text: String = String::from_utf8_lossy(&out.get_output().stdout)
            .lines()
            .skip(1)
            .map(|l| format!("{l}\n"))
            .collect();
        insta::assert_snapshot!("stream_json_pong_turn", text);
    });
}

#[test]
fn json_envelope_snapshot() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["-p", "reply PONG", "--output-format", "json"])
        .assert()
        .success();
    snapshot_settings().bind(|| {
        insta::assert_snapshot!(
            "json_pong_envelope",
            String::from_utf8_lossy(&out.get_output().stdout)
        );
    });
}

#[test]
fn no_prompt_and_no_terminal_fails_as_agy_1_3_2_does() {
    // ga-1.3.2-no-tty: the interactive UI cannot open /dev/tty. `setsid` (util-linux)
    // starts fake-agy in a new session without a controlling terminal, whatever
    // terminal the test runner has.
    let sb = Sandbox::new();
    let cmd = sb.std_cmd();
    let bin = cmd.get_program().to_owned();
    let mut detached = std::process::Command::new("setsid");
    detached
        .arg("--wait")
        .arg(bin)
        .envs(cmd.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
        .env_remove(FAKE_AGY_SCRIPT)
        .current_dir(sb.path())
        .stdin(std::process::Stdio::null());
    let out = detached.output().expect("setsid runs (util-linux)");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "CLI error: bubbletea: error opening TTY: bubbletea: could not open TTY: open /dev/tty: no such device or address\n"
    );
    assert!(out.stdout.is_empty());
}
