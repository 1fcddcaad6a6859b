//! The calibration format end to end: a whole file, every problem of a broken one, the
//! sides of an unrecorded edge, and no input that panics.

use super::*;
use crate::version_evidence::UncertainSide;
use crate::AgyVersion;

/// A small but complete calibration.
pub(super) const EXAMPLE: &str = r#"
[calibration]
agy = "1.3.2"
covers = ">=1.3.2"
evidence = "ut-1.3.2-signed-out"

[models]
listing = "{id}\t{label}"
tierless_alone = "accepted"
evidence = { listing = "gb-1.1.18-models-text", model = "pb-1.3.1-error-model-rejected" }
unverified = ["tierless_alone"]

[[models.model]]
id = "gemini-3.8-flash-high"
label = "Gemini 3.8 Flash (High)"

[[models.model]]
id = "gpt-oss-120b-medium"
label = "GPT-OSS 120B (Medium)"

[init]
tools = ["ask_permission", "view_file"]
evidence = "cp-1.2.16-image-subagent"

[errors]
prefix = "error: "
interrupted = "interrupted"
evidence = "kp-1.2.3-effort-unsupported; ut-1.3.1-interrupted-sigint"

[turns]
first_after_user_input = []
first_usage_checkpoint = "none"
resumed_system_message_keys = ["duration_seconds"]
evidence = "pl-1.2.13-resume-turn"

[denial]
status = "SUCCESS"
notice = "jetski: denied \"{action}\"."
command_step = ["ACTIVE", "DONE"]
command_error = "permission check failed for command \"{command}\""
evidence = "pb-1.3.1-denied-command"

[print_timeout]
status = "SUCCESS"
exit_code = 0
notice = "[agy] print timeout after {duration}"
evidence = "PB print-timeout (1.2.17)"

[usage]
keys = ["input_tokens", "output_tokens", "thinking_tokens", "cache_read_tokens", "total_tokens"]
evidence = "fp-1.1.7-json-envelope"

[files]
conversation = "conversations/{id}.db"
evidence = "CHG 1.0.4"

[signed_out]
models_error_stream = "stderr"
auth_error = "Error: authentication required. Run 'agy' to log in, then retry."
evidence = "ut-1.3.2-signed-out"

[persistent]
slash_command = "fatal"
slash_exit_code = 2
evidence = "ut-1.3.1-stream-slash-fatal"

[prompt]
without_flag = "stdin"
empty_print = "refused"
evidence = "antigravity-cli issue #582"

[conversation]
unknown_id = "mint"
evidence = "uxnan PR #255"

[image]
generation = "subagent"
evidence = "cp-1.2.16-image-subagent"

[[unrecorded]]
change = "interrupted turn's error"
last_before = "1.3.2"
first_after = "1.3.9"
evidence = "invented for the test"
before = { errors = { interrupted = "context canceled" } }
after = { errors = { interrupted = "interrupted" } }
"#;

fn v(s: &str) -> AgyVersion {
    s.parse().expect("version")
}

#[test]
fn a_whole_file_reads_and_writes_back_the_same() {
    let c = parse_calibration(EXAMPLE, "agy.toml").expect("valid");
    assert_eq!(c.calibration.agy, v("1.3.2"));
    assert_eq!(c.models.model[1].id, "gpt-oss-120b-medium");
    assert_eq!(
        c.denial.command_step,
        vec![StepStatus::Active, StepStatus::Done]
    );
    assert!(is_unverified(
        c.models.unverified.as_ref(),
        "tierless_alone"
    ));
    let again = parse_calibration(&c.to_toml().expect("toml"), "again.toml").expect("valid");
    assert_eq!(again, c);
}

