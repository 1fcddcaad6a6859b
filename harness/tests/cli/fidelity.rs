//! `agy-harness fidelity`: fake-agy's default behaviour against the committed capture
//! corpus, the baseline as expected failures, located errors, reports.

use crate::support::*;
use agy_protocol::env::AGY_HARNESS_FAKE_AGY;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn traces() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")).to_path_buf()
}

fn fidelity(t: &TestDir, args: &[&str]) -> std::process::Output {
    fidelity_at(t, &traces(), args)
}

pub(crate) fn fidelity_at(t: &TestDir, dir: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = t.harness();
    let fake = Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("fake-agy");
    cmd.env(AGY_HARNESS_FAKE_AGY, fake)
        .arg("fidelity")
        .arg("--traces")
        .arg(dir)
        .args(args);
    // A guard against a hang, not a speed target: the whole corpus replays through
    // fake-agy, which on a loaded 2-core machine has taken past two minutes.
    run(cmd, Duration::from_secs(600))
}

#[test]
fn the_committed_corpus_holds_against_the_committed_baseline() {
    let t = TestDir::new();
    let out = fidelity(
        &t,
        &["--report", "json=f.json", "--report", "markdown=f.md"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("baseline holds"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.path().join("f.json")).expect("json"))
            .expect("parses");
    assert!(
        json["overall"]["compared"].as_u64().unwrap_or(0) >= 13,
        "{json}"
    );
    let md = std::fs::read_to_string(t.path().join("f.md")).expect("markdown");
    assert!(md.contains("| overall |"), "{md}");
}

#[test]
fn an_unlisted_difference_fails_and_names_expected_and_observed() {
    // ga-1.3.2-print-signed-out: agy 1.3.2 started an interactive sign-in (a URL on
    // stderr); signed-out fake-agy fails at once with the persistent-mode lines.
    let t = TestDir::new();
    let empty = t.write("empty.toml", "");
    let out = fidelity(
        &t,
        &[
            "ga-1.3.2-print-signed-out",
            "--baseline",
            &empty.display().to_string(),
        ],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("differs  ga-1.3.2-print-signed-out"),
        "{stdout}"
    );
    assert!(
        stdout.contains("    stderr [NEW]\n      expected: Authentication required. Please visit the URL to log in: ⏎ "),
        "{stdout}"
    );
    assert!(
        stdout.contains("      observed: Error: authentication required. Run 'agy' to log in, then retry. ⏎ error: authentication failed or timed out\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("new divergence (not in the baseline): ga-1.3.2-print-signed-out: stderr"),
        "{stdout}"
    );
}

#[test]
fn a_listed_divergence_that_disappeared_fails_until_the_baseline_is_updated() {
    let t = TestDir::new();
    let baseline = t.write(
        "b.toml",
        "[[divergence]]\ncapture = \"pb-1.2.17-success-pong\"\nwhat = \"exit\"\ndigest = \"0123456789ab\"\nreason = \"once different\"\n",
    );
    let out = fidelity(
        &t,
        &[
            "pb-1.2.17-success-pong",
            "--baseline",
            &baseline.display().to_string(),
        ],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("same     pb-1.2.17-success-pong"),
        "{stdout}"
    );
    assert!(
        stdout.contains("no longer seen (update the baseline): pb-1.2.17-success-pong: exit"),
        "{stdout}"
    );
}

#[test]
fn a_baseline_naming_an_unknown_capture_is_bad_input_with_its_line() {
    let t = TestDir::new();
    let baseline = t.write(
        "b.toml",
        "\n[[divergence]]\ncapture = \"pb-9-nope\"\nwhat = \"exit\"\ndigest = \"0123456789ab\"\nreason = \"r\"\n",
    );
    let out = fidelity(&t, &["--baseline", &baseline.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("b.toml:2:1"), "{err}");
    assert!(err.contains("`pb-9-nope`"), "{err}");
}

#[test]
fn an_unknown_capture_id_is_bad_input_with_a_suggestion() {
    let t = TestDir::new();
    let out = fidelity(&t, &["pb-1.2.17-success-pongg"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("did you mean `pb-1.2.17-success-pong`"),
        "{}",
        text(&out.stderr)
    );
}

/// A one-capture corpus in `t`: the committed entry `id` with `edit` applied to its
/// text (the capture's files are copied as they are).
pub(crate) fn edited_corpus(t: &TestDir, id: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let corpus = std::fs::read_to_string(traces().join("corpus.toml")).expect("corpus.toml");
    let entry = corpus
        .split("[[capture]]")
        .find(|e| e.contains(&format!("id           = \"{id}\"")))
        .expect("the capture is in the corpus");
    let dir = t.path().join("corpus");
    std::fs::create_dir_all(dir.join("upstream")).expect("corpus dir");
    for line in entry.lines().filter(|l| l.starts_with("files")) {
        for file in line.split('"').filter(|p| p.starts_with("upstream/")) {
            std::fs::copy(traces().join(file), dir.join(file)).expect("copy capture file");
        }
    }
    std::fs::write(
        dir.join("corpus.toml"),
        format!("[[capture]]{}", edit(entry)),
    )
    .expect("write corpus");
    dir
}

/// Compares capture `id` of the corpus in `dir` with an empty baseline.
fn fidelity_in(t: &TestDir, dir: &Path, id: &str) -> (Option<i32>, String) {
    let empty = t.write("empty.toml", "");
    let out = fidelity_at(t, dir, &[id, "--baseline", &empty.display().to_string()]);
    (out.status.code(), text(&out.stdout))
}

#[test]
fn the_model_decisions_given_a_denied_write_still_shows_agys_rendering() {
    // ut-1.3.1-accept-edits: the model's write_to_file and run_command calls are given;
    // agy runs the write under --mode accept-edits and denies the command. Without
    // the flag, the same decisions make fake-agy deny the write (a tool ERROR): the
    // comparison reports it although the model's choices are the capture's.
    let t = TestDir::new();
    let same = edited_corpus(&t, "ut-1.3.1-accept-edits", str::to_string);
    let (code, stdout) = fidelity_in(&t, &same, "ut-1.3.1-accept-edits");
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("same     ut-1.3.1-accept-edits"),
        "{stdout}"
    );
    let t = TestDir::new();
    let denied = edited_corpus(&t, "ut-1.3.1-accept-edits", |e| {
        e.replace(r#", "--mode", "accept-edits"]"#, "]")
    });
    let (code, stdout) = fidelity_in(&t, &denied, "ut-1.3.1-accept-edits");
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("differs  ut-1.3.1-accept-edits"),
        "{stdout}"
    );
    assert!(stdout.contains("step_update tool ERROR"), "{stdout}");
}

#[test]
fn the_model_decisions_given_another_versions_denial_shape_is_reported() {
    // pb-1.2.17-denied-command: a denied command is ACTIVE → DONE from 1.2.8 on. Run as
    // 1.2.7, fake-agy renders the same model call as a tool ERROR with a tool error.
    let t = TestDir::new();
    let dir = edited_corpus(&t, "pb-1.2.17-denied-command", |e| {
        e.replace(r#"agy_version  = "1.2.17""#, r#"agy_version  = "1.2.7""#)
    });
    let (code, stdout) = fidelity_in(&t, &dir, "pb-1.2.17-denied-command");
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("keys tool_info"), "{stdout}");
    assert!(stdout.contains("step_update tool ERROR"), "{stdout}");
}

#[test]
fn a_differing_capture_marked_argv_unknown_still_fails_the_run() {
    // The loophole this closes: `argv = "unknown"` on a differing capture skipped it
    // and the score rose with the run green. A skip needs its own baseline entry, and
    // over the whole corpus the committed counts move.
    let id = "ga-1.3.2-print-signed-out";
    let t = TestDir::new();
    let dir = edited_corpus(&t, id, str::to_string);
    let baseline = t.path().join("baseline.toml");
    let b = baseline.display().to_string();
    let empty = t.write("empty.toml", "");
    let write = [
        "--baseline",
        empty.to_str().unwrap_or_default(),
        "--write-baseline",
        b.as_str(),
        "--reason",
        "accepted in this test",
    ];
    let out = fidelity_at(&t, &dir, &write);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = fidelity_at(&t, &dir, &["--baseline", &b]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let written = std::fs::read_to_string(&baseline).expect("baseline");
    assert!(
        written.contains("compared = 1\nsame     = 0\nskipped  = 0"),
        "{written}"
    );

    let t2 = TestDir::new();
    let gamed = edited_corpus(&t2, id, |e| {
        let argv = e
            .lines()
            .find(|l| l.starts_with("argv"))
            .unwrap_or_default();
        e.replace(argv, "argv         = \"unknown\"")
    });
    let out = fidelity_at(&t, &gamed, &["--baseline", &b]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!("skipped without a baseline entry: {id}")),
        "{stdout}"
    );
    assert!(stdout.contains("counts moved"), "{stdout}");
    // A skip entry added by hand explains the skip, not the counts.
    std::fs::write(
        &baseline,
        format!("{written}\n[[skip]]\ncapture = \"{id}\"\nreason = \"hidden\"\n"),
    )
    .expect("write");
    let out = fidelity_at(&t, &gamed, &["--baseline", &b]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("counts moved"), "{stdout}");
}

#[test]
fn writing_the_baseline_for_some_captures_is_refused() {
    let t = TestDir::new();
    let out = fidelity(
        &t,
        &[
            "pb-1.2.17-success-pong",
            "--write-baseline",
            "b.toml",
            "--reason",
            "r",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("without capture ids"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_version_flag_lists_what_the_record_leaves_open() {
    let t = TestDir::new();
    let out = fidelity(&t, &["--version", "1.1.23"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("the nearest evidence is agy 1.1.22"),
        "{stdout}"
    );
    assert!(stdout.contains("DenialSuccess"), "{stdout}");
    assert!(
        !stdout.contains("same     "),
        "no capture is compared: {stdout}"
    );
    let out = fidelity(&t, &["--version", "one"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}
