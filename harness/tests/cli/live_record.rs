//! `agy-harness run --agy PATH --live --record DIR`: every live agy invocation written as
//! a trace per scenario with provenance, redacted at record time, and read back by
//! `agy-harness repro`. The "real agy" is a shell script that execs fake-agy: what
//! `--live` accepts is any binary, and no test needs a real agy.

use crate::support::*;
use agy_protocol::env::AGY_HARNESS_ALLOW_LIVE;
use agy_protocol::trace::{Trace, TraceEvent};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn fake_agy() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("fake-agy")
}

/// Secrets of several redactor rules (protocol/redact-rules.toml), none of which may
/// reach a trace.
const IN_ARGV: &str = "ghs_abcdefghijklmnopqrstuvwxyz0123456789";
const IN_STDOUT: &str = "AIzaSyA1234567890abcdefghijklmnopqrstu";
const IN_STDERR: &str = "opaque.tok3n~value-42";
const EMAIL: &str = "alice.liddell+agy@example.com";
const IN_FILE_NAME: &str = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123";

/// A stand-in for a real agy: a script that plants secrets on stderr and in the brain
/// folder, then execs fake-agy acting out `script`. It is signed out, as
/// `--credentials none` promises: `models` asks for a sign-in.
fn real_agy(t: &TestDir, script: &Path) -> PathBuf {
    let bin = t.write(
        "real-agy",
        &format!(
            "#!/bin/sh\n\
             if [ \"$1\" = models ]; then\n\
             echo 'Please sign in to view available models' >&2; exit 1\n\
             fi\n\
             if [ \"$1\" != --version ]; then\n\
             echo 'Authorization: Bearer {IN_STDERR} for {EMAIL}' >&2\n\
             mkdir -p \"$HOME/.gemini/antigravity-cli/brain/c1\"\n\
             printf 'x' > \"$HOME/.gemini/antigravity-cli/brain/c1/{IN_FILE_NAME}.txt\"\n\
             fi\n\
             FAKE_AGY_SCRIPT='{}' exec '{}' \"$@\"\n",
            script.display(),
            fake_agy().display()
        ),
    );
    let mut perms = std::fs::metadata(&bin).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&bin, perms).expect("chmod");
    bin
}

/// agy-harness in the workspace, without colour.
fn harness() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(workspace()).args(["--color", "never"]);
    cmd
}

/// Asserts the exit code (showing both streams when it differs); returns stdout.
fn exited(out: &std::process::Output, code: i32) -> String {
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    stdout
}

fn live_run(agy: &Path, record: &Path, scenario: &Path) -> std::process::Command {
    let mut cmd = harness();
    cmd.args(["run", "--live", "--budget", "5"])
        .arg("--agy")
        .arg(agy)
        .arg("--record")
        .arg(record)
        .arg(scenario)
        .env("CI", "true")
        .env(AGY_HARNESS_ALLOW_LIVE, "1");
    cmd
}

fn traces(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

#[test]
fn record_without_live_is_refused_with_a_hint() {
    let t = TestDir::new();
    let mut cmd = harness();
    cmd.args(["run", "--record"])
        .arg(t.path().join("rec"))
        .arg("scenarios/oneshot/success-delivers-one-decodable-image.toml");
    let out = run(cmd, Duration::from_secs(60));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("help: add `--agy PATH --live`"), "{stderr}");
    assert!(!t.path().join("rec").exists(), "nothing is recorded");
}

#[test]
fn a_live_run_is_recorded_per_scenario_with_provenance_and_no_secret() {
    let t = TestDir::new();
    let script = t.write(
        "agy-script.toml",
        &format!(
            "[[invocation]]\ntimes = \"always\"\nsteps = [\n  {{ image = {{ width = 64, height = 48, name = \"hexagon\" }} }},\n  {{ envelope = {{ status = \"SUCCESS\", response = \"key {IN_STDOUT} mailed to {EMAIL}\" }} }},\n  {{ exit = 0 }},\n]\n"
        ),
    );
    let scenario = t.write(
        "scenarios/oneshot/secret-prompt.toml",
        &format!(
            "[scenario]\nname = \"oneshot/secret-prompt\"\nprofile = \"oneshot\"\ncovers = [\"harness self-test\"]\ntags = [\"live\"]\n\n[[op]]\ngenerate = {{ prompt = \"draw {IN_ARGV}\" }}\n"
        ),
    );
    let record = t.path().join("rec");
    let out = run(
        live_run(&real_agy(&t, &script), &record, &scenario),
        Duration::from_secs(120),
    );
    exited(&out, 0);
    assert_eq!(
        traces(&record),
        [record.join("oneshot-secret-prompt.jsonl")],
        "one trace per scenario"
    );
    let raw = std::fs::read_to_string(record.join("oneshot-secret-prompt.jsonl")).expect("trace");
    for secret in [
        IN_ARGV,
        IN_STDOUT,
        IN_STDERR,
        EMAIL,
        IN_FILE_NAME,
        "liddell",
    ] {
        assert!(
            !raw.contains(secret),
            "`{secret}` reached the trace:\n{raw}"
        );
    }
    let trace = Trace::parse("trace", &raw).expect("a valid trace");
    // Provenance: the version as `--version` answered it, the scenario and the adapter.
    let version = std::process::Command::new(fake_agy())
        .arg("--version")
        .output()
        .expect("fake-agy --version");
    assert!(
        text(&version.stdout).contains(&trace.header.agy_version),
        "{:?} vs {}",
        trace.header,
        text(&version.stdout)
    );
    assert!(trace.header.source.contains("oneshot/secret-prompt"));
    assert!(trace.header.source.contains("adapter `"));
    assert_eq!(trace.invocations.len(), 1);
    let inv = &trace.invocations[0];
    assert!(
        inv.start.argv.iter().any(|a| a.contains("draw [TOKEN]")),
        "{:?}",
        inv.start.argv
    );
    let out_text = String::from_utf8_lossy(&inv.stdout()).into_owned();
    assert!(
        out_text.contains("key [TOKEN] mailed to [EMAIL]"),
        "{out_text}"
    );
    let err_text = String::from_utf8_lossy(&inv.stderr()).into_owned();
    assert!(
        err_text.contains("Bearer [TOKEN] for [EMAIL]"),
        "{err_text}"
    );
    let files: Vec<_> = inv
        .events
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::File(f) => Some(f.clone()),
            _ => None,
        })
        .collect();
    assert!(
        files
            .iter()
            .any(|f| f.path == "brain/c1/[TOKEN].txt" && f.bytes == 1),
        "{files:?}"
    );
    assert!(
        files
            .iter()
            .any(|f| f.path.ends_with(".jpg") && f.width == Some(64) && f.height == Some(48)),
        "{files:?}"
    );
    assert!(matches!(
        inv.events.last().map(|e| &e.event),
        Some(TraceEvent::Exit(x)) if x.code == Some(0)
    ));
}

