//! Checks on one op's reply: outcome class, retryable, error name and message, the
//! output file, the turn's text, and agy processes gone after it.

use super::failure::Failure;
use super::image::decode_jpeg;
use crate::observation::OpObservation;
use crate::scenario::{OpExpect, OutputExpect};
use agy_protocol::driver::Reply;
use std::path::Path;

/// Everything wrong with one op.
pub fn check_op(expect: &OpExpect, obs: &OpObservation, work_dir: &Path) -> Vec<Failure> {
    let place = format!("op {} {}", obs.index, obs.name);
    let reply = match &obs.reply {
        Ok(r) => r,
        Err(e) => {
            return vec![Failure::new(
                place,
                "reply",
                "a reply",
                format!("none: {e}"),
            )];
        }
    };
    let mut out = Vec::new();
    check_class(expect, reply, obs, &place, &mut out);
    check_error(expect, reply, &place, &mut out);
    check_usage(expect, reply, &place, &mut out);
    check_output(expect, reply, work_dir, &place, &mut out);
    check_text(expect, reply, &place, &mut out);
    check_restore(expect, reply, &place, &mut out);
    if let Some(want) = expect.stray_responses {
        out.extend(super::stray_check::stray_check(want, reply, &place));
    }
    if let Some(pids) = &obs.still_running {
        if !pids.is_empty() {
            let bound = expect
                .agy_gone_within
                .as_ref()
                .map(|d| d.to_string())
                .unwrap_or_default();
            out.push(Failure::new(
                &place,
                "agy_gone_within",
                format!("no agy process running within {bound} (time-scaled) of the reply"),
                format!("still running: pid {}", join(pids)),
            ));
        }
    }
    out
}

/// `outcome` and `retryable`: the class the reply comes to.
fn check_class(
    expect: &OpExpect,
    reply: &Reply,
    obs: &OpObservation,
    place: &str,
    out: &mut Vec<Failure>,
) {
    let said = describe_reply(reply, obs);
    if let Some(want) = &expect.outcome {
        let ok = obs.outcome.map(|o| want.allows(o)).unwrap_or(false);
        if !ok {
            let observed = match obs.outcome {
                Some(o) => o.to_string(),
                None => unclassified(reply),
            };
            out.push(
                Failure::new(place, "outcome", want.describe(), observed).evidence([said.clone()]),
            );
        }
    }
    if let Some(want) = expect.retryable {
        let got = reply
            .retryable
            .or_else(|| obs.outcome.map(|o| o.default_retryable()));
        if got != Some(want) {
            out.push(
                Failure::new(
                    place,
                    "retryable",
                    want.to_string(),
                    got.map(|g| g.to_string())
                        .unwrap_or_else(|| "not stated".into()),
                )
                .evidence([said]),
            );
        }
    }
}

/// Why a reply has no outcome class, naming its cause: a failure of the harness's
/// bridge to a driverless adapter is that failure (the adapter's config has nothing to
/// map); an adapter's error name is one its config's `[errors]` does not map.
fn unclassified(reply: &Reply) -> String {
    match &reply.error {
        Some(e) if crate::bridge::BridgeFailure::is_named(&e.name) => format!(
            "no outcome class: the bridge to the adapter failed, no result came — {}: {}",
            e.name, e.message
        ),
        Some(e) => format!(
            "no outcome class: the error `{}` has no `outcome`, and the adapter config's `[errors]` does not map it",
            e.name
        ),
        None => "no outcome class (no `outcome`, and no error)".into(),
    }
}

