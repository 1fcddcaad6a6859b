//! fake-agy as a library in an adapter's own tests ([`fake_agy::mock::MockAgy`]).
//!
//! This file is written to be copied into an adapter crate's `tests/`: the `adapter`
//! module below stands for the adapter's own code (it knows nothing of fake-agy), and
//! each test lays a sandbox, runs the adapter against it and asserts on the journal.
//! In an adapter crate, add `fake-agy` as a dev-dependency and drop `.fake_agy(…)`:
//! the mock then runs `$FAKE_AGY_BIN`, or `fake-agy` on `PATH` (`cargo install fake-agy`).

use fake_agy::mock::script::{DefaultSpec, Flag, InvocationRule, Script, Step};
use fake_agy::mock::{MockAgy, MockAgyBuilder};
use nix::sys::signal::Signal;
use std::time::Duration;

/// The code under test: a tiny agy adapter.
mod adapter {
    use std::io::{BufRead, BufReader, Write};
    use std::path::Path;
    use std::process::{Child, Command, Stdio};

    /// One print run: `agy -p PROMPT --output-format json`; the envelope's `response`.
    pub fn ask(agy: &Path, prompt: &str, model: Option<&str>) -> Result<String, String> {
        let mut cmd = Command::new(agy);
        cmd.args(["-p", prompt, "--output-format", "json"]);
        if let Some(m) = model {
            cmd.args(["--model", m]);
        }
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .map_err(|e| e.to_string())?;
        let envelope: serde_json::Value =
            serde_json::from_slice(&out.stdout).map_err(|e| format!("not an envelope: {e}"))?;
        match envelope["status"].as_str() {
            Some("SUCCESS") => Ok(envelope["response"].as_str().unwrap_or_default().into()),
            other => Err(format!("agy status {other:?}: {}", envelope["error"])),
        }
    }

    /// A persistent stream-json session: one process, one stdin line per turn.
    pub struct Session {
        pub child: Child,
        pub lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
    }

    impl Session {
        pub fn open(agy: &Path) -> std::io::Result<Session> {
            let mut child = Command::new(agy)
                .args([
                    "--input-format",
                    "stream-json",
                    "--output-format",
                    "stream-json",
                ])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()?;
            let stdout = child.stdout.take().ok_or(std::io::ErrorKind::BrokenPipe)?;
            Ok(Session {
                child,
                lines: BufReader::new(stdout).lines(),
            })
        }

        /// Sends one turn and returns its result's `response`.
        pub fn turn(&mut self, text: &str) -> Result<String, String> {
            let line =
                serde_json::json!({"event": "user", "message": {"role": "user", "content": text}});
            let stdin = self.child.stdin.as_mut().ok_or("stdin closed")?;
            writeln!(stdin, "{line}").map_err(|e| e.to_string())?;
            for line in self.lines.by_ref() {
                let event: serde_json::Value =
                    serde_json::from_str(&line.map_err(|e| e.to_string())?)
                        .map_err(|e| e.to_string())?;
                if event["event"] == "result" {
                    return Ok(event["result"]["response"]
                        .as_str()
                        .unwrap_or_default()
                        .into());
                }
            }
            Err("agy exited before the result".into())
        }

        /// Ends the session: stdin closed, then wait.
        pub fn close(mut self) -> std::io::Result<std::process::ExitStatus> {
            drop(self.child.stdin.take());
            self.child.wait()
        }
    }
}

/// The builder with this workspace's fake-agy; an adapter crate uses `MockAgy::builder()`.
fn mock() -> MockAgyBuilder {
    MockAgy::builder().fake_agy(env!("CARGO_BIN_EXE_fake-agy"))
}

#[test]
fn a_print_run_gets_the_scripted_answer_and_its_argv_is_journalled() {
    let agy = mock()
        .script_toml(
            r#"
            [[invocation]]
            when  = { prompt_contains = "hexagon" }
            steps = [{ default = { response = "a purple hexagon" } }]
            "#,
        )
        .start()
        .expect("mock");
    let answer = adapter::ask(&agy.agy(), "draw a hexagon", Some("gemini-3.8-flash-low"));
    assert_eq!(answer.as_deref(), Ok("a purple hexagon"));
    let calls = agy.invocations().expect("journal");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].prompt(), Some("draw a hexagon"));
    assert!(calls[0].has_arg("--output-format json"));
    assert_eq!(calls[0].flag_value("--model"), Some("gemini-3.8-flash-low"));
    assert_eq!(calls[0].exit_code(), Some(0));
    // The sandbox's HOME, never the user's.
    let home = calls[0].record().env.get("HOME").cloned();
    assert_eq!(home, Some(agy.home().display().to_string()));
}

#[test]
fn a_typed_script_fails_the_second_run() {
    let answer = |response: &str, status: Option<agy_protocol::Status>| InvocationRule {
        steps: vec![Step::Default(Flag(DefaultSpec {
            response: Some(response.into()),
            status,
            ..DefaultSpec::default()
        }))],
        ..InvocationRule::default()
    };
    let script = Script {
        invocations: vec![
            answer("one", None),
            answer("", Some(agy_protocol::Status::Error)),
        ],
        ..Script::default()
    };
    let agy = mock().script(script).start().expect("mock");
    assert_eq!(
        adapter::ask(&agy.agy(), "first", None).as_deref(),
        Ok("one")
    );
    let second = adapter::ask(&agy.agy(), "second", None);
    assert!(
        second.is_err_and(|e| e.contains("ERROR")),
        "the second run must fail"
    );
    let failed = agy
        .invocations_where(|i| i.prompt() == Some("second"))
        .expect("journal");
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].exit_code(), Some(1));
}

