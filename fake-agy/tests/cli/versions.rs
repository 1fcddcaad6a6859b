//! The version model and the sandbox's settings: what the default fake does by agy
//! version and by `settings.json` (docs/agy-versions.md).

use crate::support::{json_lines, Sandbox};

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