/// `error_name` and `message_contains`: what the reply's error says.
fn check_error(expect: &OpExpect, reply: &Reply, place: &str, out: &mut Vec<Failure>) {
    if let Some(want) = &expect.error_name {
        let got = reply.error.as_ref().map(|e| e.name.as_str());
        if got != Some(want.as_str()) {
            out.push(Failure::new(
                place,
                "error_name",
                want.clone(),
                got.unwrap_or("no error").to_string(),
            ));
        }
    }
    if let Some(want) = &expect.message_contains {
        // The hint is part of what the user reads: search both.
        let (msg, hint) = reply
            .error
            .as_ref()
            .map(|e| (e.message.clone(), e.hint.clone().unwrap_or_default()))
            .unwrap_or_default();
        let want_lc = want.to_lowercase();
        if !msg.to_lowercase().contains(&want_lc) && !hint.to_lowercase().contains(&want_lc) {
            out.push(Failure::new(
                place,
                "message_contains",
                format!("a message or hint containing {want:?}"),
                if hint.is_empty() {
                    format!("{msg:?}")
                } else {
                    format!("{msg:?} (hint {hint:?})")
                },
            ));
        }
    }
}

fn check_output(
    expect: &OpExpect,
    reply: &Reply,
    work_dir: &Path,
    place: &str,
    out: &mut Vec<Failure>,
) {
    let image = reply.result.image.as_ref().map(|p| {
        let p = Path::new(p);
        if p.is_relative() {
            work_dir.join(p)
        } else {
            p.to_path_buf()
        }
    });
    // Decoded at most once, however many expectations look at it.
    let decoded = std::cell::OnceCell::new();
    let decode = |p: &Path| decoded.get_or_init(|| decode_jpeg(p)).clone();
    match (expect.output, &image) {
        (None, _) => {}
        (Some(OutputExpect::Absent), None) => {}
        (Some(OutputExpect::Absent), Some(p)) => out.push(Failure::new(
            place,
            "output",
            "no output file",
            format!("`{}`", p.display()),
        )),
        (Some(_), None) => out.push(Failure::new(
            place,
            "output",
            "an output file in `result.image`",
            "no `result.image` in the reply",
        )),
        (Some(OutputExpect::Present), Some(p)) => {
            if !p.is_file() {
                out.push(Failure::new(
                    place,
                    "output",
                    "the file named by `result.image` exists",
                    format!("`{}` does not exist", p.display()),
                ));
            }
        }
        (Some(OutputExpect::Decodable), Some(p)) => {
            if let Err(e) = decode(p) {
                out.push(Failure::new(
                    place,
                    "output",
                    "a decodable JPEG",
                    e.to_string(),
                ));
            }
        }
    }
    if let (Some([w, h]), Some(p)) = (expect.image_size, &image) {
        match decode(p) {
            Ok((gw, gh)) if (gw, gh) == (w, h) => {}
            Ok((gw, gh)) => out.push(Failure::new(
                place,
                "image_size",
                format!("{w}×{h}"),
                format!("{gw}×{gh}"),
            )),
            Err(e) => out.push(Failure::new(
                place,
                "image_size",
                format!("{w}×{h}"),
                e.to_string(),
            )),
        }
    }
}

/// The expectations of one op that its reply gave nothing to judge against: shown as
/// "not judged", never as held.
pub fn unjudged(expect: &OpExpect, obs: &OpObservation) -> Vec<String> {
    let Ok(reply) = &obs.reply else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if expect.usage.is_some() && reply.result.usage.is_none() {
        out.push(format!(
            "op {} {}: usage — the reply carries no usage figures",
            obs.index, obs.name
        ));
    }
    out
}

/// `usage = { … }`: the reply's own usage figures, when it reports any, are this turn's.
fn check_usage(expect: &OpExpect, reply: &Reply, place: &str, out: &mut Vec<Failure>) {
    let (Some(want), Some(got)) = (&expect.usage, &reply.result.usage) else {
        return;
    };
    let pairs = [
        ("input_tokens", want.input_tokens, got.input_tokens),
        ("output_tokens", want.output_tokens, got.output_tokens),
        ("total_tokens", want.total_tokens, got.total_tokens),
    ];
    for (name, want, got) in pairs {
        if let (Some(w), Some(g)) = (want, got) {
            if w != g {
                out.push(
                    Failure::new(place, "usage", format!("{name} = {w}"), format!("{name} = {g}"))
                        .closest(if g > w {
                            "more than this turn's own usage: tokens of another turn (a late step?) were added"
                        } else {
                            "less than this turn's own usage"
                        }),
                );
            }
        }
    }
}

