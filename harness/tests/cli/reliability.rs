//! No process outlives a run: drivers that hang, ignore SIGTERM or start
//! grandchildren in new sessions are all ended, even when agy-harness is SIGKILLed;
//! SIGINT mid-run still writes a partial report; the real `$HOME` is never touched.

use crate::support::*;
use std::time::Duration;

fn run_misbehaving(mode: &str, expect_code: i32) {
    let t = TestDir::new();
    let fifo = t.mkfifo("ready");
    let config = t.standin_config(mode, Some(&fifo));
    let scenario = t.scenario("standin/misbehaves", "success", "1s");
    let mut cmd = t.harness();
    cmd.args(["run", "--time-scale", "1", "--adapter"])
        .arg(&config)
        .arg(&scenario)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().expect("spawn");
    let line = read_fifo_line(&fifo, Duration::from_secs(30));
    let pids = pids(&line);
    assert!(!pids.is_empty(), "stand-in sent no pids: {line:?}");
    let out = wait_exit(child, Duration::from_secs(60));
    assert_eq!(
        out.status.code(),
        Some(expect_code),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("op 1 generate: reply"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(
        still_running(&pids),
        Vec::<u32>::new(),
        "processes outlived the run"
    );
}

#[test]
fn hanging_driver_fails_its_scenario_and_leaves_no_process() {
    run_misbehaving("hang", 1);
}

#[test]
fn driver_ignoring_sigterm_is_killed() {
    run_misbehaving("ignore-term", 1);
}

#[test]
fn grandchildren_in_new_sessions_are_killed() {
    run_misbehaving("grandchildren", 1);
}

#[test]
fn grandchildren_that_clear_the_marker_are_killed() {
    run_misbehaving("escape", 1);
}

/// Every process below agy-harness dies with it even when it is SIGKILLed and cannot
/// clean up: the driver's child, and a grandchild in a new session without the
/// sandbox marker (the reaper, a child subreaper, ends them).
#[test]
fn sigkill_to_the_harness_leaves_no_process_of_its_tree() {
    let t = TestDir::new();
    let fifo = t.mkfifo("ready");
    let config = t.standin_config("escape", Some(&fifo));
    let scenario = t.scenario("standin/sigkilled", "success", "60s");
    let mut cmd = t.harness();
    cmd.args(["run", "--time-scale", "1", "--adapter"])
        .arg(&config)
        .arg(&scenario)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = cmd.spawn().expect("spawn");
    let harness_pid = child.id();
    let standin = pids(&read_fifo_line(&fifo, Duration::from_secs(30)));
    assert_eq!(standin.len(), 3, "driver, child, grandchild: {standin:?}");
    let mut tree = agy_process::liveness::descendants(harness_pid);
    for pid in &standin {
        assert!(tree.contains(pid), "{pid} not below agy-harness: {tree:?}");
    }
    tree.sort_unstable();
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    // The kernel reports each exit on a pidfd; the bound only fails a broken build.
    let left = agy_process::wait_gone(&tree, Duration::from_secs(20));
    assert_eq!(
        left,
        Vec::<u32>::new(),
        "outlived a SIGKILLed agy-harness (of {tree:?})"
    );
}

#[test]
fn sigint_mid_run_kills_everything_and_writes_a_partial_report() {
    let t = TestDir::new();
    let fifo = t.mkfifo("ready");
    let config = t.standin_config("grandchildren", Some(&fifo));
    let scenario = t.scenario("standin/interrupted", "success", "60s");
    let report = t.path().join("report.json");
    let mut cmd = t.harness();
    cmd.args(["run", "--time-scale", "1", "--adapter"])
        .arg(&config)
        .arg(&scenario)
        .arg("--report")
        .arg(format!("json={}", report.display()))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().expect("spawn");
    let harness_pid = child.id();
    let pids = pids(&read_fifo_line(&fifo, Duration::from_secs(30)));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(harness_pid as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .expect("SIGINT");
    let out = wait_exit(child, Duration::from_secs(30));
    assert_eq!(
        out.status.code(),
        Some(3),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert_eq!(
        still_running(&pids),
        Vec::<u32>::new(),
        "processes outlived the run"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("partial report written"))
            .expect("json");
    assert_eq!(json["complete"], false);
    assert_eq!(json["results"][0]["status"], "interrupted");
}

#[test]
fn real_home_is_unchanged_by_a_run() {
    let t = TestDir::new();
    let config = t.standin_config("touch-home", None);
    let scenario = t.scenario("standin/touches-home", "success", "5s");
    let mut cmd = t.harness();
    cmd.args(["run", "--time-scale", "1", "--adapter"])
        .arg(&config)
        .arg(&scenario);
    let out = run(cmd, Duration::from_secs(60));
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let home = t.path().join("real-home");
    let left: Vec<_> = std::fs::read_dir(&home)
        .expect("home")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(
        left.is_empty(),
        "the run wrote into the real HOME: {left:?}"
    );
}

#[test]
fn a_sandbox_that_cannot_hold_the_kits_files_is_a_setup_failure() {
    // A full disk (here a file size limit of zero, `ulimit -f 0`, with SIGXFSZ ignored
    // so writes fail instead of killing): fake-agy cannot write its journal or state,
    // which is no failure of the adapter's. Exit 3, the adapter not judged.
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg("trap '' XFSZ; ulimit -f 0; exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_agy-harness"))
        .args(["--color", "never", "run"])
        .arg(
            agy_test_support::workspace()
                .join("scenarios/oneshot/success-delivers-one-decodable-image.toml"),
        );
    let out = run(cmd, Duration::from_secs(120));
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    assert!(stdout.contains("setup failure:"), "{stdout}");
    assert!(
        !stdout.contains("observed: permanent"),
        "the adapter is judged:\n{stdout}"
    );
}

/// The `agy-harness-*` folders in `parent` but `except`, sorted.
fn sandboxes_in(parent: &std::path::Path, except: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(parent)
        .expect("list")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.as_path() != except)
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("agy-harness-"))
        })
        .collect();
    found.sort();
    found
}

