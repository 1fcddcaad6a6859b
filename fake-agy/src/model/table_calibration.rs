//! The calibration the Rust version table describes at a version: the oracle the
//! built-in calibration files are checked against (and were first written from).

use crate::model::models::catalogue_with;
use crate::model::tools::tools_with;
use crate::model::version_model::{has_on, Behaviour, TABLE};
use agy_protocol::calibration::*;
use agy_protocol::version_evidence::{UncertainSide, EDGES};
use agy_protocol::AgyVersion;
use std::collections::BTreeMap;

use Behaviour as B;

fn source(b: Behaviour) -> String {
    TABLE
        .iter()
        .find(|r| r.behaviour == b)
        .map_or(String::new(), |r| r.source.to_string())
}

fn per_field(fields: &[(&str, &[Behaviour])]) -> Option<Sources> {
    let map: BTreeMap<String, String> = fields
        .iter()
        .map(|(f, bs)| {
            (
                f.to_string(),
                bs.iter().map(|b| source(*b)).collect::<Vec<_>>().join("; "),
            )
        })
        .collect();
    Some(Sources::Fields(map))
}

/// The observables of an agy with the behaviours `has` says.
pub fn observables(agy: AgyVersion, has: &dyn Fn(Behaviour) -> bool) -> Calibration {
    let pick = |b: Behaviour, yes: &str, no: &str| if has(b) { yes } else { no }.to_string();
    Calibration {
        calibration: Identity {
            agy,
            covers: None,
            evidence: None,
            unverified: Some(Unverified::All(true)),
        },
        models: models(has),
        init: Init {
            tools: tools_with(has),
            evidence: per_field(&[(
                "tools",
                &[
                    B::SearchToolsDropped,
                    B::AskCustomPermissionTool,
                    B::SixtyTools,
                ],
            )]),
            unverified: None,
        },
        errors: Errors {
            prefix: pick(B::LowercaseErrorPrefix, "error: ", "Error: "),
            interrupted: pick(B::InterruptedError, "interrupted", "context canceled"),
            evidence: per_field(&[
                ("prefix", &[B::LowercaseErrorPrefix]),
                ("interrupted", &[B::InterruptedError]),
            ]),
            unverified: None,
        },
        turns: turns(has),
        denial: denial(has),
        print_timeout: print_timeout(has),
        usage: usage(has),
        files: files(has),
        signed_out: signed_out(has),
        persistent: persistent(has),
        prompt: prompt(has),
        conversation: conversation(has),
        image: image(has),
        unrecorded: Vec::new(),
    }
}

fn models(has: &dyn Fn(Behaviour) -> bool) -> Models {
    let listing = match (has(B::ModelIdsListed), has(B::ModelLabelsBesideIds)) {
        (true, true) => "{id}\t{label}",
        (true, false) => "{id}",
        _ => "{label}",
    };
    Models {
        listing: listing.into(),
        tierless_alone: if has(B::TierlessModelAlone) {
            TierlessAlone::Accepted
        } else {
            TierlessAlone::RequiresEffort
        },
        model: catalogue_with(has)
            .into_iter()
            .map(|m| ModelEntry {
                id: m.id,
                label: m.label,
            })
            .collect(),
        evidence: per_field(&[
            ("listing", &[B::ModelIdsListed, B::ModelLabelsBesideIds]),
            ("tierless_alone", &[B::TierlessModelAlone]),
            (
                "model",
                &[
                    B::Gemini36Flash,
                    B::ThreeFlashGenerations,
                    B::Gemini38Family,
                    B::Claude55Models,
                ],
            ),
        ]),
        unverified: None,
    }
}

fn turns(has: &dyn Fn(Behaviour) -> bool) -> Turns {
    let mut first = Vec::new();
    if has(B::AgentSetupStep) {
        first.push(AddedStep::Unknown);
    }
    if has(B::UserInputCheckpoint) {
        first.push(AddedStep::Checkpoint);
    }
    Turns {
        first_after_user_input: first,
        first_usage_checkpoint: if has(B::TitleCheckpoint) {
            UsageCheckpoint::AfterFirstTool
        } else {
            UsageCheckpoint::None
        },
        resumed_system_message_keys: if has(B::SystemMessageDuration) {
            vec!["duration_seconds".into()]
        } else {
            vec![]
        },
        evidence: per_field(&[
            (
                "first_after_user_input",
                &[B::AgentSetupStep, B::UserInputCheckpoint],
            ),
            ("first_usage_checkpoint", &[B::TitleCheckpoint]),
            ("resumed_system_message_keys", &[B::SystemMessageDuration]),
        ]),
        unverified: None,
    }
}

