//! What the public record says about each versioned behaviour of fake-agy's version
//! model: the last agy version seen without the change and the first seen with it, with
//! the captures or sources (docs/agy-versions.md). Versions strictly between are
//! *uncertain*: the record does not say which side they are on. fake-agy's version
//! model places each change somewhere in its range; `FAKE_AGY_UNCERTAIN` makes it take
//! one side for every uncertain edge, so an adapter can be run under both.

use crate::version::AgyVersion;

/// Which side of an uncertain edge fake-agy takes (`FAKE_AGY_UNCERTAIN`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UncertainSide {
    /// As the last version seen without the change (`before`).
    Before,
    /// As the first version seen with it (`after`).
    After,
}

impl UncertainSide {
    /// Reads `before` or `after`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "before" => Some(UncertainSide::Before),
            "after" => Some(UncertainSide::After),
            _ => None,
        }
    }

    /// The spelling `FAKE_AGY_UNCERTAIN` takes.
    pub fn as_str(&self) -> &'static str {
        match self {
            UncertainSide::Before => "before",
            UncertainSide::After => "after",
        }
    }
}

/// One change of agy's behaviour as the record bounds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// The behaviour's name in fake-agy's version model.
    pub behaviour: &'static str,
    /// `true` when the behaviour disappears at this edge (the end of a window).
    pub ends: bool,
    /// The last version seen on the before side; `None` when nothing earlier is
    /// recorded (every earlier version is uncertain).
    pub last_before: Option<AgyVersion>,
    /// The first version seen on the after side.
    pub first_after: AgyVersion,
    /// The evidence of each side (capture ids of traces/corpus.toml, or sources named
    /// in docs/agy-versions.md).
    pub evidence: &'static str,
}

impl Edge {
    /// True when the record does not say which side `v` is on.
    pub fn uncertain_at(&self, v: AgyVersion) -> bool {
        v < self.first_after && self.last_before.is_none_or(|l| l < v)
    }

    /// The range the record leaves open, e.g. `after 1.1.18, before 1.1.28`.
    pub fn range(&self) -> String {
        match self.last_before {
            Some(l) => format!("after {l}, before {}", self.first_after),
            None => format!("before {}", self.first_after),
        }
    }
}

const fn v(major: u32, minor: u32, patch: u32) -> AgyVersion {
    AgyVersion::new(major, minor, patch)
}

const fn edge(
    behaviour: &'static str,
    last_before: Option<AgyVersion>,
    first_after: AgyVersion,
    evidence: &'static str,
) -> Edge {
    Edge {
        behaviour,
        ends: false,
        last_before,
        first_after,
        evidence,
    }
}

const fn end(
    behaviour: &'static str,
    last_before: AgyVersion,
    first_after: AgyVersion,
    evidence: &'static str,
) -> Edge {
    Edge {
        behaviour,
        ends: true,
        last_before: Some(last_before),
        first_after,
        evidence,
    }
}

