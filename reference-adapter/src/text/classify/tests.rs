use super::*;
use crate::text::output::read_output;

fn envelope(status: &str, response: &str, error: &str, total: u64) -> String {
    serde_json::json!({
        "conversation_id": "c1", "status": status, "response": response, "error": error,
        "duration_seconds": 1, "num_turns": 1,
        "usage": {"input_tokens": total, "output_tokens": 0, "thinking_tokens": 0,
                  "cache_read_tokens": 0, "total_tokens": total}
    })
    .to_string()
}

fn run(mode: OutputMode, exit_code: Option<i32>, stdout: &str, stderr: &str) -> Finished {
    Finished {
        mode,
        exit_code,
        output: read_output(mode, stdout),
        stderr: stderr.into(),
    }
}

fn outcome(r: &Result<Answer, Failure>) -> Outcome {
    r.as_ref().map_or_else(|f| f.outcome, |_| Outcome::Success)
}

#[test]
fn a_success_with_an_answer_is_the_answer() {
    let r = classify_text(
        &run(
            OutputMode::Json,
            Some(0),
            &envelope("SUCCESS", "hi\n", "", 9),
            "",
        ),
        &FaultSet::none(),
    );
    assert_eq!(r.map(|a| a.text), Ok("hi\n".to_string()));
}

#[test]
fn a_print_timeout_is_a_timeout_in_every_form() {
    let none = FaultSet::none();
    let notice = "[agy] print timeout after 1s with turn in progress; returning partial output\n";
    let empty = run(
        OutputMode::Json,
        Some(0),
        &envelope("SUCCESS", "", "", 0),
        notice,
    );
    assert_eq!(outcome(&classify_text(&empty, &none)), Outcome::Timeout);
    let partial = run(
        OutputMode::Json,
        Some(0),
        &envelope("SUCCESS", "The ans", "", 0),
        notice,
    );
    assert_eq!(outcome(&classify_text(&partial, &none)), Outcome::Timeout);
    let text = run(OutputMode::Text, Some(0), "", notice);
    assert_eq!(outcome(&classify_text(&text, &none)), Outcome::Timeout);
    let old = run(
        OutputMode::Json,
        Some(1),
        &envelope("ERROR", "", "timeout waiting for response", 5),
        "",
    );
    assert_eq!(outcome(&classify_text(&old, &none)), Outcome::Timeout);
    let merged = FaultSet::of([Fault::TextMergesStderr]);
    let r = classify_text(&text, &merged);
    assert_eq!(r.map(|a| a.text.contains("print timeout")), Ok(true));
}

#[test]
fn auth_quota_and_a_rejected_model_are_told_apart() {
    let none = FaultSet::none();
    let auth = run(
        OutputMode::Json,
        Some(1),
        &envelope("ERROR", "", "authentication failed or timed out", 0),
        "",
    );
    let quota = run(
        OutputMode::Json,
        Some(3),
        &envelope("ERROR", "", "Individual quota reached.", 10),
        "AGY_ERROR: {\"status\":\"RESOURCE_EXHAUSTED\"}",
    );
    let model = run(
        OutputMode::Json,
        Some(1),
        &envelope(
            "ERROR",
            "",
            "invalid model selection (--model \"x\" --effort \"\"): model x is not recognized",
            0,
        ),
        "",
    );
    let got: Vec<_> = [&auth, &quota, &model]
        .iter()
        .map(|r| classify_text(r, &none).expect_err("a failure"))
        .map(|f| (f.outcome, f.retryable))
        .collect();
    assert_eq!(
        got,
        [
            (Outcome::Auth, false),
            (Outcome::Transient, true),
            (Outcome::Permanent, false)
        ]
    );
    let one = FaultSet::of([Fault::TextOneErrorClass]);
    assert!([&auth, &quota, &model]
        .iter()
        .all(|r| outcome(&classify_text(r, &one)) == Outcome::Permanent));
}

#[test]
fn statuses_that_are_no_answer_fail_even_with_exit_0() {
    let none = FaultSet::none();
    for (status, want) in [
        ("CANCELED", Outcome::Transient),
        ("WAITING", Outcome::Permanent),
        ("RUNNING", Outcome::Permanent),
    ] {
        let r = run(OutputMode::Json, Some(0), &envelope(status, "", "", 0), "");
        assert_eq!(outcome(&classify_text(&r, &none)), want, "{status}");
        let ignored = FaultSet::of([Fault::TextStatusIgnored]);
        assert_eq!(
            outcome(&classify_text(&r, &ignored)),
            Outcome::Success,
            "{status}"
        );
    }
}

#[test]
fn a_crash_after_streamed_text_is_a_failure() {
    let stream = "{\"event\":\"step_update\",\"conversation_id\":\"c\",\"step_index\":1,\"state\":\"ACTIVE\",\"step_type\":\"agent_response\",\"text_delta\":\"The answer is\"}\n";
    let r = run(OutputMode::StreamJson, None, stream, "");
    assert_eq!(
        outcome(&classify_text(&r, &FaultSet::none())),
        Outcome::Permanent
    );
    let text = run(OutputMode::Text, Some(2), "The answer is", "");
    assert_eq!(
        outcome(&classify_text(&text, &FaultSet::none())),
        Outcome::Permanent
    );
    let ignored = FaultSet::of([Fault::TextExitCodeIgnored]);
    assert_eq!(outcome(&classify_text(&text, &ignored)), Outcome::Success);
}

#[test]
fn a_stderr_warning_stays_out_of_a_json_answer_unless_the_fault_merges_it() {
    let warned = run(
        OutputMode::Json,
        Some(0),
        &envelope("SUCCESS", "Blue.\n", "", 9),
        "You are not logged into Antigravity.\n",
    );
    let clean = classify_text(&warned, &FaultSet::none()).map(|a| a.text);
    assert_eq!(clean, Ok("Blue.\n".to_string()));
    let merged = classify_text(&warned, &FaultSet::of([Fault::TextJsonMergesStderr]));
    assert_eq!(
        merged.map(|a| a.text),
        Ok("You are not logged into Antigravity.\nBlue.\n".to_string())
    );
    let text = run(
        OutputMode::Text,
        Some(0),
        "Blue.\n",
        "You are not logged into Antigravity.\n",
    );
    let text_mode = classify_text(&text, &FaultSet::of([Fault::TextJsonMergesStderr]));
    assert_eq!(
        text_mode.map(|a| a.text),
        Ok("Blue.\n".to_string()),
        "a text-mode run is the other fault's"
    );
}

#[test]
fn the_default_timeout_fault_takes_the_partial_answer_at_agy_s_own_default() {
    let notice = "[agy] print timeout after 5m0s with turn in progress; returning partial output\n";
    let partial = run(
        OutputMode::Json,
        Some(0),
        &envelope("SUCCESS", "The ans", "", 0),
        notice,
    );
    assert_eq!(
        outcome(&classify_text(&partial, &FaultSet::none())),
        Outcome::Timeout
    );
    let faulty = FaultSet::of([Fault::TextDefaultPrintTimeoutAsAnswer]);
    assert_eq!(
        classify_text(&partial, &faulty).map(|a| a.text),
        Ok("The ans".to_string())
    );
}
