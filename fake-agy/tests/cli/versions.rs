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
