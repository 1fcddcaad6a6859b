//! `--record DIR`: each probe run becomes a trace that fake-agy can replay, redacted at
//! record time.

use super::support::{fake_agy, TIME_SCALE};
use agy_protocol::trace::Trace;
use assert_cmd::Command;

#[test]
fn recorded_traces_parse_and_carry_no_home_path_user_name_or_email() {
    let home = tempfile::tempdir().expect("home");
    let home_path = home.path().to_str().expect("utf-8").to_string();
    // Runs' scratch dirs live under TMPDIR; put TMPDIR inside HOME so the workdir path
    // the fake echoes (init.cwd) contains the home path.
    let tmp = home.path().join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let spikes = tempfile::tempdir().expect("spikes");
    std::fs::write(
        spikes.path().join("S1.toml"),
        r#"
[spike]
id = "S1"
title = "t"
question = "q"

[[probe]]
name = "ok"
argv = ["-p", "{prompt}", "--output-format", "stream-json"]
prompt = "reply with the single word ok; signed zebulon-the-tester <zeb@example.org>"

[[fact]]
id = "S1.success"
claim = "ok"
probe = "ok"
measure = "status"

[[fact.recorded]]
agy = "1.2.6"
date = "2026-09-20"
source = "test"
equals = "SUCCESS"
"#,
    )
    .expect("spike");
    let out_dir = home.path().join("traces");
    Command::cargo_bin("agy-harness")
        .expect("bin")
        .args([
            "spikes",
            "--color",
            "never",
            "--time-scale",
            &TIME_SCALE.to_string(),
        ])
        .arg("--spikes")
        .arg(spikes.path())
        .arg("--fake-agy")
        .arg(fake_agy())
        .arg("--record")
        .arg(&out_dir)
        .env("HOME", &home_path)
        .env("TMPDIR", &tmp)
        .env("USER", "zebulon-the-tester")
        .assert()
        .code(0);
    let file = out_dir.join("S1-ok-1.jsonl");
    let text = std::fs::read_to_string(&file).expect("trace written");
    let trace = Trace::parse(&file.display().to_string(), &text).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(trace.header.agy_version, "1.2.6");
    assert!(trace.invocations[0]
        .start
        .argv
        .iter()
        .any(|a| a == "stream-json"));
    assert!(!text.contains(&home_path), "home path leaked:\n{text}");
    assert!(
        !text.contains("zebulon-the-tester"),
        "user name leaked:\n{text}"
    );
    assert!(!text.contains("zeb@example.org"), "e-mail leaked:\n{text}");
    assert!(
        text.contains("[HOME]") && text.contains("[EMAIL]"),
        "{text}"
    );
    assert!(trace.invocations[0].exit().and_then(|e| e.code) == Some(0));
    assert!(!trace.invocations[0].stdout().is_empty());
}
