//! The version model and the sandbox's settings: what the default fake does by agy
//! version and by `settings.json` (docs/agy-versions.md).

use crate::support::{json_lines, Sandbox};
use agy_protocol::env::{FAKE_AGY_SIGNED_OUT, FAKE_AGY_VERSION};
use serde_json::json;

fn init_of(sb: &Sandbox, extra: &[&str], env: &[(&str, &str)]) -> serde_json::Value {
    let mut c = sb.cmd();
    c.args(["-p", "reply PONG", "--output-format", "stream-json"])
        .args(extra);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("runs");
    json_lines(&out.stdout)
        .into_iter()
        .find(|e| e["event"] == "init")
        .unwrap_or_else(|| panic!("no init: {out:?}"))["init"]
        .clone()
}

#[test]
fn permission_mode_follows_the_settings_tool_permission() {
    let sb = Sandbox::new();
    assert_eq!(init_of(&sb, &[], &[])["permission_mode"], "request-review");
    std::fs::create_dir_all(sb.app_dir()).expect("app dir");
    for mode in [
        "strict",
        "proceed-in-sandbox",
        "always-proceed",
        "request-review",
    ] {
        std::fs::write(
            sb.app_dir().join("settings.json"),
            format!(r#"{{"toolPermission":"{mode}"}}"#),
        )
        .expect("settings");
        assert_eq!(init_of(&sb, &[], &[])["permission_mode"], mode);
        assert_eq!(
            init_of(&sb, &["--mode", "accept-edits"], &[])["permission_mode"],
            mode
        );
    }
    std::fs::write(
        sb.app_dir().join("settings.json"),
        r#"{"toolPermission":"strict"}"#,
    )
    .expect("settings");
    assert_eq!(
        init_of(&sb, &["--dangerously-skip-permissions"], &[])["permission_mode"],
        "always-proceed"
    );
}

#[test]
fn signed_out_models_and_every_mode_fail_auth() {
    let sb = Sandbox::new();
    let signed_out = |argv: &[&str], version: &str| {
        sb.cmd()
            .env(FAKE_AGY_SIGNED_OUT, "1")
            .env(FAKE_AGY_VERSION, version)
            .args(argv)
            .output()
            .expect("runs")
    };
    let models = signed_out(&["models"], "1.2.13");
    assert_eq!(models.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&models.stderr),
        "Fetching available models...\nError: Please sign in to view available models. Launch the CLI without arguments to sign in.\n"
    );
    for (argv, version, who) in [
        (
            &["-p", "hi", "--output-format", "json"][..],
            "1.2.13",
            "antigravity",
        ),
        (
            &["-p", "hi", "--output-format", "stream-json"],
            "1.2.13",
            "antigravity",
        ),
        (
            &[
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
            ],
            "1.3.2",
            "agy",
        ),
    ] {
        let out = signed_out(argv, version);
        assert_eq!(out.status.code(), Some(1), "{argv:?}");
        let lines = json_lines(&out.stdout);
        assert_eq!(lines.len(), 1, "a lone result: {lines:?}");
        let env = lines[0].get("result").unwrap_or(&lines[0]);
        assert_eq!(
            (&env["status"], &env["error"], &env["conversation_id"]),
            (
                &json!("ERROR"),
                &json!("authentication failed or timed out"),
                &json!("")
            )
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("Error: authentication required. Run '{who}' to log in, then retry.\nerror: authentication failed or timed out\n"),
            "{argv:?}"
        );
    }
    let version = signed_out(&["--version"], "1.2.13");
    assert_eq!(String::from_utf8_lossy(&version.stdout), "1.2.13\n");
}

#[test]
fn a_strict_settings_denial_of_a_command_is_a_tool_error() {
    // pl-1.2.13-strict-denied: under `toolPermission: strict` the denied command's tool
    // step is ERROR with a TOOL_ERROR, where the default permission gives DONE (1.2.8+).
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.app_dir()).expect("app dir");
    let deny = |sb: &Sandbox| {
        let out = sb
            .scripted("[[invocation]]\nwhen = { mode = \"stream_json\" }\nsteps = [{ deny = { tool = \"run_command\", parameters = { CommandLine = \"Get-ChildItem\" } } }]\n")
            .env(FAKE_AGY_VERSION, "1.2.13")
            .args(["-p", "list files", "--output-format", "stream-json"])
            .output()
            .expect("runs");
        json_lines(&out.stdout)
            .into_iter()
            .rev()
            .find(|e| e["step_update"]["step_type"] == "tool")
            .expect("tool step")["step_update"]
            .clone()
    };
    assert_eq!(deny(&sb)["state"], "DONE");
    std::fs::write(
        sb.app_dir().join("settings.json"),
        r#"{"toolPermission":"strict"}"#,
    )
    .expect("settings");
    let step = deny(&sb);
    assert_eq!(step["state"], "ERROR");
    assert_eq!(
        step["tool_info"]["error"]["message"],
        "permission check failed for command \"Get-ChildItem\": user denied permission to run command: Get-ChildItem"
    );
}

/// Runs the default fake as `version` with `argv` (and `env`).
fn run_as(
    sb: &Sandbox,
    version: &str,
    argv: &[&str],
    env: &[(&str, &str)],
) -> std::process::Output {
    let mut c = sb.cmd();
    c.env("FAKE_AGY_VERSION", version).args(argv);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("runs")
}

