//! The error table, row by row, and what each oneshot fault changes.

use super::*;
use crate::oneshot::image::ImageInfo;
use agy_protocol::Usage;

const CONV: &str = "e1fea50a-738b-40bd-beb4-249481d6ab1e";

fn envelope(status: Status, response: &str, error: &str, usage: Usage) -> Envelope {
    Envelope {
        response: response.to_string(),
        error: error.to_string(),
        num_turns: 1,
        usage,
        ..Envelope::empty(CONV, status)
    }
}

fn real_usage() -> Usage {
    Usage::new(62753, 4953, 4459, 85548)
}

fn good(name: &str) -> FoundImage {
    FoundImage {
        path: PathBuf::from(format!("/brain/{CONV}/{name}")),
        decoded: Ok(ImageInfo {
            format: "jpeg",
            width: 1376,
            height: 768,
        }),
    }
}

fn corrupt(name: &str) -> FoundImage {
    FoundImage {
        path: PathBuf::from(format!("/brain/{CONV}/{name}")),
        decoded: Err("not a decodable JPEG".to_string()),
    }
}

fn obs(exit: i32, env: Envelope, images: Vec<FoundImage>) -> Observation {
    Observation {
        exit_code: Some(exit),
        envelope: Ok(env),
        stderr: String::new(),
        brain_dir: Some(PathBuf::from(format!("/brain/{CONV}"))),
        images,
    }
}

/// S6c: exit 0, SUCCESS, empty response, zero usage, the stderr notice, no image.
fn print_timeout() -> Observation {
    Observation {
        stderr: "[agy] print timeout after 1s with turn in progress; returning partial output\n"
            .to_string(),
        ..obs(0, envelope(Status::Success, "", "", Usage::ZERO), vec![])
    }
}

/// S7 correction: SUCCESS, real usage, 429 only in the prose, no image.
fn image_quota() -> Observation {
    obs(
        0,
        envelope(
            Status::Success,
            "I tried to generate the image but got 429 Too Many Requests: RESOURCE_EXHAUSTED — you have exhausted your capacity on the image model (gemini-3.1-flash-image). Quota resets in approximately 2 hours and 20 minutes.",
            "",
            real_usage(),
        ),
        vec![],
    )
}

fn failure(v: Verdict) -> Failure {
    match v {
        Verdict::Failed(f) => f,
        Verdict::Delivered(p) => panic!("expected a failure, got delivered {p:?}"),
    }
}

fn none() -> FaultSet {
    FaultSet::none()
}

#[test]
fn one_decodable_image_with_exit_0_and_success_is_delivered() {
    let o = obs(
        0,
        envelope(Status::Success, "Done.", "", real_usage()),
        vec![good("a_1.jpg")],
    );
    assert_eq!(
        classify(&o, &none()),
        Verdict::Delivered(Some(PathBuf::from(format!("/brain/{CONV}/a_1.jpg"))))
    );
}

#[test]
fn row_1_print_timeout_is_a_retryable_timeout() {
    let f = failure(classify(&print_timeout(), &none()));
    assert_eq!(
        (f.outcome, f.retryable, f.name),
        (Outcome::Timeout, true, PROVIDER_TIMEOUT)
    );
    assert!(
        f.message.contains("print timeout after 1s"),
        "{}",
        f.message
    );
}

#[test]
fn row_1_needs_zero_tokens_and_an_empty_response() {
    // Tokens were spent: not agy's print timeout, so the missing-output row applies.
    let o = obs(0, envelope(Status::Success, "", "", real_usage()), vec![]);
    assert_eq!(
        failure(classify(&o, &none())).outcome,
        Outcome::OutputMissing
    );
    let o = obs(
        0,
        envelope(Status::Success, "partial", "", Usage::ZERO),
        vec![],
    );
    assert_eq!(
        failure(classify(&o, &none())).outcome,
        Outcome::OutputMissing
    );
}

#[test]
fn row_2_success_without_an_image_names_the_brain_directory() {
    let o = obs(
        0,
        envelope(Status::Success, "Here it is!", "", real_usage()),
        vec![],
    );
    let f = failure(classify(&o, &none()));
    assert_eq!(
        (f.outcome, f.retryable, f.name),
        (Outcome::OutputMissing, false, PROVIDER_OUTPUT_MISSING)
    );
    assert!(
        f.message.contains(&format!("/brain/{CONV}")),
        "{}",
        f.message
    );
}

#[test]
fn image_quota_prose_without_an_image_is_a_retryable_transient() {
    let f = failure(classify(&image_quota(), &none()));
    assert_eq!(
        (f.outcome, f.retryable, f.name),
        (Outcome::Transient, true, PROVIDER_TRANSIENT)
    );
}

