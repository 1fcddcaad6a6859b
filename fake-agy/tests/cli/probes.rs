//! Probes (`--version`, subcommands, slash commands) answer as the modelled agy whatever
//! the script's turn rules say, and rule counts skip them (docs/script-format.md,
//! "Turns and probes").

use crate::support::{workspace, Sandbox};
use agy_protocol::env::{FAKE_AGY_SCRIPT, FAKE_AGY_SCRIPT_TABLE, FAKE_AGY_TIME_SCALE};
use agy_protocol::script::parse_script_file;
use agy_protocol::AgyVersion;
use std::path::PathBuf;

/// Every shipped agy script: the behaviour library and each scenario's `[agy]` table.
fn shipped_scripts() -> Vec<(PathBuf, Option<&'static str>)> {
    let mut out = vec![];
    let library = workspace().join("scenarios/agy-scripts");
    for e in std::fs::read_dir(&library).expect("library").flatten() {
        out.push((e.path(), None));
    }
    let mut dirs = vec![workspace().join("scenarios")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("scenarios").flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "toml") {
                let text = std::fs::read_to_string(&p).expect("scenario");
                if text
                    .lines()
                    .any(|l| l.starts_with("[agy") || l.starts_with("[[agy."))
                {
                    out.push((p, Some("agy")));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_shipped_script_answers_version_with_its_modelled_version() {
    let scripts = shipped_scripts();
    assert!(scripts.len() > 30, "found only {}", scripts.len());
    for (path, table) in scripts {
        let script = parse_script_file(&path, table).unwrap_or_else(|e| panic!("{e}"));
        let modelled = script.script.agy.unwrap_or(AgyVersion::DEFAULT);
        let sb = Sandbox::new();
        for _ in 0..2 {
            let mut c = sb.cmd();
            c.env(FAKE_AGY_SCRIPT, &path).arg("--version");
            if let Some(t) = table {
                c.env(FAKE_AGY_SCRIPT_TABLE, t);
            }
            let out = c.output().expect("runs");
            assert_eq!(
                (
                    out.status.code(),
                    String::from_utf8_lossy(&out.stdout).to_string()
                ),
                (Some(0), format!("{modelled}\n")),
                "{}: {out:?}",
                path.display()
            );
        }
    }
}

#[test]
fn a_one_rule_script_leaves_version_alone() {
    let sb = Sandbox::new();
    sb.scripted("[[invocation]]\nsteps = [{ stdout = \"the turn's answer\" }, { exit = 0 }]\n")
        .arg("--version")
        .assert()
        .success()
        .stdout(format!("{}\n", AgyVersion::DEFAULT));
}

#[test]
fn the_third_turn_is_counted_without_probes() {
    let sb = Sandbox::new();
    let script = workspace().join("scenarios/agy-scripts/third-call-fails.toml");
    let turn = |sb: &Sandbox| {
        let out = sb
            .cmd()
            .env(FAKE_AGY_SCRIPT, &script)
            .env(FAKE_AGY_TIME_SCALE, "0.001")
            .args(["-p", "hello", "--output-format", "json"])
            .output()
            .expect("runs");
        let env: serde_json::Value = serde_json::from_slice(&out.stdout).expect("envelope");
        env["status"].as_str().unwrap_or("").to_string()
    };
    let probe = |sb: &Sandbox, argv: &[&str]| {
        let out = sb
            .cmd()
            .env(FAKE_AGY_SCRIPT, &script)
            .args(argv)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{argv:?}: {out:?}");
    };
    probe(&sb, &["--version"]);
    assert_eq!(turn(&sb), "SUCCESS");
    probe(&sb, &["models"]);
    probe(&sb, &["-p", "/usage", "--output-format", "json"]);
    assert_eq!(turn(&sb), "SUCCESS");
    probe(&sb, &["update"]);
    assert_eq!(turn(&sb), "ERROR");
}

#[test]
fn a_rule_in_command_mode_answers_version() {
    let sb = Sandbox::new();
    sb.scripted(
        "[[invocation]]\nwhen = { mode = \"command\" }\nsteps = [{ stdout = \"agy 9.9.9\" }, { exit = 0 }]\n",
    )
    .arg("--version")
    .assert()
    .success()
    .stdout("agy 9.9.9\n");
}

#[test]
fn start_up_subcommands_answer_and_exit_zero() {
    let sb = Sandbox::new();
    for (argv, needle) in [
        (&["update"][..], "You are already on the latest version."),
        (&["changelog"], "Antigravity CLI 1.2.6"),
        (&["agents"], "No custom agents found."),
        (&["plugin", "list"], "No plugins installed."),
        (&["mcp", "list"], "NAME   TYPE   STATUS   COMMAND/URL"),
    ] {
        let out = sb.cmd().args(argv).output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{argv:?}: {out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(needle), "{argv:?}: {text}");
    }
    let out = sb
        .cmd()
        .args(["--output-format=json", "agents"])
        .output()
        .expect("runs");
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).expect("envelope");
    assert_eq!(env["command"]["name"], "agents");
}
