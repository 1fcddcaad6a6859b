//! The version table the built-in calibrations were written from, kept as the oracle
//! their equivalence test checks them against (`builtin_equivalence`): each versioned
//! behaviour, the first agy version that has it, and its public source
//! (docs/agy-versions.md has the full table with the unverified edges). fake-agy itself
//! reads calibrations (`calibrations/`, docs/calibration-format.md), never this table.
//!
//! Where the record leaves an edge open at the version (between the last version seen
//! without the change and the first seen with it: `agy_protocol::version_evidence`),
//! the modelled side holds unless a side is named.

use agy_protocol::version_evidence::{uncertain_edge, UncertainSide};
use agy_protocol::AgyVersion;

/// A default behaviour that changed between agy versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// A pre-turn error on stderr starts `error: ` (before: `Error: `).
    LowercaseErrorPrefix,
    /// An interrupted turn's result error is `interrupted` (before: `context canceled`).
    InterruptedError,
    /// A turn run by agy's default agent (no `--agent`) has an `unknown` step DONE
    /// right after `user_input`.
    AgentSetupStep,
    /// The first turn of a new conversation has a `checkpoint` step DONE with its own
    /// usage: after the first tool step, or before the result when no tool ran.
    TitleCheckpoint,
    /// The first turn of a new conversation has a `checkpoint` step DONE (duration, no
    /// usage) right after `user_input`.
    UserInputCheckpoint,
    /// The `system_message` at the head of a resumed turn carries `duration_seconds`.
    SystemMessageDuration,
    /// `init.tools` lacks `code_search`, `moma_search` and `skill_search` (1.1.8 lists
    /// them: 59 tools).
    SearchToolsDropped,
    /// `init.tools` lists `ask_custom_permission` (1.1.9: 56 tools without it; 1.1.15:
    /// 57 with it).
    AskCustomPermissionTool,
    /// Usage objects carry `cache_read_tokens` (before: input, output, thinking, total).
    CacheReadTokens,
    /// `agy models` lists model ids, one a line (before: the label alone).
    ModelIdsListed,
    /// `agy models` lists `<id>\t<label>` per line (before: the id alone).
    ModelLabelsBesideIds,
    /// The catalogue has Gemini 3.6 and 3.5 Flash with High/Medium/Low tiers and Gemini
    /// 3.1 Pro High/Low (before: Gemini 3.5 Flash Medium/High/Low, 3.1 Pro Low/High).
    Gemini36Flash,
    /// The catalogue has three Gemini Flash generations, 3.7/3.6/3.5 (before: 3.6/3.5).
    ThreeFlashGenerations,
    /// The model catalogue lists Gemini 3.8/3.7/3.6 Flash (before: 3.7/3.6/3.5).
    Gemini38Family,
    /// `--conversation` with an unknown id warns and mints agy's own id (before: creates
    /// the conversation under the client's id).
    ResumeOnlyConversation,
    /// `--print-timeout` expiry is SUCCESS, empty, exit 0 with a stderr notice (before:
    /// ERROR "timeout waiting for response", exit 1).
    PrintTimeoutSuccess,
    /// A headless denial ends SUCCESS with `denied_actions` (before: CANCELED).
    DenialSuccess,
    /// A denied command's tool error starts `permission check failed for command
    /// "<cmd>": ` (before: `User denied permission to run command:` alone).
    PermissionCheckPrefix,
    /// A denied command's tool step goes ACTIVE → DONE without error (before: ERROR
    /// with a tool error, as a denied MCP call still does).
    DeniedCommandDone,
    /// Image generation is delegated to the built-in `image-generator` subagent: a
    /// `subagent` step, a delegation message, a `system_message`, and the image in the
    /// child conversation's brain dir (before: a direct `generate_image` call).
    ImageSubagent,
    /// `init.tools` has 60 names (adds list_plugin_accounts, run_workflow,
    /// search_marketplace).
    SixtyTools,
    /// Claude Opus/Sonnet 5.5 replace the Claude 4.6 models.
    Claude55Models,
    /// The denial stderr notice adds the allow-rule and `--dangerously-skip-permissions`
    /// advice, each on its own line.
    DenialAdvice,
    /// The denial notice and its advice are one stderr line.
    DenialAdviceOneLine,
    /// A CLI slash command (`/model`, …) on a persistent stdin line ends the session
    /// with an ERROR result and exit 2 (before: unrecorded; the fake sends it as text).
    StreamSlashFatal,
    /// A tier-less model id (`gemini-3.8-flash`) is accepted without `--effort` (before:
    /// "requires --effort").
    TierlessModelAlone,
    /// The signed-out stderr line names `agy` (before: `antigravity`).
    SignInNamesAgy,
    /// Signed out, `agy models` writes its sign-in error on stderr (before: stdout).
    SignedOutModelsStderr,
    /// With no prompt flag and a stdin that is not a terminal, the prompt is read from
    /// stdin and run as one print turn (before: unrecorded; the fake starts the UI).
    StdinPrompt,
    /// `--print ""` (without `--input-format stream-json`) fails `empty prompt` (before:
    /// the prompt is read from stdin).
    EmptyPrintRefused,
    /// Each conversation is the SQLite database `conversations/<id>.db` (before: the
    /// protobuf file `conversations/<id>.pb`).
    ConversationDatabase,
}