fn denial(has: &dyn Fn(Behaviour) -> bool) -> Denial {
    let advice = if has(B::DenialAdvice) {
        let gap = if has(B::DenialAdviceOneLine) {
            " "
        } else {
            "\n"
        };
        format!("{gap}Add an allow-rule under permissions.allow in settings.json (e.g. {{action}}(<target>)).{gap}Alternatively, re-run with --dangerously-skip-permissions to auto-approve all tools.")
    } else {
        String::new()
    };
    Denial {
            status: if has(B::DenialSuccess) { EndStatus::Success } else { EndStatus::Canceled },
            notice: format!("jetski: no output produced — a tool required the \"{{action}}\" permission that headless mode cannot prompt for, so it was auto-denied.{advice}"),
            command_step: vec![StepStatus::Active, if has(B::DeniedCommandDone) { StepStatus::Done } else { StepStatus::Error }],
            command_error: if has(B::PermissionCheckPrefix) {
                "permission check failed for command \"{command}\": user denied permission to run command:\n{command}".into()
            } else {
                "User denied permission to run command:\n{command}".into()
            },
            evidence: per_field(&[
                ("status", &[B::DenialSuccess]),
                ("notice", &[B::DenialAdvice, B::DenialAdviceOneLine]),
                ("command_step", &[B::DeniedCommandDone]),
                ("command_error", &[B::PermissionCheckPrefix]),
            ]),
            unverified: None,
        }
}

fn print_timeout(has: &dyn Fn(Behaviour) -> bool) -> PrintTimeout {
    let success = has(B::PrintTimeoutSuccess);
    PrintTimeout {
        status: if success {
            EndStatus::Success
        } else {
            EndStatus::Error
        },
        exit_code: if success { 0 } else { 1 },
        notice: if success {
            "[agy] print timeout after {duration} with turn in progress; returning partial output"
                .into()
        } else {
            "Error: timeout waiting for response".into()
        },
        error: if success {
            String::new()
        } else {
            "timeout waiting for response".into()
        },
        evidence: Some(Sources::All(source(B::PrintTimeoutSuccess))),
        unverified: None,
    }
}

fn usage(has: &dyn Fn(Behaviour) -> bool) -> UsageKeys {
    let mut keys = vec!["input_tokens", "output_tokens", "thinking_tokens"];
    if has(B::CacheReadTokens) {
        keys.push("cache_read_tokens");
    }
    keys.push("total_tokens");
    UsageKeys {
        keys: keys.into_iter().map(String::from).collect(),
        evidence: Some(Sources::All(source(B::CacheReadTokens))),
        unverified: None,
    }
}

fn files(has: &dyn Fn(Behaviour) -> bool) -> Files {
    let pick = |b: Behaviour, yes: &str, no: &str| if has(b) { yes } else { no }.to_string();
    Files {
        conversation: pick(
            B::ConversationDatabase,
            "conversations/{id}.db",
            "conversations/{id}.pb",
        ),
        evidence: Some(Sources::All(source(B::ConversationDatabase))),
        unverified: None,
    }
}

fn signed_out(has: &dyn Fn(Behaviour) -> bool) -> SignedOut {
    let pick = |b: Behaviour, yes: &str, no: &str| if has(b) { yes } else { no }.to_string();
    SignedOut {
        models_error_stream: if has(B::SignedOutModelsStderr) {
            Stream::Stderr
        } else {
            Stream::Stdout
        },
        auth_error: format!(
            "Error: authentication required. Run '{}' to log in, then retry.",
            pick(B::SignInNamesAgy, "agy", "antigravity")
        ),
        evidence: per_field(&[
            ("models_error_stream", &[B::SignedOutModelsStderr]),
            ("auth_error", &[B::SignInNamesAgy]),
        ]),
        unverified: None,
    }
}

fn persistent(has: &dyn Fn(Behaviour) -> bool) -> Persistent {
    Persistent {
        slash_command: if has(B::StreamSlashFatal) {
            SlashOnStdin::Fatal
        } else {
            SlashOnStdin::Text
        },
        slash_exit_code: 2,
        evidence: Some(Sources::All(source(B::StreamSlashFatal))),
        unverified: None,
    }
}