#[test]
fn every_problem_is_reported_with_its_place_and_a_hint() {
    let broken = EXAMPLE
        .replace(
            "tierless_alone = \"accepted\"",
            "tierless_alone = \"acepted\"",
        )
        .replace("[usage]\nkeys", "[usage]\nkeyz")
        .replace(
            "notice = \"[agy] print timeout after {duration}\"",
            "notice = \"after {duraton}\"",
        )
        .replace("evidence = \"CHG 1.0.4\"\n", "")
        .replace("[image]", "[imag]")
        .replace("slash_exit_code = 2", "slash_exit_code = \"zero\"");
    let err = parse_calibration(&broken, "agy.toml").expect_err("broken");
    let text = err.to_string();
    let at = |needle: &str| {
        let line = broken
            .lines()
            .position(|l| l.contains(needle))
            .expect(needle)
            + 1;
        format!("agy.toml:{line}:")
    };
    for (place, what) in [
        (at("\"acepted\""), "unknown variant `acepted`"),
        (at("keyz"), "did you mean `keys`"),
        (at("{duraton}"), "did you mean `{duration}`"),
        (
            at("conversations/{id}.db"),
            "`conversation` of `[files]` has no evidence",
        ),
        (at("[imag]"), "did you mean `image`"),
        (at("\"zero\""), "invalid type"),
    ] {
        assert!(
            err.iter().any(|d| text.contains(&place)
                && format!("{d}").contains(what)
                && format!("{d}").contains(&place)),
            "{what} at {place}:\n{text}"
        );
    }
    assert!(text.contains("missing `[image]`"), "{text}");
}

#[test]
fn a_side_applies_only_where_the_record_is_silent() {
    let c = parse_calibration(EXAMPLE, "agy.toml").expect("valid");
    let inside = v("1.3.5");
    assert_eq!(
        c.at(inside, None).expect("at").errors.interrupted,
        "interrupted"
    );
    let before = c.at(inside, Some(UncertainSide::Before)).expect("before");
    assert_eq!(before.errors.interrupted, "context canceled");
    assert_eq!(
        before.denial, c.denial,
        "other sections are the calibration's"
    );
    for recorded in ["1.3.2", "1.3.9"] {
        let at = c
            .at(v(recorded), Some(UncertainSide::Before))
            .expect("recorded");
        assert_eq!(at.errors.interrupted, "interrupted", "{recorded}");
    }
}

#[test]
fn a_side_that_does_not_fit_is_reported_where_it_is_written() {
    let broken = EXAMPLE.replace(
        "before = { errors = { interrupted = \"context canceled\" } }",
        "before = { errors = { interupted = \"context canceled\" }, calibration = { agy = \"1.0.0\" } }",
    );
    let err = parse_calibration(&broken, "agy.toml").expect_err("broken");
    let text = err.to_string();
    let line = broken
        .lines()
        .position(|l| l.contains("interupted"))
        .expect("line")
        + 1;
    assert!(text.contains(&format!("agy.toml:{line}:")), "{text}");
    assert!(text.contains("did you mean `interrupted`"), "{text}");
    assert!(
        text.contains("a side cannot change `calibration`"),
        "{text}"
    );
}

#[test]
fn a_file_past_the_cap_is_refused_unread() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("big.toml");
    std::fs::write(&path, "#".repeat(CALIBRATION_CAP as usize + 1)).expect("write");
    let err = read_calibration(&path).expect_err("too large");
    assert!(err.to_string().contains("big.toml"), "{err}");
}

proptest::proptest! {
    #[test]
    fn no_text_panics(s in "\\PC{0,400}") {
        let _ = parse_calibration(&s, "p.toml");
    }

    #[test]
    fn no_edit_of_a_valid_file_panics(at in 0usize..3000, cut in 0usize..40, s in "\\PC{0,12}") {
        let mut text = EXAMPLE.to_string();
        let at = (0..=at.min(text.len())).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        let end = (at..=(at + cut).min(text.len())).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(at);
        text.replace_range(at..end, &s);
        if let Ok(c) = parse_calibration(&text, "p.toml") {
            let _ = c.at(v("1.3.5"), Some(UncertainSide::Before));
        }
    }
}