#[test]
fn quota_prose_with_an_image_is_still_a_success() {
    let mut o = image_quota();
    o.images = vec![good("a.jpg")];
    assert!(matches!(classify(&o, &none()), Verdict::Delivered(Some(_))));
}

#[test]
fn row_3_canceled_and_interrupted_are_retryable_transients() {
    for status in [Status::Canceled, Status::Interrupted] {
        let f = failure(classify(
            &obs(0, envelope(status, "", "", Usage::ZERO), vec![]),
            &none(),
        ));
        assert_eq!(
            (f.outcome, f.retryable, f.name),
            (Outcome::Transient, true, PROVIDER_TRANSIENT)
        );
    }
}

#[test]
fn row_4_authentication_errors_are_auth_in_both_wordings() {
    for error in [
        "authentication required",
        "authentication failed or timed out",
    ] {
        let o = Observation {
            envelope: Ok(Envelope::pre_turn_error(error)),
            ..obs(1, envelope(Status::Error, "", "", Usage::ZERO), vec![])
        };
        let f = failure(classify(&o, &none()));
        assert_eq!(
            (f.outcome, f.retryable, f.name),
            (Outcome::Auth, false, PROVIDER_AUTH),
            "{error}"
        );
    }
}

#[test]
fn row_5_other_errors_and_statuses_are_permanent() {
    let model = Envelope::pre_turn_error(
        "invalid model selection (--model \"does-not-exist\" --effort \"\"): model does-not-exist is not recognized",
    );
    let f = failure(classify(
        &Observation {
            envelope: Ok(model),
            ..obs(1, envelope(Status::Error, "", "", Usage::ZERO), vec![])
        },
        &none(),
    ));
    assert_eq!(
        (f.outcome, f.retryable, f.name),
        (Outcome::Permanent, false, PROVIDER_PERMANENT)
    );
    assert!(f.message.contains("does-not-exist"), "{}", f.message);
    for status in [
        Status::Invalid,
        Status::Waiting,
        Status::Running,
        Status::Other("NEW".into()),
    ] {
        let f = failure(classify(
            &obs(
                0,
                envelope(status.clone(), "", "", Usage::ZERO),
                vec![good("a.jpg")],
            ),
            &none(),
        ));
        assert_eq!(f.outcome, Outcome::Permanent, "{status}");
    }
}

#[test]
fn quota_error_status_is_permanent_as_the_table_says() {
    // docs/agy-reference.md §2.2 item 5: an ERROR envelope, not covered by the S7 correction.
    let o = obs(
        3,
        envelope(
            Status::Error,
            "",
            "Individual quota reached. Resets in 34m13s.",
            real_usage(),
        ),
        vec![],
    );
    assert_eq!(failure(classify(&o, &none())).outcome, Outcome::Permanent);
}

#[test]
fn unparseable_stdout_with_non_zero_exit_is_permanent_with_the_stderr_tail() {
    let o = Observation {
        exit_code: Some(2),
        envelope: parse_envelope("flag provided but not defined: -x\n"),
        stderr: "flag provided but not defined: -x\nUsage of agy:".to_string(),
        brain_dir: None,
        images: vec![],
    };
    let f = failure(classify(&o, &none()));
    assert_eq!((f.outcome, f.retryable), (Outcome::Permanent, false));
    assert!(f.message.contains("exit code 2"), "{}", f.message);
    assert!(f.message.contains("Usage of agy"), "{}", f.message);
}

#[test]
fn empty_or_truncated_stdout_is_permanent_even_with_exit_0() {
    for stdout in ["", "{\"conversation_id\":\"x\",\"status\":\"SUCC"] {
        let o = Observation {
            envelope: parse_envelope(stdout),
            ..print_timeout()
        };
        assert_eq!(
            failure(classify(&o, &none())).outcome,
            Outcome::Permanent,
            "{stdout:?}"
        );
    }
}

#[test]
fn success_with_a_non_zero_exit_is_not_success() {
    let o = obs(
        1,
        envelope(Status::Success, "ok", "", real_usage()),
        vec![good("a.jpg")],
    );
    assert_eq!(failure(classify(&o, &none())).outcome, Outcome::Permanent);
}

#[test]
fn two_images_are_not_exactly_one() {
    let o = obs(
        0,
        envelope(Status::Success, "ok", "", real_usage()),
        vec![good("a.jpg"), good("b.jpg")],
    );
    let f = failure(classify(&o, &none()));
    assert_eq!((f.outcome, f.retryable), (Outcome::OutputMissing, false));
    assert!(f.message.contains("found 2: a.jpg, b.jpg"), "{}", f.message);
}

