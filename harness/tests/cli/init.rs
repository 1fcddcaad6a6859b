//! `agy-harness init`: the starter files load, the Python and Node skeletons answer the
//! driver protocol, and nothing is overwritten without `--force`.

use crate::support::*;
use agy_protocol::env::AGY_HARNESS_FAKE_AGY;
use assert_cmd::Command;
use predicates::prelude::*;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

fn init(t: &TestDir, args: &[&str]) -> assert_cmd::assert::Assert {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(t.path())
        .args(["--color", "never", "init"])
        .args(args);
    cmd.assert()
}

/// Sends `requests` to the driver started by `argv` in `dir`; its stdout lines.
fn talk(dir: &Path, argv: &[&str], requests: &[&str]) -> Vec<serde_json::Value> {
    let mut child = std::process::Command::new(argv[0])
        .args(&argv[1..])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the driver");
    let mut stdin = child.stdin.take().expect("stdin");
    for r in requests {
        writeln!(stdin, "{r}").expect("write a request");
    }
    drop(stdin);
    let out = wait_exit(child, Duration::from_secs(30));
    assert!(
        out.status.success(),
        "driver: {}\n{}",
        out.status,
        text(&out.stderr)
    );
    text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

const HELLO: &str = r#"{"v":1,"id":1,"op":"hello"}"#;
const SHUTDOWN: &str = r#"{"v":1,"id":9,"op":"shutdown"}"#;

#[test]
fn the_python_skeleton_loads_and_answers_hello() {
    let t = TestDir::new();
    init(&t, &["--profile", "session", "repo"])
        .success()
        .stdout(predicate::str::contains("wrote repo/agy-adapter.toml"));
    let repo = t.path().join("repo");
    let mut check = t.harness();
    check.args([
        "--color",
        "never",
        "check",
        "--adapter",
        "repo/agy-adapter.toml",
    ]);
    let out = run(check, Duration::from_secs(60));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("adapter config `repo/agy-adapter.toml` is valid"));
    let replies = talk(
        &repo,
        &["python3", "agy-driver/driver.py"],
        &[
            HELLO,
            r#"{"v":1,"id":2,"op":"turn","session":"s","text":"hi"}"#,
            SHUTDOWN,
        ],
    );
    assert_eq!(replies[0]["id"], 1);
    assert_eq!(
        replies[0]["result"]["profiles"],
        serde_json::json!(["session"])
    );
    assert_eq!(replies[1]["ok"], false);
    assert_eq!(replies[1]["error"]["name"], "NotImplemented");
    assert!(replies[1]["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .contains("op_turn"));
    assert_eq!(replies[2]["id"], 9);
    assert_eq!(replies.len(), 3);
}

#[test]
fn the_python_skeleton_runs_under_the_harness_and_fails_as_not_implemented() {
    let t = TestDir::new();
    init(&t, &[]).success();
    let mut cmd = t.harness();
    cmd.env_remove(AGY_HARNESS_FAKE_AGY).args([
        "--color",
        "never",
        "run",
        "--adapter",
        "agy-adapter.toml",
        "--name",
        "oneshot/success-delivers-one-decodable-image",
    ]);
    let out = run(cmd, Duration::from_secs(120));
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    assert!(stdout.contains("NotImplemented"), "{stdout}");
}

#[test]
fn the_node_skeleton_answers_hello() {
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: `node` is not on PATH");
        return;
    }
    let t = TestDir::new();
    init(&t, &["--language", "node", "--profile", "acp"]).success();
    let replies = talk(
        t.path(),
        &["node", "agy-driver/driver.mjs"],
        &[
            HELLO,
            r#"{"v":1,"id":2,"op":"acp_new","session":"s"}"#,
            SHUTDOWN,
        ],
    );
    assert_eq!(replies[0]["result"]["profiles"], serde_json::json!(["acp"]));
    assert_eq!(replies[1]["error"]["name"], "NotImplemented");
    assert!(replies[1]["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .contains("opAcpNew"));
    assert_eq!(replies.len(), 3);
}

#[test]
fn existing_files_are_kept_without_force() {
    let t = TestDir::new();
    t.write("agy-adapter.toml", "# mine\n");
    init(&t, &["--language", "rust"])
        .code(2)
        .stderr(predicate::str::contains("agy-adapter.toml` exists already"))
        .stderr(predicate::str::contains("--force"));
    assert_eq!(
        std::fs::read_to_string(t.path().join("agy-adapter.toml")).expect("read"),
        "# mine\n"
    );
    assert!(
        !t.path().join("agy-driver").exists(),
        "nothing is written when one file exists"
    );
    init(&t, &["--language", "rust", "--force"]).success();
    let config = std::fs::read_to_string(t.path().join("agy-adapter.toml")).expect("read");
    assert!(
        config.contains("agy-driver/target/debug/agy-driver"),
        "{config}"
    );
    assert!(t.path().join("agy-driver/src/main.rs").is_file());
    assert!(t.path().join("agy-driver/Cargo.toml").is_file());
}

#[test]
fn init_help_lists_languages_and_profiles() {
    let t = TestDir::new();
    let out = init(&t, &["--help"]).success().get_output().stdout.clone();
    insta_settings(t.path()).bind(|| insta::assert_snapshot!("init-help", text(&out)));
}

/// The reference adapter's binary, beside agy-harness.
fn reference_adapter() -> std::path::PathBuf {
    Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("agy-reference-adapter")
}

#[test]
fn an_mcp_config_is_written_alone_and_check_lists_the_servers_tools() {
    let t = TestDir::new();
    init(&t, &["--profile", "mcp", "repo"])
        .success()
        .stdout(predicate::str::contains("wrote repo/agy-adapter.toml"));
    assert!(
        !t.path().join("repo/agy-driver").exists(),
        "a driver was written"
    );
    let config = t.path().join("repo/agy-adapter.toml");
    let server = format!("[\"{}\", \"mcp\"]", reference_adapter().display());
    let written = std::fs::read_to_string(&config).expect("config");
    let pointed = written.replace("[\"your-server\", \"--stdio\"]", &server);
    assert_ne!(
        pointed, written,
        "the starter names a server command to replace"
    );
    std::fs::write(&config, &pointed).expect("write");
    let check = |t: &TestDir| {
        let mut cmd = t.harness();
        cmd.args([
            "--color",
            "never",
            "check",
            "--adapter",
            "repo/agy-adapter.toml",
        ]);
        run(cmd, Duration::from_secs(60))
    };
    // The starter names a tool the reference server does not offer.
    let out = check(&t);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "`[mcp] tool` names `ask_agy`, which the server does not offer; it offers `agy`"
        ),
        "{err}"
    );
    std::fs::write(
        &config,
        pointed.replace("tool             = \"ask_agy\"", "tool = \"agy\""),
    )
    .expect("write");
    let out = check(&t);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Each tool with its arguments, as `[mcp]`'s `*_arg` keys name them.
    assert!(
        text(&out.stdout).contains(
            "MCP server offers:\n  agy(prompt: string, model?: string, conversation?: string, timeout_s?: number)"
        ),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_driverless_config_is_checked_by_starting_the_agent_and_listing_its_capabilities() {
    let t = TestDir::new();
    init(&t, &["--profile", "acp-agent", "repo"])
        .success()
        .stdout(predicate::str::contains("wrote repo/agy-adapter.toml"))
        // An ACP agent has no tool to name (the words of an MCP server's starter).
        .stdout(predicate::str::contains(
            "put your agent's command line in repo/agy-adapter.toml",
        ))
        .stdout(predicate::str::contains("tool").not());
    let repo = t.path().join("repo");
    assert!(
        !repo.join("agy-driver").exists(),
        "a driverless profile has no driver"
    );
    let reference = Path::new(env!("CARGO_BIN_EXE_agy-harness"))
        .with_file_name("agy-reference-adapter")
        .display()
        .to_string();
    let config = repo.join("agy-adapter.toml");
    let written = std::fs::read_to_string(&config).expect("config");
    assert!(
        written.contains("# env    = { YOUR_AGY_VARIABLE = \"agy\" }"),
        "an agent that finds agy by a variable of its own is shown how: {written}"
    );
    let command = format!("command  = [{:?}, \"acp-agent\"]", reference);
    let pointed = written.replace(r#"command  = ["your-agent", "--stdio"]"#, &command);
    assert_ne!(
        pointed, written,
        "the starter names an agent command to replace"
    );
    // The example, uncommented, is a config `check` takes.
    let pointed = pointed.replace("# env    = {", "env    = {");
    std::fs::write(&config, pointed).expect("write config");
    let mut check = t.harness();
    check.args([
        "--color",
        "never",
        "check",
        "--adapter",
        "repo/agy-adapter.toml",
    ]);
    let out = run(check, Duration::from_secs(60));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("answers initialize"), "{stdout}");
    assert!(stdout.contains("\"loadSession\": true"), "{stdout}");
}
