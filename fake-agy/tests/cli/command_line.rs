//! agy's flag parsing at the process boundary: exit codes and messages.

use crate::support::{snapshot_settings, Sandbox};

#[test]
fn unknown_flag_exits_2_with_agys_message_and_usage() {
    let sb = Sandbox::new();
    let out = sb.cmd().args(["--yolo", "-p", "x"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.starts_with("flags provided but not defined: -yolo\nUsage of agy:\n"),
        "{stderr}"
    );
    snapshot_settings().bind(|| insta::assert_snapshot!("unknown_flag_stderr", stderr));
}

#[test]
fn help_prints_usage_and_exits_0() {
    let sb = Sandbox::new();
    let out = sb.cmd().arg("-h").assert().code(0);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(
        stderr,
        fake_agy::root_usage(agy_protocol::AgyVersion::DEFAULT)
    );
    snapshot_settings().bind(|| insta::assert_snapshot!("help_stderr", stderr));
}

#[test]
fn p_without_value_needs_an_argument() {
    let sb = Sandbox::new();
    let out = sb.cmd().arg("-p").assert().code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr)
        .starts_with("flag needs an argument: -p\n"));
}

#[test]
fn greedy_p_leaves_a_positional_and_exits_2() {
    // Grimoire PR #71: `-p --input-format stream-json` takes `--input-format` as the
    // prompt; the leftover `stream-json` makes the run exit 2.
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["-p", "--input-format", "stream-json"])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("stream-json"));
    let rec = &sb.journal()[0];
    assert_eq!(rec.exit.as_ref().and_then(|e| e.code), Some(2));
}

#[test]
fn flag_after_models_subcommand_is_undefined() {
    // BB (1.1.19): `agy models --output-format json` → exit 2.
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["models", "--output-format", "json"])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr)
        .starts_with("flags provided but not defined: -output-format"));
}

#[test]
fn input_format_requires_stream_json_output() {
    let sb = Sandbox::new();
    sb.cmd()
        .args(["--input-format", "stream-json"])
        .assert()
        .code(2);
    sb.cmd()
        .args(["-p", "x", "--output-format", "yaml"])
        .assert()
        .code(2);
}

#[test]
fn equals_and_single_dash_forms_are_accepted() {
    let sb = Sandbox::new();
    sb.cmd()
        .args([
            "-print=reply ok",
            "-output-format=json",
            "--print-timeout=5m",
            "--add-dir",
            "/tmp",
            "--add-dir=/var",
        ])
        .assert()
        .success();
}

#[test]
fn interactive_ui_is_not_simulated() {
    // With a terminal agy would start its UI, which the fake does not simulate; without
    // one it fails as agy does (print_mode::no_prompt_and_no_terminal_…). The child
    // shares this process's controlling terminal, if any.
    let has_terminal = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .is_ok();
    let sb = Sandbox::new();
    let out = sb.cmd().output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if has_terminal {
        assert_eq!(out.status.code(), Some(fake_agy::exit_code::BROKEN));
        assert!(stderr.starts_with("fake-agy: "), "{stderr}");
    } else {
        assert_eq!(out.status.code(), Some(1));
        assert!(stderr.starts_with("CLI error: bubbletea"), "{stderr}");
    }
}