fn prompt(has: &dyn Fn(Behaviour) -> bool) -> PromptInput {
    PromptInput {
        without_flag: if has(B::StdinPrompt) {
            NoPromptFlag::Stdin
        } else {
            NoPromptFlag::Ui
        },
        empty_print: if has(B::EmptyPrintRefused) {
            EmptyPrint::Refused
        } else {
            EmptyPrint::Stdin
        },
        evidence: per_field(&[
            ("without_flag", &[B::StdinPrompt]),
            ("empty_print", &[B::EmptyPrintRefused]),
        ]),
        unverified: None,
    }
}

fn conversation(has: &dyn Fn(Behaviour) -> bool) -> Conversation {
    Conversation {
        unknown_id: if has(B::ResumeOnlyConversation) {
            UnknownConversation::Mint
        } else {
            UnknownConversation::Create
        },
        evidence: Some(Sources::All(source(B::ResumeOnlyConversation))),
        unverified: None,
    }
}

fn image(has: &dyn Fn(Behaviour) -> bool) -> Image {
    Image {
        generation: if has(B::ImageSubagent) {
            ImageGeneration::Subagent
        } else {
            ImageGeneration::Direct
        },
        evidence: Some(Sources::All(source(B::ImageSubagent))),
        unverified: None,
    }
}

/// What the table gives at `v` on `side` of every open edge.
pub fn at(v: AgyVersion, side: Option<UncertainSide>) -> Calibration {
    observables(v, &|b| has_on(v, b, side))
}

/// The versions where some modelled behaviour starts or ends, oldest first.
pub fn range_starts() -> Vec<AgyVersion> {
    let mut out: Vec<AgyVersion> = TABLE
        .iter()
        .flat_map(|r| [Some(r.since), r.until])
        .flatten()
        .collect();
    out.push(AgyVersion::new(0, 0, 0));
    out.sort();
    out.dedup();
    out
}

/// The fields (as TOML) where `a` and `b` differ, with `a`'s values.
fn difference(a: &Calibration, b: &Calibration) -> toml::Table {
    let ta = toml::Table::try_from(a).expect("serializes");
    let tb = toml::Table::try_from(b).expect("serializes");
    let mut out = toml::Table::new();
    for (section, va) in &ta {
        let (Some(toml::Value::Table(sa)), Some(toml::Value::Table(sb))) =
            (Some(va), tb.get(section))
        else {
            continue;
        };
        let fields: toml::Table = sa
            .iter()
            .filter(|(k, v)| *k != "evidence" && *k != "unverified" && sb.get(*k) != Some(*v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !fields.is_empty() && section != "calibration" {
            out.insert(section.clone(), toml::Value::Table(fields));
        }
    }
    out
}

/// The built-in calibration for the versions from `lo` up to `hi` (exclusive): the
/// table's behaviours there, and both sides of every edge open somewhere in them.
pub fn builtin(lo: AgyVersion, hi: Option<AgyVersion>) -> Calibration {
    let mut c = at(lo, None);
    c.calibration.covers = Some(
        match hi {
            Some(hi) => format!(">={lo}, <{hi}"),
            None => format!(">={lo}"),
        }
        .parse()
        .expect("range"),
    );
    c.calibration.unverified = Some(Unverified::All(true));
    let inside = |v: AgyVersion| v >= lo && hi.is_none_or(|h| v < h);
    for e in EDGES {
        let Some(v0) = candidates()
            .into_iter()
            .find(|v| inside(*v) && e.uncertain_at(*v))
        else {
            continue;
        };
        let forced = |s: UncertainSide| {
            observables(v0, &|b| {
                if format!("{b:?}") == e.behaviour {
                    (s == UncertainSide::After) != e.ends
                } else {
                    has_on(v0, b, None)
                }
            })
        };
        let (before, after) = (forced(UncertainSide::Before), forced(UncertainSide::After));
        c.unrecorded.push(Unrecorded {
            change: e.behaviour.to_string(),
            last_before: e.last_before,
            first_after: e.first_after,
            evidence: e.evidence.to_string(),
            before: difference(&before, &after),
            after: difference(&after, &before),
        });
    }
    c
}

/// Every version a test looks at: 0.x and 1.x with patches up to 40.
pub fn candidates() -> Vec<AgyVersion> {
    let mut out = Vec::new();
    for major in 0..=1 {
        for minor in 0..=4 {
            for patch in 0..=40 {
                out.push(AgyVersion::new(major, minor, patch));
            }
        }
    }
    out
}
