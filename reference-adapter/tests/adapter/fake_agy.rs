//! End to end against fake-agy's default behaviour (a plausible agy 1.2.x): the same
//! adapter binary, with fake-agy installed as `agy` and its journal as the evidence.

use crate::support::*;
use agy_protocol::driver::Outcome;
use agy_protocol::env::{
    AGY_HARNESS_TIME_SCALE, FAKE_AGY_BIN, FAKE_AGY_JOURNAL, FAKE_AGY_SCRIPT, FAKE_AGY_SIGNED_OUT,
    FAKE_AGY_TIME_SCALE,
};
use agy_protocol::journal::{read_journal, JournalRecord};
use serde_json::json;
use std::path::{Path, PathBuf};

/// fake-agy's binary: `FAKE_AGY_BIN` if set, else the one the build left beside this
/// test's target folder.
fn fake_agy() -> PathBuf {
    agy_test_support::workspace_bin("fake-agy", FAKE_AGY_BIN)
}

/// A sandbox whose `agy` is fake-agy, journaling into `journal.jsonl`.
fn fake_sandbox() -> Sandbox {
    let mut sb = Sandbox::new("");
    let agy = sb.path("bin/agy");
    std::fs::remove_file(&agy).expect("remove placeholder");
    std::os::unix::fs::symlink(fake_agy(), &agy).expect("symlink fake-agy as agy");
    let journal = sb.path("journal.jsonl").display().to_string();
    sb.set(FAKE_AGY_JOURNAL, &journal)
        .set(FAKE_AGY_TIME_SCALE, "0.1");
    sb
}

fn journal(sb: &Sandbox) -> Vec<JournalRecord> {
    read_journal(&sb.path("journal.jsonl")).expect("journal reads")
}

fn has_flag(record: &JournalRecord, flag: &str) -> bool {
    record.argv.iter().any(|a| a == flag)
}

#[tokio::test]
async fn oneshot_delivers_fake_agys_widescreen_jpeg() {
    let sb = fake_sandbox();
    let mut d = sb.driver(&[]);
    let r = d
        .call(json!({"op": "generate", "prompt": "a purple hexagon", "aspect": "16:9", "timeout_s": 60}))
        .await;
    assert!(r.ok, "{r:?}");
    let image = r.result.image.expect("image");
    // docs/spike-records.md S3: "16:9 widescreen" gives 1376×768.
    assert_eq!(decodes_as_jpeg(Path::new(&image)), (1376, 768));
    d.finish().await;
    let records = journal(&sb);
    assert_eq!(records.len(), 1);
    let rec = &records[0];
    assert!(has_flag(rec, "--print-timeout") && has_flag(rec, "--add-dir"));
    for absent in [
        "--dangerously-skip-permissions",
        "--conversation",
        "--continue",
    ] {
        assert!(!has_flag(rec, absent), "{absent} in {:?}", rec.argv);
    }
}

#[tokio::test]
async fn oneshot_unknown_model_is_permanent() {
    let sb = fake_sandbox();
    let mut d = sb.driver(&[]);
    let r = d
        .call(json!({"op": "generate", "prompt": "a hexagon", "timeout_s": 60, "settings": {"model": "does-not-exist"}}))
        .await;
    assert_eq!(
        (r.outcome, r.retryable),
        (Some(Outcome::Permanent), Some(false)),
        "{r:?}"
    );
    assert!(r.error.expect("error").message.contains("does-not-exist"));
    d.finish().await;
}

#[tokio::test]
async fn session_first_turn_that_agy_exits_before_reading_is_judged_by_what_agy_wrote() {
    // Regression: a signed-out agy writes its ERROR result and exits without reading
    // stdin; a first turn written after it exited (here: one larger than the pipe, so the
    // write always outlives the reader) failed as "stdin is not writable" (permanent) on
    // two processes instead of the auth error agy had written.
    let mut sb = fake_sandbox();
    sb.set(FAKE_AGY_SIGNED_OUT, "1");
    let mut d = sb.driver(&[]);
    let r = d.call(json!({"op": "open", "session": "s"})).await;
    assert!(r.ok, "{r:?}");
    let long = "a pasted file ".repeat(8 * 1024);
    let r = d
        .call(json!({"op": "turn", "session": "s", "text": long}))
        .await;
    assert_eq!(
        (r.outcome, r.retryable),
        (Some(Outcome::Auth), Some(false)),
        "{r:?}"
    );
    d.finish().await;
    assert_eq!(journal(&sb).len(), 1, "one agy, not started again");
}