#[test]
fn agy_1_0_16_lists_labels_and_prints_no_cache_read_tokens() {
    let sb = Sandbox::new();
    let models = run_as(&sb, "1.0.16", &["models"], &[]);
    let listed = String::from_utf8_lossy(&models.stdout).to_string();
    // ua-1.0.16-models: eight labels, no ids.
    assert_eq!(listed.lines().count(), 8, "{listed}");
    assert_eq!(listed.lines().next(), Some("Gemini 3.5 Flash (Medium)"));
    assert!(!listed.contains('\t'));
    let turn = run_as(&sb, "1.0.16", &["-p", "hi", "--output-format", "json"], &[]);
    let env = &json_lines(&turn.stdout)[0];
    assert!(env["usage"].get("cache_read_tokens").is_none(), "{env}");
    let later = run_as(&sb, "1.1.18", &["-p", "hi", "--output-format", "json"], &[]);
    assert!(json_lines(&later.stdout)[0]["usage"]
        .get("cache_read_tokens")
        .is_some());
}

#[test]
fn a_subcommands_help_and_an_unknown_subcommands_help_exit_0() {
    let sb = Sandbox::new();
    let models = run_as(&sb, "1.0.16", &["models", "--help"], &[]);
    assert_eq!(models.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&models.stderr).starts_with("Usage: agy models [flags]\n"));
    let auth = run_as(&sb, "1.0.16", &["auth", "--help"], &[]);
    assert_eq!(auth.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&auth.stderr),
        fake_agy::root_usage(agy_protocol::AgyVersion::new(1, 0, 16))
    );
}

#[test]
fn a_used_up_quota_fails_every_default_turn() {
    let sb = Sandbox::new();
    let out = run_as(
        &sb,
        "1.1.18",
        &["-p", "hi", "--output-format", "json"],
        &[("FAKE_AGY_QUOTA_EXHAUSTED", "1")],
    );
    assert_eq!(out.status.code(), Some(1));
    let env = &json_lines(&out.stdout)[0];
    assert_eq!(env["status"], "ERROR");
    assert!(env["error"]
        .as_str()
        .is_some_and(|e| e.starts_with("Individual quota reached.")));
    assert_eq!(env["num_turns"], 1);
    let bad = run_as(
        &sb,
        "1.1.18",
        &["-p", "hi"],
        &[("FAKE_AGY_QUOTA_EXHAUSTED", "maybe")],
    );
    assert_ne!(bad.status.code(), Some(0));
}

#[test]
fn pre_turn_answers_of_1_1_18() {
    let sb = Sandbox::new();
    // gb-1.1.18-mode-bogus: a warning, then the turn.
    let mode = run_as(&sb, "1.1.18", &["--mode", "bogus", "-p", "hi"], &[]);
    assert_eq!(mode.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&mode.stderr),
        "warning: unrecognized --mode value \"bogus\" (valid: accept-edits, plan)\n"
    );
    assert!(!mode.stdout.is_empty());
    // gb-1.1.18-effort-bogus: `Error: ` before 1.2.3, `error: ` after.
    let effort = run_as(&sb, "1.1.18", &["--effort", "bogus", "-p", "hi"], &[]);
    assert_eq!(effort.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&effort.stderr),
        "Error: invalid model selection (--model \"\" --effort \"bogus\"): invalid --effort \"bogus\" (valid: low, medium, high)\n"
    );
    let later = run_as(&sb, "1.2.6", &["--effort", "bogus", "-p", "hi"], &[]);
    assert!(String::from_utf8_lossy(&later.stderr).starts_with("error: invalid model selection"));
    // gb-1.1.18-credits-error.
    let credits = run_as(
        &sb,
        "1.1.18",
        &["-p", "/credits", "--output-format", "json"],
        &[],
    );
    assert_eq!(credits.status.code(), Some(1));
    assert_eq!(
        json_lines(&credits.stdout)[0]["error"],
        "/credits failed: retrieving credits: no credits info found"
    );
}

#[test]
fn the_first_turn_of_1_1_9_shows_the_agent_step_and_the_checkpoint() {
    let sb = Sandbox::new();
    let steps = |version: &str, extra: &[&str]| -> Vec<String> {
        let mut argv = vec!["-p", "hi", "--output-format", "stream-json"];
        argv.extend_from_slice(extra);
        json_lines(&run_as(&sb, version, &argv, &[]).stdout)
            .iter()
            .filter_map(|e| e["step_update"]["step_type"].as_str().map(String::from))
            .collect()
    };
    // jd-1.1.9-unknown-conversation.
    assert_eq!(
        steps("1.1.9", &[]),
        [
            "user_input",
            "unknown",
            "agent_response",
            "agent_response",
            "checkpoint"
        ]
    );
    // jd-1.1.9-review-stream: a custom agent has no `unknown` step.
    assert_eq!(
        steps("1.1.9", &["--agent", "reviewer"]),
        [
            "user_input",
            "agent_response",
            "agent_response",
            "checkpoint"
        ]
    );
    // gb-1.1.18-run-command-turn: the checkpoint right after user_input.
    assert_eq!(steps("1.1.18", &[])[..2], ["user_input", "checkpoint"]);
    assert!(!steps("1.2.6", &[])
        .iter()
        .any(|t| t == "checkpoint" || t == "unknown"));
}