/// Every edge of the version model, as the record bounds it (docs/agy-versions.md,
/// "Unknown between").
pub const EDGES: &[Edge] = &[
    edge(
        "CacheReadTokens",
        Some(v(1, 0, 16)),
        v(1, 1, 7),
        "ua-1.0.16-print-json-ok; fp-1.1.7-stream-json-ok, fp-1.1.7-json-envelope",
    ),
    edge(
        "TitleCheckpoint",
        None,
        v(1, 1, 7),
        "fp-1.1.7-stream-json-ok (nothing earlier recorded)",
    ),
    edge(
        "SearchToolsDropped",
        Some(v(1, 1, 8)),
        v(1, 1, 9),
        "jd-1.1.8-adversarial-review (59 tools); jd-1.1.9-review-stream (56)",
    ),
    edge(
        "AgentSetupStep",
        Some(v(1, 0, 16)),
        v(1, 1, 7),
        "ua-1.0.16-print-json-ok; fp-1.1.7-stream-json-ok",
    ),
    edge(
        "SystemMessageDuration",
        Some(v(1, 1, 9)),
        v(1, 1, 11),
        "jd-1.1.9-resume; am-1.1.11-resume-turn",
    ),
    end(
        "AgentSetupStep",
        v(1, 1, 9),
        v(1, 1, 11),
        "jd-1.1.9-unknown-conversation; am-1.1.11-tools-turn",
    ),
    end(
        "TitleCheckpoint",
        v(1, 1, 9),
        v(1, 1, 11),
        "jd-1.1.9-review-stream; am-1.1.11-tools-turn",
    ),
    edge(
        "ModelIdsListed",
        Some(v(1, 0, 16)),
        v(1, 1, 7),
        "ua-1.0.16-models (labels); fp-1.1.7-models-piped (ids)",
    ),
    edge(
        "Gemini36Flash",
        Some(v(1, 0, 16)),
        v(1, 1, 7),
        "ua-1.0.16-models (3.5 Flash only); fp-1.1.7-models-piped (3.6/3.5)",
    ),
    edge(
        "ModelLabelsBesideIds",
        Some(v(1, 1, 7)),
        v(1, 1, 13),
        "fp-1.1.7-models-piped (ids only); UX (1.1.13), gb-1.1.18-models-text",
    ),
    edge(
        "UserInputCheckpoint",
        Some(v(1, 1, 11)),
        v(1, 1, 15),
        "am-1.1.11-tools-turn; nm-1.1.15-plain, nm-1.1.15-structured",
    ),
    edge(
        "ThreeFlashGenerations",
        Some(v(1, 1, 7)),
        v(1, 1, 18),
        "fp-1.1.7-models-piped (3.6/3.5); gb-1.1.18-models-text",
    ),
    edge(
        "AskCustomPermissionTool",
        Some(v(1, 1, 9)),
        v(1, 1, 15),
        "jd-1.1.9-review-stream (56 tools); nm-1.1.15-plain, nm-1.1.15-structured (57)",
    ),
    edge(
        "DenialSuccess",
        Some(v(1, 1, 22)),
        v(1, 1, 27),
        "FM (1.1.22 CANCELED), gb-1.1.18-canceled-denial; dm-1.1.27-denied-result",
    ),
    edge(
        "Gemini38Family",
        Some(v(1, 1, 18)),
        v(1, 1, 27),
        "gb-1.1.18-models-text; kp-1.1.27-list-dir-turn",
    ),
    edge(
        "InterruptedError",
        Some(v(1, 1, 18)),
        v(1, 1, 28),
        "gb-1.1.18-context-canceled; kp-1.1.28-interrupted",
    ),
    end(
        "UserInputCheckpoint",
        v(1, 1, 19),
        v(1, 1, 27),
        "sg-1.1.19-minimal-turn, sg-1.1.19-tool-use; kp-1.1.27-list-dir-turn, ao-1.1.27-denied-command",
    ),
    edge(
        "LowercaseErrorPrefix",
        Some(v(1, 1, 18)),
        v(1, 2, 3),
        "gb-1.1.18-effort-bogus; kp-1.2.3-effort-unsupported",
    ),
    edge(
        "PrintTimeoutSuccess",
        Some(v(1, 1, 24)),
        v(1, 2, 6),
        "HV (<=1.1.24); TF S6c (1.2.6), pb-1.2.17-print-timeout",
    ),
    edge(
        "ResumeOnlyConversation",
        Some(v(1, 1, 4)),
        v(1, 2, 7),
        "UX comment (1.1.4); uxnan PR #255 (1.2.7)",
    ),
    edge(
        "PermissionCheckPrefix",
        Some(v(1, 1, 13)),
        v(1, 1, 17),
        "wo-1.1.13-denied-command-steps; pi-1.1.17-denied-turn, ao-1.1.27-denied-command, dm-1.1.27-denied-steps",
    ),
    edge(
        "DeniedCommandDone",
        Some(v(1, 2, 7)),
        v(1, 2, 8),
        "jd-1.2.7-write-denied; cp-1.2.8-tool-denied",
    ),
    edge(
        "SixtyTools",
        Some(v(1, 2, 13)),
        v(1, 2, 16),
        "pl-1.2.13 captures (57 tools); cp-1.2.16-image-subagent (60)",
    ),
    edge(
        "ImageSubagent",
        Some(v(1, 2, 13)),
        v(1, 2, 16),
        "pl-1.2.13 captures, tf-1.2.6-* (direct); cp-1.2.16-image-subagent, changelog 1.2.16",
    ),
    edge(
        "Claude55Models",
        Some(v(1, 2, 13)),
        v(1, 2, 17),
        "pl-1.2.13 captures; pb-1.2.17-error-model-rejected",
    ),
    edge(
        "DenialAdvice",
        None,
        v(1, 1, 5),
        "no record shows the notice without the advice; ai-1.1.5-mcp-auto-denied",
    ),
    edge(
        "DenialAdviceOneLine",
        Some(v(1, 1, 5)),
        v(1, 3, 1),
        "ai-1.1.5-mcp-auto-denied (three lines); ut-1.3.1-tools-denied (one line)",
    ),
    edge(
        "StreamSlashFatal",
        Some(v(1, 1, 14)),
        v(1, 3, 1),
        "no earlier record (unverified before side); ut-1.3.1-stream-slash-fatal",
    ),
    edge(
        "TierlessModelAlone",
        Some(v(1, 2, 17)),
        v(1, 3, 2),
        "PB judge-module comment (requires --effort); ut-1.3.2-slash-prompt-literal",
    ),
    edge(
        "SignedOutModelsStderr",
        Some(v(1, 1, 7)),
        v(1, 1, 18),
        "fp-1.1.7-models-signed-out (stdout); gobby notes 1.1.18 (stdout empty), pl-1.2.13-models-signed-out",
    ),
    edge(
        "SignInNamesAgy",
        Some(v(1, 2, 13)),
        v(1, 3, 2),
        "pl-1.2.13-signed-out-stream; ut-1.3.2-signed-out",
    ),
    edge(
        "StdinPrompt",
        None,
        v(1, 1, 1),
        "antigravity-cli issue #582 (1.1.1: no prompt flag, piped stdin read as the prompt; nothing earlier recorded)",
    ),
    edge(
        "EmptyPrintRefused",
        Some(v(1, 1, 0)),
        v(1, 1, 1),
        "antigravity-cli issue #582 (through 1.1.0 `--print \"\"` read stdin; 1.1.1 `empty prompt`)",
    ),
    edge(
        "ConversationDatabase",
        Some(v(1, 0, 3)),
        v(1, 0, 4),
        "CHG 1.0.4 (the changelog: SQLite replaces .pb at 1.0.4); AX; antigravity-cli #278",
    ),
];