#[tokio::test]
async fn session_keeps_one_fake_agy_for_three_turns_and_a_new_one_after_a_model_change() {
    let sb = fake_sandbox();
    let mut d = sb.driver(&[]);
    assert!(d.call(json!({"op": "open", "session": "s"})).await.ok);
    for text in ["reply ONE", "reply TWO", "reply THREE"] {
        let r = d
            .call(json!({"op": "turn", "session": "s", "text": text}))
            .await;
        assert!(r.ok, "{r:?}");
    }
    assert!(
        d.call(json!({"op": "select", "session": "s", "model": "gemini-3.1-pro-low"}))
            .await
            .ok
    );
    let r = d
        .call(json!({"op": "turn", "session": "s", "text": "reply FOUR"}))
        .await;
    assert!(r.ok, "{r:?}");
    let history = r.result.history.expect("history");
    assert_eq!(history.len(), 8);
    assert!(history[7].text.contains("FOUR"), "{history:?}");
    assert!(d.call(json!({"op": "close", "session": "s"})).await.ok);
    d.finish().await;

    let records = journal(&sb);
    assert_eq!(
        records.len(),
        2,
        "one process for three turns, one after the change"
    );
    assert_eq!(records[0].stdin.lines.len(), 3);
    assert!(records[0].stdin.closed_us.is_some(), "release ends stdin");
    assert!(!has_flag(&records[0], "--conversation"));
    assert!(has_flag(&records[1], "--model") && has_flag(&records[1], "--conversation"));
    assert!(
        records.iter().all(|r| r.exit.is_some()),
        "no process left running"
    );
}

fn library_script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios/agy-scripts")
        .join(format!("{name}.toml"))
        .display()
        .to_string()
}

async fn generate_with_script(script: &str, faults: &[&str]) -> agy_protocol::driver::Reply {
    let mut sb = fake_sandbox();
    sb.set(FAKE_AGY_SCRIPT, &library_script(script))
        // The hang row: killed at (1 s + 30 s) × 0.1.
        .set(AGY_HARNESS_TIME_SCALE, "0.1")
        .set(FAKE_AGY_TIME_SCALE, "0.01");
    let mut d = sb.driver(faults);
    let r = d
        .call(json!({"op": "generate", "prompt": "a purple hexagon", "aspect": "16:9", "timeout_s": 1}))
        .await;
    d.finish().await;
    r
}

#[tokio::test]
async fn every_oneshot_library_behaviour_gets_its_adr_row() {
    use Outcome::*;
    let rows = [
        ("success-with-image", Success, false),
        ("third-call-fails", Success, false),
        ("print-timeout-as-success", Timeout, true),
        ("image-quota-429-in-success-prose", Transient, true),
        ("success-without-image", OutputMissing, false),
        ("two-images", OutputMissing, false),
        ("corrupt-image", OutputMissing, false),
        ("canceled", Transient, true),
        ("interrupted", Transient, true),
        ("authentication-required", Auth, false),
        ("unknown-model", Permanent, false),
        ("invalid", Permanent, false),
        ("waiting", Permanent, false),
        ("running", Permanent, false),
        ("malformed-stdout", Permanent, false),
        ("hang-past-any-timeout", Timeout, true),
    ];
    for (script, class, retryable) in rows {
        let r = generate_with_script(script, &[]).await;
        assert_eq!(
            (r.outcome, r.retryable),
            (Some(class), Some(retryable)),
            "{script}: {r:?}"
        );
        assert_eq!(r.ok, class == Success, "{script}");
    }
}

#[tokio::test]
async fn each_oneshot_fault_misjudges_its_library_behaviour() {
    use Outcome::*;
    let rows = [
        ("print-timeout-as-success", "trusts-success", Success),
        (
            "print-timeout-as-success",
            "missing-output-before-timeout",
            OutputMissing,
        ),
        (
            "image-quota-429-in-success-prose",
            "no-quota-detection",
            OutputMissing,
        ),
        ("two-images", "first-of-many-images", Success),
    ];
    for (script, fault, class) in rows {
        let r = generate_with_script(script, &[fault]).await;
        assert_eq!(r.outcome, Some(class), "{fault} on {script}: {r:?}");
    }
}

/// A session sandbox whose fake-agy follows `script` (TOML, the agy script format).
fn scripted_session(script: &str) -> Sandbox {
    let mut sb = fake_sandbox();
    let path = sb.path("script.toml");
    std::fs::write(&path, script).expect("write script");
    sb.set(FAKE_AGY_SCRIPT, &path.display().to_string());
    sb
}

async fn two_turns(
    sb: &Sandbox,
    faults: &[&str],
) -> (agy_protocol::driver::Reply, agy_protocol::driver::Reply) {
    let mut d = sb.driver(faults);
    assert!(d.call(json!({"op": "open", "session": "s"})).await.ok);
    let first = d
        .call(json!({"op": "turn", "session": "s", "text": "first"}))
        .await;
    let second = d
        .call(json!({"op": "turn", "session": "s", "text": "second"}))
        .await;
    d.finish().await;
    (first, second)
}

const REPLAY: &str = r#"
[[turn]]
steps = [{ default = { response = "first answer\n" } }]
[[turn]]
steps = [{ replay_previous = true }, { default = { response = "second answer\n" } }]
"#;

const LATE_STEP: &str = r#"
[[turn]]
steps = [{ default = { response = "first answer\n" } }]
[[turn]]
steps = [{ late_step = { text_delta = "LATE " } }, { default = { response = "second answer\n" } }]
"#;