#[test]
fn a_corrupt_image_does_not_open() {
    let o = obs(
        0,
        envelope(Status::Success, "ok", "", real_usage()),
        vec![corrupt("a.jpg")],
    );
    let f = failure(classify(&o, &none()));
    assert_eq!(f.outcome, Outcome::OutputMissing);
    assert!(f.message.contains("does not open"), "{}", f.message);
}

#[test]
fn process_rows_kill_and_missing_binary() {
    let k = killed_failure(1.0, 30.0, "");
    assert_eq!(
        (k.outcome, k.retryable, k.name),
        (Outcome::Timeout, true, PROVIDER_TIMEOUT)
    );
    let m = binary_missing_failure(Path::new("agy"));
    assert_eq!(
        (m.outcome, m.retryable, m.name),
        (Outcome::Permanent, false, PROVIDER_PERMANENT)
    );
    assert!(m.message.contains("install Antigravity CLI"));
}

// Faults: each must turn a row the correct adapter gets right into the real bug.

#[test]
fn trusts_success_delivers_a_print_timeout() {
    let faults = FaultSet::of([Fault::TrustsSuccess]);
    assert_eq!(
        classify(&print_timeout(), &faults),
        Verdict::Delivered(None)
    );
    let o = obs(
        0,
        envelope(Status::Success, "ok", "", real_usage()),
        vec![corrupt("a.jpg")],
    );
    assert!(matches!(classify(&o, &faults), Verdict::Delivered(Some(_))));
}

#[test]
fn missing_output_before_timeout_makes_the_timeout_permanent() {
    let f = failure(classify(
        &print_timeout(),
        &FaultSet::of([Fault::MissingOutputBeforeTimeout]),
    ));
    assert_eq!((f.outcome, f.retryable), (Outcome::OutputMissing, false));
}

#[test]
fn no_quota_detection_makes_the_quota_a_missing_output() {
    let f = failure(classify(
        &image_quota(),
        &FaultSet::of([Fault::NoQuotaDetection]),
    ));
    assert_eq!((f.outcome, f.retryable), (Outcome::OutputMissing, false));
    // The timeout row still works under this fault.
    let t = failure(classify(
        &print_timeout(),
        &FaultSet::of([Fault::NoQuotaDetection]),
    ));
    assert_eq!(t.outcome, Outcome::Timeout);
}

#[test]
fn first_of_many_images_delivers_the_first() {
    let o = obs(
        0,
        envelope(Status::Success, "ok", "", real_usage()),
        vec![good("a.jpg"), good("b.jpg")],
    );
    assert_eq!(
        classify(&o, &FaultSet::of([Fault::FirstOfManyImages])),
        Verdict::Delivered(Some(PathBuf::from(format!("/brain/{CONV}/a.jpg"))))
    );
}

#[test]
fn session_faults_change_no_oneshot_row() {
    let faults = FaultSet::of([
        Fault::ProcessPerTurn,
        Fault::NoReplayFilter,
        Fault::SigtermWithoutSigkill,
    ]);
    assert_eq!(
        failure(classify(&print_timeout(), &faults)).outcome,
        Outcome::Timeout
    );
    assert_eq!(
        failure(classify(&image_quota(), &faults)).outcome,
        Outcome::Transient
    );
}

proptest::proptest! {
    /// With no fault, a delivery needs exit 0, SUCCESS and exactly one decodable image;
    /// and no observation makes the classifier panic.
    #[test]
    fn delivery_implies_the_success_condition(
        exit in -1i32..4,
        status in proptest::sample::select(vec!["SUCCESS", "ERROR", "CANCELED", "INTERRUPTED", "INVALID", "WAITING", "RUNNING", "X"]),
        response in "\\PC{0,40}",
        error in "\\PC{0,40}",
        tokens in 0u64..3,
        images in proptest::collection::vec(proptest::bool::ANY, 0..3),
    ) {
        let found: Vec<FoundImage> = images
            .iter()
            .enumerate()
            .map(|(i, ok)| if *ok { good(&format!("{i}.jpg")) } else { corrupt(&format!("{i}.jpg")) })
            .collect();
        let o = obs(exit, envelope(Status::parse(status), &response, &error, Usage::new(tokens, 0, 0, 0)), found);
        if let Verdict::Delivered(image) = classify(&o, &none()) {
            proptest::prop_assert_eq!(exit, 0);
            proptest::prop_assert_eq!(status, "SUCCESS");
            proptest::prop_assert_eq!(images, vec![true]);
            proptest::prop_assert!(image.is_some());
        }
    }
}
