//! Redacting a result before any report renders it: a live run's results quote what
//! the real agy printed (the adapter's error message carries agy's stderr), which may
//! hold the account's e-mail address, a bearer token or an API key. Every text of the
//! result goes through the run's [`Redactor`]; numbers and verdicts stay as they are.

use super::model::ScenarioResult;
use crate::check::Failure;
use agy_protocol::redact::Redactor;

/// `r` with every text redacted.
pub fn redact_result(r: &mut ScenarioResult, redactor: &Redactor) {
    let text = |s: &mut String| *s = redactor.redact(s);
    let opt = |s: &mut Option<String>| {
        if let Some(s) = s {
            *s = redactor.redact(s);
        }
    };
    text(&mut r.name);
    text(&mut r.path);
    r.covers.iter_mut().for_each(text);
    opt(&mut r.description);
    for f in r
        .failures
        .iter_mut()
        .chain(r.advice.iter_mut())
        .chain(r.unverified.iter_mut())
    {
        redact_failure(f, redactor);
    }
    opt(&mut r.unverified_basis);
    r.not_judged.iter_mut().for_each(text);
    opt(&mut r.note);
    for op in &mut r.ops {
        text(&mut op.op);
        opt(&mut op.outcome);
        opt(&mut op.error);
        opt(&mut op.no_reply);
    }
    opt(&mut r.sandbox);
    opt(&mut r.driver_stderr);
    for e in &mut r.timeline {
        text(&mut e.actor);
        text(&mut e.detail);
        if let Some(image) = &mut e.image {
            text(&mut image.path);
            opt(&mut image.not_inlined);
        }
    }
}

fn redact_failure(f: &mut Failure, redactor: &Redactor) {
    let text = |s: &mut String| *s = redactor.redact(s);
    text(&mut f.place);
    text(&mut f.expectation);
    text(&mut f.expected);
    text(&mut f.observed);
    if let Some(s) = &mut f.closest {
        text(s);
    }
    f.evidence.iter_mut().for_each(text);
    if let Some(s) = &mut f.seed_choice {
        text(s);
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
}