#[tokio::test]
async fn fake_agys_replay_quirk_is_filtered_and_the_fault_falls_for_it() {
    let sb = scripted_session(REPLAY);
    let (first, second) = two_turns(&sb, &[]).await;
    assert_eq!(first.result.text.as_deref(), Some("first answer\n"));
    assert_eq!(
        second.result.text.as_deref(),
        Some("second answer\n"),
        "{second:?}"
    );
    assert_eq!(second.result.history.expect("history").len(), 4);
    assert_eq!(journal(&sb).len(), 1);

    let sb = scripted_session(REPLAY);
    let (_, second) = two_turns(&sb, &["no-replay-filter"]).await;
    assert_eq!(
        second.result.text.as_deref(),
        Some("first answer\n"),
        "{second:?}"
    );
}

#[tokio::test]
async fn fake_agys_late_step_stays_out_of_the_new_turn_unless_the_fault_is_on() {
    let sb = scripted_session(LATE_STEP);
    let (_, second) = two_turns(&sb, &[]).await;
    assert_eq!(
        second.result.text.as_deref(),
        Some("second answer\n"),
        "{second:?}"
    );

    let sb = scripted_session(LATE_STEP);
    let (_, second) = two_turns(&sb, &["late-step-to-current-turn"]).await;
    let text = second.result.text.expect("text");
    assert!(text.contains("LATE"), "{text:?}");
}

#[tokio::test]
async fn a_num_turns_that_did_not_advance_fails_the_turn_and_releases_agy() {
    let sb = scripted_session(
        r#"
[[turn]]
steps = [{ default = {} }]
[[turn]]
steps = [{ default = { advance_turns = false } }]
"#,
    );
    let mut d = sb.driver(&[]);
    assert!(d.call(json!({"op": "open", "session": "s"})).await.ok);
    assert!(
        d.call(json!({"op": "turn", "session": "s", "text": "one"}))
            .await
            .ok
    );
    let r = d
        .call(json!({"op": "turn", "session": "s", "text": "two"}))
        .await;
    assert_eq!(
        (r.ok, r.outcome),
        (false, Some(Outcome::Permanent)),
        "{r:?}"
    );
    assert!(r
        .error
        .expect("error")
        .message
        .contains("num_turns did not advance"));
    assert!(
        d.call(json!({"op": "turn", "session": "s", "text": "three"}))
            .await
            .ok
    );
    d.finish().await;
    let records = journal(&sb);
    assert_eq!(records.len(), 2, "the failure released the first agy");
    assert!(records[0].stdin.closed_us.is_some());
}

const IGNORES_SIGTERM: &str = r#"
[[turn]]
steps = [{ on_sigterm = "ignore" }, { default = {} }, { hang = true }]
"#;

#[tokio::test]
async fn fake_agy_ignoring_sigterm_is_sigkilled_on_close() {
    let sb = scripted_session(IGNORES_SIGTERM);
    let mut d = sb.driver(&[]);
    assert!(d.call(json!({"op": "open", "session": "s"})).await.ok);
    let r = d
        .call(json!({"op": "turn", "session": "s", "text": "one"}))
        .await;
    let pid = r
        .result
        .extra
        .as_ref()
        .and_then(|e| e["pid"].as_i64())
        .expect("pid") as i32;
    assert!(d.call(json!({"op": "close", "session": "s"})).await.ok);
    assert!(!alive(pid), "close replied while agy {pid} was alive");
    d.finish().await;
    let records = journal(&sb);
    assert_eq!(
        records[0]
            .signals
            .iter()
            .map(|s| s.signal.as_str())
            .collect::<Vec<_>>(),
        ["SIGTERM"]
    );
}

#[tokio::test]
async fn sigterm_without_sigkill_leaves_fake_agy_running() {
    let sb = scripted_session(IGNORES_SIGTERM);
    let mut d = sb.driver(&["sigterm-without-sigkill"]);
    assert!(d.call(json!({"op": "open", "session": "s"})).await.ok);
    let r = d
        .call(json!({"op": "turn", "session": "s", "text": "one"}))
        .await;
    let pid = r
        .result
        .extra
        .as_ref()
        .and_then(|e| e["pid"].as_i64())
        .expect("pid") as i32;
    assert!(d.call(json!({"op": "close", "session": "s"})).await.ok);
    let still_alive = alive(pid);
    kill(pid);
    d.finish().await;
    assert!(still_alive, "the faulty variant never escalates");
}

#[tokio::test]
async fn not_signed_in_is_auth_in_stream_json_mode_too() {
    let mut sb = fake_sandbox();
    sb.set(FAKE_AGY_SCRIPT, &library_script("authentication-required"));
    let mut d = sb.driver(&[]);
    assert!(d.call(json!({"op": "open", "session": "s"})).await.ok);
    let r = d
        .call(json!({"op": "turn", "session": "s", "text": "hi"}))
        .await;
    assert_eq!(
        (r.ok, r.outcome, r.retryable),
        (false, Some(Outcome::Auth), Some(false)),
        "{r:?}"
    );
    assert_eq!(r.error.expect("error").name, "TurnAuthError");
    d.finish().await;
    assert!(journal(&sb).iter().all(|rec| rec.exit.is_some()));
}