fn check_restore(expect: &OpExpect, reply: &Reply, place: &str, out: &mut Vec<Failure>) {
    let name = |s: Option<agy_protocol::driver::AcpRestoreState>| {
        s.and_then(|s| serde_json::to_value(s).ok())
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "none (no `result.restore_state`)".into())
    };
    if let Some(want) = expect.restore_state {
        if reply.result.restore_state != Some(want) {
            out.push(
                Failure::new(
                    place,
                    "restore_state",
                    name(Some(want)),
                    name(reply.result.restore_state),
                )
                .evidence(
                    reply
                        .error
                        .as_ref()
                        .map(|e| format!("{}: {}", e.name, e.message)),
                ),
            );
        }
    }
    if let Some(want) = expect.history_gaps {
        let history = reply.result.history.as_deref().unwrap_or_default();
        let gaps = history.iter().filter(|x| x.role == "gap").count();
        if gaps != want as usize {
            out.push(
                Failure::new(
                    place,
                    "history_gaps",
                    format!("{want} gap entr(ies) in the reply's history"),
                    format!("{gaps}"),
                )
                .evidence(
                    history
                        .iter()
                        .map(|x| format!("{} (turn {:?}): {:?}", x.role, x.turn, x.text)),
                ),
            );
        }
    }
}

fn check_text(expect: &OpExpect, reply: &Reply, place: &str, out: &mut Vec<Failure>) {
    let text = reply.result.text.clone().unwrap_or_default();
    if let Some(want) = &expect.text {
        if text.trim_end() != want.trim_end() {
            let f = Failure::new(place, "text", format!("{want:?}"), format!("{text:?}"));
            let f = if text.contains(want.as_str()) {
                f.closest(format!(
                    "the expected text is inside the observed one, with {:?} around it",
                    text.replacen(want.as_str(), "…", 1)
                ))
            } else {
                f
            };
            out.push(f);
        }
    }
    for want in &expect.text_contains {
        if !text.contains(want.as_str()) {
            out.push(Failure::new(
                place,
                "text_contains",
                format!("text containing {want:?}"),
                format!("{text:?}"),
            ));
        }
    }
    for bad in &expect.text_lacks {
        if text.contains(bad.as_str()) {
            out.push(Failure::new(
                place,
                "text_lacks",
                format!("text without {bad:?}"),
                format!("{text:?}"),
            ));
        }
    }
}

/// `failure (transient, retryable) — ProviderTransientError: "…"`.
pub fn describe_reply(reply: &Reply, obs: &OpObservation) -> String {
    let class = obs
        .outcome
        .map(|o| o.to_string())
        .unwrap_or_else(|| "unclassified".into());
    let retry = match reply.retryable {
        Some(true) => ", retryable",
        Some(false) => ", not retryable",
        None => "",
    };
    let head = if reply.ok { "ok" } else { "failed" };
    match &reply.error {
        Some(e) => format!(
            "reply {head} ({class}{retry}) — {}: {:?}",
            e.name, e.message
        ),
        None => format!("reply {head} ({class}{retry})"),
    }
}