/// One row: the behaviour, the first version known to have it, the public source.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// The behaviour.
    pub behaviour: Behaviour,
    /// The first modelled version that has it.
    pub since: AgyVersion,
    /// The first version that no longer has it, for a behaviour recorded only in a
    /// window of versions.
    pub until: Option<AgyVersion>,
    /// Where the evidence is (capture ids of traces/corpus.toml, or a source named in
    /// docs/agy-versions.md); read by the test that keeps the doc in step.
    pub source: &'static str,
}

const fn v(major: u32, minor: u32, patch: u32) -> AgyVersion {
    AgyVersion::new(major, minor, patch)
}

/// The table (docs/agy-versions.md).
pub const TABLE: &[Row] = &[
    Row {
        behaviour: Behaviour::LowercaseErrorPrefix,
        since: v(1, 2, 3),
        until: None,
        source: "gb-1.1.18-effort-bogus (Error:); kp-1.2.3-effort-unsupported, PB (error:)",
    },
    Row {
        behaviour: Behaviour::InterruptedError,
        since: v(1, 1, 28),
        until: None,
        source: "gb-1.1.18-context-canceled (context canceled); kp-1.1.28-interrupted, ut-1.3.1-interrupted-sigint",
    },
    Row {
        behaviour: Behaviour::AgentSetupStep,
        since: v(1, 1, 7),
        until: Some(v(1, 1, 11)),
        source: "fp-1.1.7-stream-json-ok, jd-1.1.9-unknown-conversation, jd-1.1.9-unknown-agent, jd-1.1.9-print-timeout-error; none: jd-1.1.9-review-stream (--agent), am-1.1.11-tools-turn",
    },
    Row {
        behaviour: Behaviour::TitleCheckpoint,
        since: v(1, 1, 7),
        until: Some(v(1, 1, 11)),
        source: "fp-1.1.7-stream-json-ok, jd-1.1.8-adversarial-review, jd-1.1.9-review-stream, jd-1.1.9-unknown-conversation; none: am-1.1.11-tools-turn",
    },
    Row {
        behaviour: Behaviour::UserInputCheckpoint,
        since: v(1, 1, 15),
        until: Some(v(1, 1, 27)),
        source: "nm-1.1.15-plain, nm-1.1.15-structured, gb-1.1.18-run-command-turn, sg-1.1.19-minimal-turn; none: am-1.1.11-tools-turn, kp-1.1.27-list-dir-turn, ao-1.1.27-denied-command",
    },
    Row {
        behaviour: Behaviour::SystemMessageDuration,
        since: v(1, 1, 11),
        until: None,
        source: "jd-1.1.9-resume (none); am-1.1.11-resume-turn, pl-1.2.13-resume-turn",
    },
    Row {
        behaviour: Behaviour::SearchToolsDropped,
        since: v(1, 1, 9),
        until: None,
        source: "jd-1.1.8-adversarial-review (59 tools); jd-1.1.9-review-stream (56)",
    },
    Row {
        behaviour: Behaviour::AskCustomPermissionTool,
        since: v(1, 1, 15),
        until: None,
        source: "jd-1.1.9-review-stream (56, without it); nm-1.1.15-plain, nm-1.1.15-structured (57), sg-1.1.19-*, FM 1.1.22, kp-1.1.27-list-dir-turn",
    },
    Row {
        behaviour: Behaviour::CacheReadTokens,
        since: v(1, 1, 7),
        until: None,
        source: "ua-1.0.16-print-json-ok (none); fp-1.1.7-stream-json-ok, fp-1.1.7-json-envelope, jd-1.1.8-adversarial-review (cache_read_tokens)",
    },
    Row {
        behaviour: Behaviour::ModelIdsListed,
        since: v(1, 1, 7),
        until: None,
        source: "ua-1.0.16-models (labels only); fp-1.1.7-models-piped (ids only)",
    },
    Row {
        behaviour: Behaviour::ModelLabelsBesideIds,
        since: v(1, 1, 13),
        until: None,
        source: "fp-1.1.7-models-piped (ids only); UX (1.1.13), gb-1.1.18-models-text (id, tab, label)",
    },
    Row {
        behaviour: Behaviour::Gemini36Flash,
        since: v(1, 1, 7),
        until: None,
        source: "ua-1.0.16-models (Gemini 3.5 Flash only); fp-1.1.7-models-piped (3.6/3.5)",
    },
    Row {
        behaviour: Behaviour::ThreeFlashGenerations,
        since: v(1, 1, 18),
        until: None,
        source: "fp-1.1.7-models-piped (3.6/3.5); gb-1.1.18-models-text (3.7/3.6/3.5)",
    },
    Row {
        behaviour: Behaviour::Gemini38Family,
        since: v(1, 1, 27),
        until: None,
        source: "1.1.18 models: gb-1.1.18-models-text; 1.1.27: kp-1.1.27-list-dir-turn",
    },
    Row {
        behaviour: Behaviour::ResumeOnlyConversation,
        since: v(1, 2, 0),
        until: None,
        source: "uxnan PR #255 (1.2.7); UX comment (1.1.4)",
    },
    Row {
        behaviour: Behaviour::PrintTimeoutSuccess,
        since: v(1, 2, 0),
        until: None,
        source: "TF S6c (1.2.6), PB print-timeout (1.2.17); HV capture (≤1.1.24)",
    },
    Row {
        behaviour: Behaviour::DenialSuccess,
        since: v(1, 1, 27),
        until: None,
        source: "dm-1.1.27-denied-result, cl-1.2.7-denied-mcp-turn; gb-1.1.18-canceled-denial, FM (1.1.22 CANCELED)",
    },
    Row {
        behaviour: Behaviour::PermissionCheckPrefix,
        since: v(1, 1, 17),
        until: None,
        source: "wo-1.1.13-denied-command-steps (without); pi-1.1.17-denied-turn, ao-1.1.27-denied-command, dm-1.1.27-denied-steps",
    },
    Row {
        behaviour: Behaviour::DeniedCommandDone,
        since: v(1, 2, 8),
        until: None,
        source: "cp-1.2.8-tool-denied, pb-1.2.17-denied-command, pb-1.3.1-denied-command",
    },
    Row {
        behaviour: Behaviour::SixtyTools,
        since: v(1, 2, 16),
        until: None,
        source: "cp-1.2.16-image-subagent (60 tools); pl-1.2.13 (57)",
    },
    Row {
        behaviour: Behaviour::ImageSubagent,
        since: v(1, 2, 16),
        until: None,
        source: "cp-1.2.16-image-subagent, cp-1.2.16-image-subagent-429; changelog 1.2.16; tf-1.2.6-* (direct)",
    },
    Row {
        behaviour: Behaviour::Claude55Models,
        since: v(1, 2, 17),
        until: None,
        source: "pb-1.2.17-error-model-rejected, pb-1.3.1-error-model-rejected",
    },
    Row {
        behaviour: Behaviour::DenialAdvice,
        since: v(1, 1, 5),
        until: None,
        source: "ai-1.1.5-mcp-auto-denied (issue #650), FM 1.1.22 format strings, ut-1.3.1-tools-denied; no record shows the notice without it",
    },
    Row {
        behaviour: Behaviour::DenialAdviceOneLine,
        since: v(1, 3, 1),
        until: None,
        source: "ai-1.1.5-mcp-auto-denied (three lines); ut-1.3.1-tools-denied, ut-1.3.1-accept-edits (one line)",
    },
    Row {
        behaviour: Behaviour::StreamSlashFatal,
        since: v(1, 3, 1),
        until: None,
        source: "ut-1.3.1-stream-slash-fatal",
    },
    Row {
        behaviour: Behaviour::TierlessModelAlone,
        since: v(1, 3, 2),
        until: None,
        source: "ut-1.3.2-slash-prompt-literal; PB judge-module comment (requires --effort)",
    },
    Row {
        behaviour: Behaviour::SignedOutModelsStderr,
        since: v(1, 1, 18),
        until: None,
        source: "fp-1.1.7-models-signed-out (stdout); gobby notes 1.1.18 (stdout empty), pl-1.2.13-models-signed-out",
    },
    Row {
        behaviour: Behaviour::SignInNamesAgy,
        since: v(1, 3, 2),
        until: None,
        source:
            "ut-1.3.2-signed-out (untether unauth); pl-1.2.13-signed-out-stream says 'antigravity'",
    },
    Row {
        behaviour: Behaviour::StdinPrompt,
        since: v(1, 1, 1),
        until: None,
        source: "antigravity-cli issue #582 (1.1.1); arcobaleno64/agy-plugin-cc PRs #23 (1.1.2), #76 (1.1.13); kenn-io/roborev PR #1080",
    },
    Row {
        behaviour: Behaviour::EmptyPrintRefused,
        since: v(1, 1, 1),
        until: None,
        source: "antigravity-cli issue #582 (through 1.1.0 `--print \"\"` read stdin; 1.1.1 changelog, `empty prompt`)",
    },
    Row {
        behaviour: Behaviour::ConversationDatabase,
        since: v(1, 0, 4),
        until: None,
        source: "CHG 1.0.4 (the changelog); AX; antigravity-cli #278",
    },
];

