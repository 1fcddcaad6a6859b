//! The class an MCP tool's error text names: what a host can act on when all it has is
//! `isError` and the text (docs/driver-protocol.md, "mcp"). The words are agy's own
//! (docs/agy-reference.md §2.2) and the plain ones an adapter would use for them.

use agy_protocol::driver::Outcome;
use regex::{Regex, RegexBuilder};
use std::sync::LazyLock;

/// A failure class, as a text names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolClass {
    /// Signed out, authentication required or failed.
    Auth,
    /// Quota or rate limit exhausted.
    Quota,
    /// A timeout: agy's print timeout, or the adapter's own.
    Timeout,
    /// The model was rejected.
    RejectedModel,
    /// A failure whose text names none of the above.
    Other,
}

/// Patterns that name each class, checked in this order: agy's own auth error says
/// `authentication failed or timed out`, so auth comes before timeout. Patterns, not
/// literals: a word is matched whole (`timeout_s` in a validation error is an argument's
/// name, not a timeout; `author` is no `auth`), and a rejected model is a model named
/// with a word of rejection near it, in agy's words (`invalid model selection`, `model
/// nope is not recognized as a known model`, docs/agy-reference.md §1.4) or an adapter's
/// (`unknown agy model`, `Model 'x' is not supported`). A snake_case code is read as its
/// words first (`auth_required`), unless it ends in a unit (`timeout_s`).
const PATTERNS: &[(ToolClass, &str)] = &[
    (
        ToolClass::Auth,
        r"\b(auth|authentication|unauthenticated|not authenticated|sign(ed)?[ -]?(in|out)|log[ -]?in)\b",
    ),
    (
        ToolClass::Quota,
        r"\b(quota|resource[ _]exhausted|rate[ -]?limit(ed)?|429|credits balance)\b",
    ),
    (
        ToolClass::RejectedModel,
        r"\b(invalid|unknown|unsupported|rejected|unrecognized)( \S+){0,2} model\b|\bmodel\b[^.\n]{0,60}\b(not found|not recognized|not supported|not available|is unknown|is invalid|rejected)\b",
    ),
    (ToolClass::Timeout, r"\b(timed out|time ?out|timeouts?)\b"),
];

/// [`PATTERNS`], compiled once (case-insensitive).
static COMPILED: LazyLock<Vec<(ToolClass, Regex)>> = LazyLock::new(|| {
    PATTERNS
        .iter()
        .filter_map(|(class, p)| {
            RegexBuilder::new(p)
                .case_insensitive(true)
                .build()
                .ok()
                .map(|re| (*class, re))
        })
        .collect()
});

/// A snake_case identifier: words joined by `_`.
static SNAKE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+").ok());

/// The last words of an identifier that names a quantity's unit (`timeout_s`,
/// `timeout_seconds`): such an identifier is an argument's name, not a class.
const UNIT_SUFFIXES: &[&str] = &[
    "s", "ms", "sec", "secs", "seconds", "min", "mins", "minutes",
];

/// `text` with each snake_case code split into its words (`auth_required` → `auth
/// required`, `rate_limited` → `rate limited`), so a code an adapter names its class
/// with is matched like prose; an identifier ending in a unit stays whole.
fn words_of_codes(text: &str) -> std::borrow::Cow<'_, str> {
    let Some(snake) = SNAKE.as_ref() else {
        return text.into();
    };
    snake.replace_all(text, |c: &regex::Captures<'_>| {
        let id = &c[0];
        let last = id
            .rsplit('_')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if UNIT_SUFFIXES.contains(&last.as_str()) {
            id.to_string()
        } else {
            id.replace('_', " ")
        }
    })
}

impl ToolClass {
    /// The class `text` names.
    pub fn of(text: &str) -> ToolClass {
        let text = words_of_codes(text);
        COMPILED
            .iter()
            .find(|(_, re)| re.is_match(&text))
            .map(|(class, _)| *class)
            .unwrap_or(ToolClass::Other)
    }

    /// The name the bridge gives the class (the reply's `error.name`).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolClass::Auth => "auth",
            ToolClass::Quota => "quota",
            ToolClass::Timeout => "timeout",
            ToolClass::RejectedModel => "rejected_model",
            ToolClass::Other => "other",
        }
    }

    /// The outcome class of the harness's vocabulary.
    pub fn outcome(self) -> Outcome {
        match self {
            ToolClass::Auth => Outcome::Auth,
            ToolClass::Quota => Outcome::Transient,
            ToolClass::Timeout => Outcome::Timeout,
            ToolClass::RejectedModel | ToolClass::Other => Outcome::Permanent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn agy_s_own_failure_texts_name_their_class() {
        // docs/agy-reference.md §2.2 and §1.4, verbatim.
        let cases = [
            ("authentication failed or timed out", ToolClass::Auth),
            ("Error: authentication required. Run 'agy' to log in, then retry.", ToolClass::Auth),
            ("Individual quota reached. Please upgrade your subscription to increase your limits. Resets in 34m13s.", ToolClass::Quota),
            ("RESOURCE_EXHAUSTED (code 429): quota", ToolClass::Quota),
            ("invalid model selection (--model \"nope\" --effort \"\"): model nope is not recognized as a known model or custom model in settings", ToolClass::RejectedModel),
            ("timeout waiting for response", ToolClass::Timeout),
            ("agy print timeout: empty response", ToolClass::Timeout),
            ("agy failed: CANCELED", ToolClass::Other),
        ];
        for (text, class) in cases {
            assert_eq!(ToolClass::of(text), class, "{text}");
        }
    }

    #[test]
    fn an_adapter_s_own_words_are_classed_by_pattern_not_by_literal() {
        let cases = [
            ("Model 'no-such-model' is not supported. The `model` parameter must be the exact, full model name", ToolClass::RejectedModel),
            ("unknown agy model: gemini-9", ToolClass::RejectedModel),
            ("1 validation error for call[ask]: timeout_s must be greater than or equal to 30", ToolClass::Other),
            ("timeout_seconds: Input should be a valid integer", ToolClass::Other),
            ("see the author's notes", ToolClass::Other),
            ("Antigravity CLI command timed out after 30 seconds", ToolClass::Timeout),
            ("Authentication required. Run `agy` once to log in.", ToolClass::Auth),
            ("rate-limited, retry later", ToolClass::Quota),
            ("agy failed: auth_required", ToolClass::Auth),
            ("{\"error\": \"rate_limited\"}", ToolClass::Quota),
            ("error code RESOURCE_EXHAUSTED", ToolClass::Quota),
            ("max_timeout_ms must be positive", ToolClass::Other),
        ];
        for (text, class) in cases {
            assert_eq!(ToolClass::of(text), class, "{text}");
        }
    }

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(COMPILED.len(), PATTERNS.len());
    }

    #[test]
    fn each_class_maps_to_its_outcome() {
        assert_eq!(ToolClass::Auth.outcome(), Outcome::Auth);
        assert_eq!(ToolClass::Quota.outcome(), Outcome::Transient);
        assert_eq!(ToolClass::Timeout.outcome(), Outcome::Timeout);
        assert_eq!(ToolClass::RejectedModel.outcome(), Outcome::Permanent);
        assert_eq!(ToolClass::Other.outcome(), Outcome::Permanent);
    }

    proptest! {
        #[test]
        fn any_ascii_text_has_one_class_whatever_its_case(s in "[ -~]{0,80}") {
            let c = ToolClass::of(&s);
            prop_assert_eq!(ToolClass::of(&s.to_uppercase()), c);
        }
    }
}