pub(crate) fn join(pids: &[u32]) -> String {
    pids.iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::OutcomeSet;
    use agy_protocol::driver::{ErrorInfo, OpResult, Outcome};

    fn obs(reply: Reply, outcome: Option<Outcome>) -> OpObservation {
        OpObservation {
            index: 1,
            name: "generate",
            sent_us: 0,
            replied_us: 0,
            reply: Ok(reply),
            outcome,
            still_running: None,
        }
    }

    fn failed(outcome: Outcome, name: &str) -> Reply {
        Reply {
            id: 1,
            ok: false,
            outcome: Some(outcome),
            retryable: Some(outcome.default_retryable()),
            error: Some(ErrorInfo {
                name: name.into(),
                message: "m".into(),
                hint: None,
            }),
            result: OpResult::default(),
        }
    }

    #[test]
    fn a_usage_expectation_without_usage_in_the_reply_is_not_judged_and_not_broken() {
        let e = OpExpect {
            usage: Some(crate::scenario::UsageExpect {
                output_tokens: Some(7),
                ..Default::default()
            }),
            ..OpExpect::default()
        };
        let mut ok = failed(Outcome::Auth, "x");
        ok.ok = true;
        ok.error = None;
        let o = obs(ok, None);
        assert!(check_op(&e, &o, Path::new("/")).is_empty());
        let said = unjudged(&e, &o);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].starts_with("op 1 generate: usage"), "{said:?}");
        assert!(unjudged(&OpExpect::default(), &o).is_empty());
    }

    #[test]
    fn a_bridge_failure_is_named_as_the_cause_not_as_a_missing_errors_entry() {
        let e = OpExpect {
            outcome: Some(OutcomeSet::One(Outcome::Success)),
            ..OpExpect::default()
        };
        let mut bridge = failed(Outcome::Transient, "McpError");
        (bridge.outcome, bridge.retryable) = (None, None);
        bridge.error = Some(ErrorInfo {
            name: "McpError".into(),
            message: "tools/call of `agy` failed (no tool result): connection closed".into(),
            hint: None,
        });
        let f = check_op(&e, &obs(bridge, None), Path::new("/"));
        assert_eq!(
            f[0].observed,
            "no outcome class: the bridge to the adapter failed, no result came — McpError: tools/call of `agy` failed (no tool result): connection closed"
        );
        let mut unmapped = failed(Outcome::Transient, "QuotaError");
        unmapped.outcome = None;
        let f = check_op(&e, &obs(unmapped, None), Path::new("/"));
        assert!(f[0].observed.contains("`QuotaError`"), "{}", f[0].observed);
        assert!(f[0].observed.contains("`[errors]`"), "{}", f[0].observed);
    }

    #[test]
    fn wrong_outcome_names_expected_observed_and_the_error() {
        let e = OpExpect {
            outcome: Some(OutcomeSet::One(Outcome::Timeout)),
            retryable: Some(true),
            ..OpExpect::default()
        };
        let f = check_op(
            &e,
            &obs(
                failed(Outcome::OutputMissing, "ProviderOutputMissingError"),
                Some(Outcome::OutputMissing),
            ),
            Path::new("/"),
        );
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].headline(), "op 1 generate: outcome");
        assert_eq!(f[0].expected, "timeout");
        assert_eq!(f[0].observed, "output_missing");
        assert!(
            f[0].evidence[0].contains("ProviderOutputMissingError"),
            "{}",
            f[0]
        );
        assert_eq!(f[1].expectation, "retryable");
    }

    #[test]
    fn matching_reply_has_no_failures() {
        let e = OpExpect {
            outcome: Some(OutcomeSet::Any(vec![Outcome::Transient, Outcome::Timeout])),
            retryable: Some(true),
            output: Some(OutputExpect::Absent),
            ..OpExpect::default()
        };
        assert!(check_op(
            &e,
            &obs(failed(Outcome::Transient, "X"), Some(Outcome::Transient)),
            Path::new("/")
        )
        .is_empty());
    }

    #[test]
    fn missing_output_file_is_reported() {
        let mut r = failed(Outcome::Success, "");
        r.ok = true;
        r.error = None;
        r.result.image = Some("/nonexistent/x.jpg".into());
        let e = OpExpect {
            output: Some(OutputExpect::Decodable),
            ..OpExpect::default()
        };
        let f = check_op(&e, &obs(r, Some(Outcome::Success)), Path::new("/"));
        assert_eq!(f.len(), 1);
        assert!(f[0].observed.contains("cannot read"), "{}", f[0]);
    }

    #[test]
    fn carried_over_text_shows_the_closest_miss() {
        let mut r = failed(Outcome::Success, "");
        r.result.text = Some("first answer second answer".into());
        let e = OpExpect {
            text: Some("second answer".into()),
            ..OpExpect::default()
        };
        let f = check_op(&e, &obs(r, Some(Outcome::Success)), Path::new("/"));
        assert!(
            f[0].closest
                .as_deref()
                .unwrap_or("")
                .contains("first answer"),
            "{}",
            f[0]
        );
    }
}