/// True when `version` has `behaviour` on its modelled side.
pub fn has(version: AgyVersion, behaviour: Behaviour) -> bool {
    has_on(version, behaviour, None)
}

/// `has` with the side taken on uncertain edges (`None`: the modelled side).
pub(crate) fn has_on(
    version: AgyVersion,
    behaviour: Behaviour,
    side: Option<UncertainSide>,
) -> bool {
    let modelled = TABLE
        .iter()
        .find(|r| r.behaviour == behaviour)
        .is_some_and(|r| version >= r.since && r.until.is_none_or(|u| version < u));
    let Some(side) = side else {
        return modelled;
    };
    match uncertain_edge(&format!("{behaviour:?}"), version) {
        // After an edge where the behaviour appears it is there; after its end it is not.
        Some(edge) => (side == UncertainSide::After) != edge.ends,
        None => modelled,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::MODELLED_VERSIONS;

    #[test]
    fn every_behaviour_has_one_row() {
        for (i, r) in TABLE.iter().enumerate() {
            assert_eq!(
                TABLE.iter().filter(|x| x.behaviour == r.behaviour).count(),
                1,
                "row {i}"
            );
        }
    }

    #[test]
    fn the_modelled_versions_show_every_edge_of_the_table() {
        // Each behaviour is off in some modelled version and on in another, so a matrix
        // over MODELLED_VERSIONS exercises both sides of every edge.
        for r in TABLE {
            let on = MODELLED_VERSIONS
                .iter()
                .filter(|v| has(**v, r.behaviour))
                .count();
            assert!(
                on > 0 && on < MODELLED_VERSIONS.len(),
                "{:?} is the same in every modelled version",
                r.behaviour
            );
        }
    }

    #[test]
    fn the_doc_lists_every_behaviour_with_its_first_version() {
        let doc = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/agy-versions.md"),
        )
        .expect("docs/agy-versions.md");
        for r in TABLE {
            let name = format!("`{:?}`", r.behaviour);
            let line = doc
                .lines()
                .find(|l| l.contains(&name))
                .unwrap_or_else(|| panic!("docs/agy-versions.md has no row for {name}"));
            assert!(line.contains(&r.since.to_string()), "{name}: {line}");
            assert!(!r.source.is_empty());
        }
    }

    #[test]
    fn each_modelled_edge_lies_inside_the_range_the_record_leaves_open() {
        use agy_protocol::version_evidence::EDGES;
        for r in TABLE {
            let name = format!("{:?}", r.behaviour);
            let edges: Vec<_> = EDGES.iter().filter(|e| e.behaviour == name).collect();
            let starts = edges.iter().find(|e| !e.ends);
            let start = starts.unwrap_or_else(|| {
                panic!("{name} has no evidence range: add its edge to `EDGES` in protocol/src/version_evidence.rs")
            });
            assert!(
                start.last_before.is_none_or(|l| l < r.since) && r.since <= start.first_after,
                "{name}: modelled from {} outside {}",
                r.since,
                start.range()
            );
            if let Some(until) = r.until {
                let end = edges.iter().find(|e| e.ends);
                let end = end.unwrap_or_else(|| {
                    panic!("{name} has no evidence of its end: add its ending edge to `EDGES` in protocol/src/version_evidence.rs")
                });
                assert!(
                    end.last_before.is_none_or(|l| l < until) && until <= end.first_after,
                    "{name}: modelled until {until} outside {}",
                    end.range()
                );
            }
        }
    }

    #[test]
    fn the_knob_picks_a_side_only_where_the_record_is_silent() {
        let b = Behaviour::InterruptedError; // open between 1.1.18 and 1.1.28
        assert!(!has_on(v(1, 1, 20), b, Some(UncertainSide::Before)));
        assert!(has_on(v(1, 1, 20), b, Some(UncertainSide::After)));
        assert!(
            has_on(v(1, 1, 28), b, Some(UncertainSide::Before)),
            "recorded"
        );
        assert!(
            !has_on(v(1, 1, 18), b, Some(UncertainSide::After)),
            "recorded"
        );
        // A window's end: after it the behaviour is gone.
        let w = Behaviour::AgentSetupStep; // with on 1.1.9, without on 1.1.11
        assert!(has_on(v(1, 1, 10), w, Some(UncertainSide::Before)));
        assert!(!has_on(v(1, 1, 10), w, Some(UncertainSide::After)));
    }

    #[test]
    fn recorded_versions_sit_on_the_recorded_side() {
        assert!(
            !has(v(1, 2, 13), Behaviour::SixtyTools),
            "pl-1.2.13: 57 tools"
        );
        assert!(
            has(v(1, 2, 16), Behaviour::SixtyTools),
            "cp-1.2.16: 60 tools"
        );
        assert!(!has(v(1, 2, 7), Behaviour::DeniedCommandDone));
        assert!(has(v(1, 3, 1), Behaviour::Claude55Models));
        assert!(!has(v(1, 1, 18), Behaviour::Gemini38Family));
        assert!(!has(v(1, 0, 16), Behaviour::CacheReadTokens));
        assert!(!has(v(1, 0, 16), Behaviour::ModelIdsListed));
        assert!(has(v(1, 1, 18), Behaviour::ThreeFlashGenerations));
        assert!(has(v(1, 1, 1), Behaviour::StdinPrompt), "issue #582: 1.1.1");
        assert!(!has(v(1, 1, 0), Behaviour::EmptyPrintRefused), "issue #582");
    }
}
