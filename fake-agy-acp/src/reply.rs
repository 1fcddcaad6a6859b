//! Verbatim answers (`[opening]`, `[[reply]]`): lines written byte for byte and typed
//! error answers, in place of the agent's own handling of a request. A recorded
//! transcript replays through them.

use super::agent::Agent;
use agent_client_protocol_schema::v1::RequestId;
use agy_protocol::acp::script::{ReplyId, ReplyStep, RequestMatch};
use agy_protocol::acp::{AcpDirection, AcpKind};
use agy_protocol::script::Times;

impl Agent {
    /// Writes the `[opening]` lines.
    pub(crate) fn opening(&mut self) {
        let steps = self.settings.script.opening.steps.clone();
        self.reply_steps(None, &steps);
    }

    /// Answers request `id` with the first `[[reply]]` rule that matches it; false when
    /// none does (the agent answers it itself).
    pub(crate) fn reply(&mut self, id: &RequestId, method: &str) -> bool {
        self.requests_seen += 1;
        let nth = self.requests_seen;
        let rules = &self.settings.script.replies;
        let Some(i) = rules.iter().enumerate().position(|(i, rule)| {
            let limit = Times::limit(rule.times, rule.when.is_some());
            limit.is_none_or(|l| self.reply_uses[i] < l)
                && rule
                    .when
                    .as_ref()
                    .is_none_or(|w| matches(w, nth, id, method))
        }) else {
            return false;
        };
        self.reply_uses[i] += 1;
        let rule = rules[i].clone();
        let name = rule.name.unwrap_or_else(|| format!("reply {}", i + 1));
        self.wire.event(AcpDirection::Event, AcpKind::Rule, &name);
        self.reply_steps(Some(id), &rule.steps);
        true
    }

    fn reply_steps(&mut self, id: Option<&RequestId>, steps: &[ReplyStep]) {
        for step in steps {
            match step {
                ReplyStep::Line(line) => self.wire.send_raw(line),
                ReplyStep::Error(spec) => {
                    let error = spec.rpc_error();
                    // The parser keeps `error` out of the opening, which answers nothing.
                    if let Some(id) = id {
                        self.respond(id.clone(), Err(error));
                    }
                }
                ReplyStep::Stderr(line) => self.wire.stderr(line),
                ReplyStep::Sleep(d) => self.sleep_plain(d.0),
            }
        }
    }
}

fn matches(when: &RequestMatch, nth: u32, id: &RequestId, method: &str) -> bool {
    let id_matches = |want: &ReplyId| match (want, id) {
        (ReplyId::Number(n), RequestId::Number(m)) => n == m,
        (ReplyId::Text(s), RequestId::Str(t)) => s == t,
        _ => false,
    };
    when.nth.is_none_or(|n| n == nth)
        && when.method.as_deref().is_none_or(|m| m == method)
        && when.id.as_ref().is_none_or(id_matches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_given_predicate_must_hold() {
        let when = RequestMatch {
            nth: Some(2),
            method: Some("authenticate".into()),
            id: Some(ReplyId::Number(1)),
        };
        let one = RequestId::Number(1);
        assert!(matches(&when, 2, &one, "authenticate"));
        assert!(!matches(&when, 3, &one, "authenticate"));
        assert!(!matches(&when, 2, &one, "initialize"));
        assert!(!matches(&when, 2, &RequestId::Number(2), "authenticate"));
        assert!(!matches(
            &when,
            2,
            &RequestId::Str("1".into()),
            "authenticate"
        ));
        assert!(matches(&RequestMatch::default(), 9, &RequestId::Null, "x"));
    }
}