/// `agy-harness run` with a stand-in in `mode` and its sandboxes in `parent`; the
/// stand-in says it is up on a FIFO named `ready`, when given.
fn run_in(
    t: &TestDir,
    parent: &std::path::Path,
    mode: &str,
    ready: Option<&str>,
) -> std::process::Command {
    let fifo = ready.map(|name| t.mkfifo(name));
    let config = t.standin_config(mode, fifo.as_deref());
    let scenario = t.scenario(&format!("standin/{mode}"), "success", "60s");
    let mut cmd = t.harness();
    cmd.args(["run", "--time-scale", "1", "--adapter"])
        .arg(&config)
        .arg(&scenario)
        .env(agy_protocol::env::AGY_HARNESS_SANDBOX_DIR, parent)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    cmd
}

/// A harness killed with SIGKILL leaves its sandbox; the first sandbox the next run
/// makes in that folder removes it and says so. A live run's sandbox and a folder
/// without an owner file are left.
#[test]
fn the_next_run_removes_the_sandbox_a_sigkilled_run_left() {
    let t = TestDir::new();
    let parent = t.path().join("sandboxes");
    let foreign = parent.join("agy-harness-noowner");
    std::fs::create_dir_all(&foreign).expect("mkdir");

    let mut killed = run_in(&t, &parent, "hang", Some("ready-a"))
        .spawn()
        .expect("spawn");
    read_fifo_line(&t.path().join("ready-a"), Duration::from_secs(30));
    let left = sandboxes_in(&parent, &foreign);
    assert_eq!(left.len(), 1, "{left:?}");
    killed.kill().expect("SIGKILL");
    let _ = killed.wait();
    assert!(
        left[0].is_dir(),
        "a SIGKILLed run cannot remove its sandbox"
    );

    let live = run_in(&t, &parent, "hang", Some("ready-b"))
        .spawn()
        .expect("spawn");
    read_fifo_line(&t.path().join("ready-b"), Duration::from_secs(30));
    assert!(
        !left[0].exists(),
        "the next run removed {}",
        left[0].display()
    );
    let live_sandboxes = sandboxes_in(&parent, &foreign);
    assert_eq!(live_sandboxes.len(), 1, "{live_sandboxes:?}");

    let quick = run(run_in(&t, &parent, "ok", None), Duration::from_secs(60));
    assert_eq!(quick.status.code(), Some(0), "{}", text(&quick.stderr));
    assert!(
        !text(&quick.stderr).contains("removed"),
        "{}",
        text(&quick.stderr)
    );
    assert!(live_sandboxes[0].is_dir(), "a live run's sandbox stays");
    assert!(foreign.is_dir(), "a folder without an owner file stays");

    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(live.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .expect("SIGINT");
    let out = wait_exit(live, Duration::from_secs(30));
    let said = text(&out.stderr);
    assert!(
        said.contains("removed 1 sandbox folder left by ended runs"),
        "{said}"
    );
    assert_eq!(
        sandboxes_in(&parent, &foreign),
        Vec::<std::path::PathBuf>::new()
    );
}
