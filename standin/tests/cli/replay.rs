use agy_protocol::capture::load_corpus;
use agy_protocol::standin::{AGY_STANDIN_TRACES, STANDIN_UNSERVED_EXIT};
use agy_protocol::trace::Trace;
use agy_standin::{split_version, write_split, Side};
use agy_test_support::{workspace, TestDir};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn standin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_agy-standin"))
}

/// Runs the stand-in over `dir` with `args` and `stdin` lines (stdin then closed).
fn run(dir: &Path, args: &[String], stdin: &[String]) -> std::process::Output {
    let mut child = standin()
        .args(args)
        .env(AGY_STANDIN_TRACES, dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("agy-standin starts");
    let mut input = child.stdin.take().expect("stdin");
    for line in stdin {
        // A refusal may close stdin before every line is written.
        let _ = writeln!(input, "{line}");
    }
    drop(input);
    agy_test_support::wait_output(child, Duration::from_secs(20), "agy-standin")
}

fn held_folder(version: &str) -> TestDir {
    let corpus_dir = workspace().join("traces");
    let corpus = load_corpus(&corpus_dir).expect("the corpus loads");
    let dir = TestDir::new("standin-held-");
    write_split(&corpus_dir, &split_version(&corpus, version), dir.path()).expect("split");
    dir
}

#[test]
fn every_held_capture_is_replayed_byte_for_byte_with_its_exit_code() {
    for version in ["1.3.1", "1.1.12"] {
        let dir = held_folder(version);
        let mut served = 0;
        // Two captures of one argv and stdin: the first in file-name order is served.
        let mut seen = std::collections::BTreeSet::new();
        let mut paths: Vec<_> = std::fs::read_dir(dir.path())
            .expect("listed")
            .map(|e| e.expect("entry").path())
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).expect("read");
            let trace = Trace::parse(&path.display().to_string(), &text).expect("parses");
            for inv in &trace.invocations {
                let stdin = inv.stdin_lines();
                if !seen.insert((inv.start.argv.clone(), stdin.clone())) {
                    continue;
                }
                let out = run(dir.path(), &inv.start.argv[1..], &stdin);
                let what = format!(
                    "{}: {}",
                    path.display(),
                    agy_test_support::text(&out.stderr)
                );
                assert_eq!(out.stdout, inv.stdout(), "stdout of {what}");
                assert_eq!(out.stderr, inv.stderr(), "stderr of {what}");
                assert_eq!(
                    out.status.code(),
                    inv.exit().and_then(|x| x.code),
                    "exit of {what}"
                );
                served += 1;
            }
        }
        assert!(served >= 8, "{version}: only {served} captures held");
    }
}

#[test]
fn an_argv_no_held_capture_has_fails_loudly_with_the_reserved_code() {
    let dir = held_folder("1.1.12");
    let out = run(
        dir.path(),
        &[
            "--output-format".into(),
            "json".into(),
            "-p".into(),
            "hi".into(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(STANDIN_UNSERVED_EXIT));
    assert!(out.stdout.is_empty());
    let err = agy_test_support::text(&out.stderr);
    assert!(
        err.starts_with(
            "agy-standin: no capture for argv [\"--output-format\", \"json\", \"-p\", \"hi\"]"
        ),
        "{err}"
    );
}

#[test]
fn a_held_back_capture_is_not_answered() {
    let corpus_dir = workspace().join("traces");
    let corpus = load_corpus(&corpus_dir).expect("the corpus loads");
    let split = split_version(&corpus, "1.3.1");
    let dir = held_folder("1.3.1");
    let back = corpus
        .captures
        .iter()
        .find(|c| c.id == "ut-1.3.1-ok")
        .expect("ut-1.3.1-ok");
    assert!(split.ids(Side::Back).contains(&"ut-1.3.1-ok"));
    let argv = back.argv().expect("known argv");
    let out = run(dir.path(), &argv[1..], back.stdin_lines());
    assert_eq!(
        out.status.code(),
        Some(STANDIN_UNSERVED_EXIT),
        "{}",
        agy_test_support::text(&out.stdout)
    );
}

#[test]
fn traces_of_two_versions_are_refused_at_the_header_of_the_second() {
    let dir = TestDir::new("standin-mixed-");
    let traces = workspace().join("traces");
    for id in ["mv-1.1.12-version", "ta-1.2.7-version"] {
        std::fs::copy(
            traces.join(format!("{id}.jsonl")),
            dir.path().join(format!("{id}.jsonl")),
        )
        .expect("copy");
    }
    let out = run(dir.path(), &["--version".into()], &[]);
    assert_eq!(out.status.code(), Some(STANDIN_UNSERVED_EXIT));
    let err = agy_test_support::text(&out.stderr);
    assert!(err.contains("ta-1.2.7-version.jsonl:1:1"), "{err}");
    assert!(
        err.contains("records agy 1.2.7 while `mv-1.1.12-version.jsonl` records agy 1.1.12"),
        "{err}"
    );
}

#[test]
fn no_folder_is_refused_naming_the_variable() {
    let out = standin()
        .arg("--version")
        .env_remove(AGY_STANDIN_TRACES)
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(STANDIN_UNSERVED_EXIT));
    assert!(agy_test_support::text(&out.stderr)
        .starts_with("agy-standin: `AGY_STANDIN_TRACES` is not set"));
}
