//! Every text of a result made fit to show before any report renders it. A live run's
//! results quote what the real agy printed (the adapter's error message carries agy's
//! stderr), which may hold the account's e-mail address, a bearer token or an API key:
//! every text goes through the run's [`Redactor`]. And any run's results quote what an
//! adapter said, which may be a 10 MB message: every text is cut after
//! [`TEXT_MAX_CHARS`] characters (as timeline details are), so it is not copied whole
//! into every report. Numbers and verdicts stay as they are.

use super::model::ScenarioResult;
use crate::check::Failure;
use crate::data_text::{cut, TEXT_MAX_CHARS};
use agy_protocol::redact::Redactor;

/// `r` with every text redacted.
pub fn redact_result(r: &mut ScenarioResult, redactor: &Redactor) {
    each_text(r, &mut |s| *s = redactor.redact(s));
}

/// `r` with every text cut after [`TEXT_MAX_CHARS`] characters, saying how much is
/// left out.
pub fn bound_result(r: &mut ScenarioResult) {
    each_text(r, &mut |s| {
        if let std::borrow::Cow::Owned(short) = cut(s, TEXT_MAX_CHARS) {
            *s = short;
        }
    });
}

/// `r` with every invisible character (bidi controls, zero-width and control characters
/// other than line breaks) shown escaped, for a terminal
/// ([`crate::data_text::escape_invisible`]).
pub fn escape_result(r: &mut ScenarioResult) {
    each_text(r, &mut |s| {
        if let std::borrow::Cow::Owned(shown) = crate::data_text::escape_invisible(s, true) {
            *s = shown;
        }
    });
}

/// Calls `f` on every text of `r`.
fn each_text(r: &mut ScenarioResult, f: &mut dyn FnMut(&mut String)) {
    f(&mut r.name);
    f(&mut r.path);
    r.covers.iter_mut().for_each(&mut *f);
    let opt = |s: &mut Option<String>, f: &mut dyn FnMut(&mut String)| {
        if let Some(s) = s {
            f(s);
        }
    };
    opt(&mut r.description, f);
    for failure in r
        .failures
        .iter_mut()
        .chain(r.advice.iter_mut())
        .chain(r.unverified.iter_mut())
    {
        failure_texts(failure, f);
    }
    opt(&mut r.unverified_basis, f);
    r.not_judged.iter_mut().for_each(&mut *f);
    opt(&mut r.note, f);
    for op in &mut r.ops {
        f(&mut op.op);
        opt(&mut op.outcome, f);
        opt(&mut op.error, f);
        opt(&mut op.no_reply, f);
    }
    opt(&mut r.sandbox, f);
    opt(&mut r.driver_stderr, f);
    for e in &mut r.timeline {
        f(&mut e.actor);
        f(&mut e.detail);
        if let Some(image) = &mut e.image {
            f(&mut image.path);
            opt(&mut image.not_inlined, f);
        }
    }
}

fn failure_texts(failure: &mut Failure, f: &mut dyn FnMut(&mut String)) {
    f(&mut failure.place);
    f(&mut failure.expectation);
    f(&mut failure.expected);
    f(&mut failure.observed);
    if let Some(s) = &mut failure.closest {
        f(s);
    }
    failure.evidence.iter_mut().for_each(&mut *f);
    if let Some(s) = &mut failure.seed_choice {
        f(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;

    #[test]
    fn every_text_of_a_result_is_redacted() {
        let secret = "Authorization: Bearer opaque.tok3n~value-42";
        let mut r = ScenarioResult::bare("s", "p", "oneshot", Status::Failed);
        r.failures = vec![Failure::new("op 1", "outcome", "success", secret)];
        r.failures[0].evidence.push(secret.into());
        r.note = Some(secret.into());
        r.driver_stderr = Some(secret.into());
        redact_result(&mut r, &Redactor::default());
        let json = serde_json::to_string(&r).expect("json");
        assert!(!json.contains("opaque.tok3n"), "{json}");
        assert!(json.contains("[TOKEN]"), "{json}");
    }

    /// One 10 MB error message was copied whole into every report (10–14 MB each).
    #[test]
    fn every_text_of_a_result_is_cut_saying_how_much() {
        let huge = "e".repeat(10 << 20);
        let mut r = ScenarioResult::bare("s", "p", "oneshot", Status::Failed);
        r.failures = vec![Failure::new("op 1", "message_contains", "x", huge.clone())];
        r.failures[0].evidence.push(huge.clone());
        r.note = Some(huge.clone());
        r.ops = vec![crate::report::OpRecord {
            index: 1,
            op: "generate".into(),
            outcome: None,
            error: Some(huge.clone()),
            no_reply: None,
            expected: true,
            duration_ms: 1,
        }];
        bound_result(&mut r);
        let json = serde_json::to_string(&r).expect("json");
        assert!(json.len() < 5 * TEXT_MAX_CHARS, "{} bytes", json.len());
        let left_out = huge.len() - TEXT_MAX_CHARS;
        assert_eq!(
            json.matches(&format!("… ({left_out} more bytes)")).count(),
            4,
            "{json}"
        );
    }
}