/// The edges the record leaves open at `v`.
pub fn uncertain_at(v: AgyVersion) -> Vec<&'static Edge> {
    EDGES.iter().filter(|e| e.uncertain_at(v)).collect()
}

/// The edge of `behaviour` that `v` is uncertain on, if any.
pub fn uncertain_edge(behaviour: &str, v: AgyVersion) -> Option<&'static Edge> {
    EDGES
        .iter()
        .find(|e| e.behaviour == behaviour && e.uncertain_at(v))
}

/// The versions the record has evidence at (either side of an edge), oldest first.
pub fn evidence_versions() -> Vec<AgyVersion> {
    let mut out: Vec<AgyVersion> = EDGES
        .iter()
        .flat_map(|e| e.last_before.into_iter().chain([e.first_after]))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The version with evidence nearest to `v` (the older on a tie), and whether `v`
/// itself has evidence.
pub fn nearest_evidence(v: AgyVersion) -> (AgyVersion, bool) {
    let all = evidence_versions();
    if all.contains(&v) {
        return (v, true);
    }
    let distance = |a: AgyVersion| {
        let key = |x: AgyVersion| {
            (x.major as i64) * 1_000_000 + (x.minor as i64) * 1_000 + x.patch as i64
        };
        (key(a) - key(v)).abs()
    };
    let best = all
        .iter()
        .copied()
        .min_by_key(|a| (distance(*a), *a > v))
        .unwrap_or(v);
    (best, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_between_the_last_without_and_the_first_with_are_uncertain() {
        let e = EDGES
            .iter()
            .find(|e| e.behaviour == "InterruptedError")
            .expect("edge");
        assert!(!e.uncertain_at(v(1, 1, 18)));
        assert!(e.uncertain_at(v(1, 1, 19)));
        assert!(e.uncertain_at(v(1, 1, 27)));
        assert!(!e.uncertain_at(v(1, 1, 28)));
        assert_eq!(e.range(), "after 1.1.18, before 1.1.28");
    }

    #[test]
    fn the_record_is_silent_between_recorded_versions_only() {
        // 1.1.23 sits inside several open ranges; 1.3.2 inside none.
        let at = |x| {
            uncertain_at(x)
                .iter()
                .map(|e| e.behaviour)
                .collect::<Vec<_>>()
        };
        assert!(
            at(v(1, 1, 23)).contains(&"DenialSuccess"),
            "{:?}",
            at(v(1, 1, 23))
        );
        assert!(at(v(1, 3, 2)).is_empty(), "{:?}", at(v(1, 3, 2)));
        assert!(at(v(1, 0, 1)).contains(&"TitleCheckpoint"));
    }

    #[test]
    fn an_unmodelled_version_falls_back_to_the_nearest_evidence() {
        assert_eq!(nearest_evidence(v(1, 1, 18)), (v(1, 1, 18), true));
        assert_eq!(nearest_evidence(v(1, 1, 19)), (v(1, 1, 19), true));
        assert_eq!(nearest_evidence(v(1, 1, 20)), (v(1, 1, 19), false));
        assert_eq!(nearest_evidence(v(1, 2, 15)), (v(1, 2, 16), false));
        assert_eq!(nearest_evidence(v(9, 0, 0)), (v(1, 3, 2), false));
    }

    #[test]
    fn every_range_is_ordered_and_sides_parse() {
        for e in EDGES {
            assert!(e.last_before.is_none_or(|l| l < e.first_after), "{e:?}");
        }
        assert_eq!(UncertainSide::parse("after"), Some(UncertainSide::After));
        assert_eq!(UncertainSide::parse("later"), None);
    }
}