/// A print timeout seen live becomes a repro input: the recorded folder gives a
/// scenario `check` accepts that fails the adapter treating it as success
/// (`trusts-success`) and passes the correct adapter.
#[test]
fn a_recorded_print_timeout_reproduces_trusts_success_and_passes_the_correct_adapter() {
    let t = TestDir::new();
    let script = workspace().join("scenarios/agy-scripts/print-timeout-as-success.toml");
    let record = t.path().join("rec");
    let scenario = workspace().join("scenarios/oneshot/success-delivers-one-decodable-image.toml");
    let out = run(
        live_run(&real_agy(&t, &script), &record, &scenario),
        Duration::from_secs(120),
    );
    // The correct adapter reports the timeout, so the success path fails live.
    exited(&out, 1);
    assert_eq!(traces(&record).len(), 1, "{:?}", traces(&record));

    let repro = |fault: Option<&str>, out_dir: &Path| {
        let mut cmd = harness();
        cmd.arg("repro")
            .arg(&record)
            .args(["--jobs", "2", "--out"])
            .arg(out_dir);
        if let Some(f) = fault {
            cmd.args(["--fault", f]);
        }
        run(cmd, Duration::from_secs(600))
    };
    let faulty = t.path().join("faulty");
    let stdout = exited(&repro(Some("trusts-success"), &faulty), 0);
    assert!(stdout.contains("reproduced:"), "{stdout}");
    let mut check = harness();
    check.arg("check").arg(&faulty);
    exited(&run(check, Duration::from_secs(60)), 0);

    let stdout = exited(&repro(None, &t.path().join("correct")), 1);
    assert!(stdout.contains("not reproduced"), "{stdout}");
}

#[test]
fn an_earlier_trace_is_kept_unless_forced_and_no_agy_runs() {
    // A live recording costs quota: a scenario's earlier trace is neither replaced
    // silently nor is any agy (not even `--version`) run before the refusal.
    let t = TestDir::new();
    let script = t.write(
        "agy-script.toml",
        "[[invocation]]\ntimes = \"always\"\nsteps = [\n  { envelope = { status = \"SUCCESS\", response = \"ok\" } },\n  { exit = 0 },\n]\n",
    );
    let scenario = t.write(
        "scenarios/oneshot/kept.toml",
        "[scenario]\nname = \"oneshot/kept\"\nprofile = \"oneshot\"\ncovers = [\"harness self-test\"]\ntags = [\"live\"]\n\n[[op]]\ngenerate = { prompt = \"draw\" }\n",
    );
    let ran = t.path().join("agy-ran");
    let counting = t.write(
        "counting-agy",
        &format!(
            "#!/bin/sh\necho x >> '{}'\nexec '{}' \"$@\"\n",
            ran.display(),
            real_agy(&t, &script).display()
        ),
    );
    let mut perms = std::fs::metadata(&counting).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&counting, perms).expect("chmod");
    let record = t.path().join("rec");
    std::fs::create_dir_all(&record).expect("rec");
    let earlier = record.join("oneshot-kept.jsonl");
    std::fs::write(&earlier, "earlier\n").expect("earlier");
    let out = run(
        live_run(&counting, &record, &scenario),
        Duration::from_secs(120),
    );
    let stderr = text(&out.stderr);
    exited(&out, 2);
    assert!(stderr.contains(&earlier.display().to_string()), "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&earlier).expect("read"),
        "earlier\n"
    );
    assert!(!ran.exists(), "agy ran before the refusal");
    let mut forced = live_run(&counting, &record, &scenario);
    forced.arg("--force");
    exited(&run(forced, Duration::from_secs(120)), 0);
    assert_ne!(
        std::fs::read_to_string(&earlier).expect("read"),
        "earlier\n"
    );
}
