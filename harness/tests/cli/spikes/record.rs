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

/// A spike with one probe of one run, in its own folder.
fn one_probe_spike() -> tempfile::TempDir {
    let spikes = tempfile::tempdir().expect("spikes");
    std::fs::write(
        spikes.path().join("S1.toml"),
        "[spike]\nid = \"S1\"\ntitle = \"t\"\nquestion = \"q\"\n\n[[probe]]\nname = \"ok\"\nargv = [\"-p\", \"{prompt}\", \"--output-format\", \"json\"]\nprompt = \"reply ok\"\n\n[[fact]]\nid = \"S1.success\"\nclaim = \"ok\"\nprobe = \"ok\"\nmeasure = \"status\"\n\n[[fact.recorded]]\nagy = \"1.2.6\"\ndate = \"2026-09-20\"\nsource = \"test\"\nequals = \"SUCCESS\"\n",
    )
    .expect("spike");
    spikes
}

/// `spikes --record DIR` (and `extra`) on `spikes`: exit code and stderr.
fn record_into(spikes: &std::path::Path, dir: &std::path::Path, extra: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("agy-harness")
        .expect("bin")
        .args(["spikes", "--color", "never", "--time-scale"])
        .arg(TIME_SCALE.to_string())
        .arg("--spikes")
        .arg(spikes)
        .arg("--fake-agy")
        .arg(fake_agy())
        .arg("--record")
        .arg(dir)
        .args(extra)
        .output()
        .expect("spikes");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), stderr)
}

#[test]
fn an_earlier_recording_is_kept_unless_forced() {
    // A live recording costs quota: a second `--record` into the same folder must not
    // replace it silently, and must refuse before a probe runs.
    let spikes = one_probe_spike();
    let dir = tempfile::tempdir().expect("record");
    let (code, stderr) = record_into(spikes.path(), dir.path(), &[]);
    assert_eq!(code, 0, "{stderr}");
    let file = dir.path().join("S1-ok-1.jsonl");
    std::fs::write(&file, "earlier recording\n").expect("edit");
    let (code, stderr) = record_into(spikes.path(), dir.path(), &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(&file.display().to_string()), "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        "earlier recording\n"
    );
    let (code, stderr) = record_into(spikes.path(), dir.path(), &["--force"]);
    assert_eq!(code, 0, "{stderr}");
    assert_ne!(
        std::fs::read_to_string(&file).expect("read"),
        "earlier recording\n"
    );
}

#[test]
fn a_recording_that_cannot_be_written_is_a_setup_failure() {
    // A full disk (here a file size limit, `ulimit -f`, with SIGXFSZ ignored so the
    // write fails instead of killing) leaves the recording missing: exit 3, never 0
    // with a warning.
    let spikes = one_probe_spike();
    let dir = tempfile::tempdir().expect("record");
    let script = dir.path().join("big.toml");
    std::fs::write(
        &script,
        format!(
            "[[invocation]]\ntimes = \"always\"\nsteps = [\n  {{ envelope = {{ status = \"SUCCESS\", response = \"{}\" }} }},\n  {{ exit = 0 }},\n]\n",
            "x".repeat(1 << 20)
        ),
    )
    .expect("script");
    let record = dir.path().join("rec");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 256; exec \"$@\"")
        .arg("sh")
        .arg(assert_cmd::cargo::cargo_bin("agy-harness"))
        .args(["spikes", "--color", "never", "--time-scale"])
        .arg(TIME_SCALE.to_string())
        .arg("--spikes")
        .arg(spikes.path())
        .arg("--fake-agy")
        .arg(fake_agy())
        .arg("--fake-env")
        .arg(format!("FAKE_AGY_SCRIPT={}", script.display()))
        .arg("--record")
        .arg(&record)
        .output()
        .expect("spikes");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("S1-ok-1.jsonl"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(&record)
        .expect("list")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        left.is_empty(),
        "no cut trace or part file is left: {left:?}"
    );
}