#[test]
fn a_session_keeps_one_process_and_its_stdin_lines_are_journalled() {
    let agy = mock()
        .script_toml(
            r#"
            [[turn]]
            when  = { content_contains = "first" }
            steps = [{ default = { response = "answer one" } }]

            [[turn]]
            when  = { content_contains = "second" }
            steps = [{ default = { response = "answer two" } }]
            "#,
        )
        .start()
        .expect("mock");
    let mut session = adapter::Session::open(&agy.agy()).expect("spawn");
    let pid = session.child.id();
    assert_eq!(session.turn("first question").as_deref(), Ok("answer one"));
    assert_eq!(session.turn("second question").as_deref(), Ok("answer two"));
    assert!(session.close().expect("wait").success());
    let calls = agy.invocations().expect("journal");
    assert_eq!(calls.len(), 1, "both turns on one process");
    assert_eq!(calls[0].pid(), pid);
    assert_eq!(
        calls[0].user_messages(),
        ["first question", "second question"]
    );
    assert!(calls[0].stdin_closed());
}

#[test]
fn a_signal_the_adapter_sends_is_journalled() {
    let agy = mock()
        .script_toml(
            r#"
            [[turn]]
            steps = [{ default = { response = "answer one" } }, { hang = true }]
            "#,
        )
        .start()
        .expect("mock");
    let mut session = adapter::Session::open(&agy.agy()).expect("spawn");
    assert_eq!(session.turn("hello").as_deref(), Ok("answer one"));
    let adapter::Session { child, .. } = session;
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, Signal::SIGTERM).expect("SIGTERM");
    let status = wait_with_timeout(child, Duration::from_secs(20));
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(Signal::SIGTERM as i32));
    let calls = agy.invocations().expect("journal");
    assert_eq!(calls[0].signals(), ["SIGTERM"]);
}

#[test]
fn a_bad_script_is_refused_with_its_location() {
    let err = mock()
        .script_toml("[[invocation]]\nsteps = [{ sleeep = \"1s\" }]\n")
        .start()
        .expect_err("refused");
    assert!(err.to_string().contains("script.toml:2:"), "{err}");
}

/// agy 1.3.2's built-in calibration with one more model, in `dir` (in an adapter crate:
/// the file `agy-harness calibrate … --out agy.toml` wrote from your own agy).
fn calibration_with_ultra(
    dir: &std::path::Path,
    edit: impl Fn(String) -> String,
) -> std::path::PathBuf {
    let built_in = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../calibrations/agy-1.3.2.toml"
    );
    let text = std::fs::read_to_string(built_in).expect("built-in").replacen(
        "[[models.model]]",
        "[[models.model]]\nid = \"gemini-9-ultra-high\"\nlabel = \"Gemini 9 Ultra (High)\"\n\n[[models.model]]",
        1,
    );
    let path = dir.join("agy.toml");
    std::fs::write(&path, edit(text)).expect("write");
    path
}

#[test]
fn a_calibration_is_what_the_mock_presents_as_agy() {
    let dir = tempfile::tempdir().expect("dir");
    let file = calibration_with_ultra(dir.path(), |t| t);
    let plain = mock().agy_version("1.3.2").start().expect("mock");
    let refused = adapter::ask(&plain.agy(), "hi", Some("gemini-9-ultra-high"));
    assert!(refused.is_err(), "no built-in lists the model: {refused:?}");
    let calibrated = mock().calibration(&file).start().expect("mock");
    let answer = adapter::ask(&calibrated.agy(), "hi", Some("gemini-9-ultra-high"));
    assert!(answer.is_ok(), "{answer:?}");
}

#[test]
fn a_bad_calibration_is_refused_with_its_location() {
    let dir = tempfile::tempdir().expect("dir");
    let file = calibration_with_ultra(dir.path(), |t| {
        t.replacen("[usage]\nkeys", "[usage]\nkeyz", 1)
    });
    let err = mock().calibration(&file).start().expect_err("refused");
    assert!(err.to_string().contains("agy.toml:"), "{err}");
    assert!(err.to_string().contains("did you mean `keys`"), "{err}");
    let err = mock()
        .calibration(dir.path().join("nowhere.toml"))
        .start()
        .expect_err("refused");
    assert!(err.to_string().contains("nowhere.toml"), "{err}");
}

/// Waits for `child`, or kills it and fails after `within`.
fn wait_with_timeout(mut child: std::process::Child, within: Duration) -> std::process::ExitStatus {
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    match rx.recv_timeout(within) {
        Ok(Ok(status)) => status,
        _ => {
            let _ = nix::sys::signal::kill(pid, Signal::SIGKILL);
            panic!("agy (pid {pid}) did not exit within {within:?}");
        }
    }
}
