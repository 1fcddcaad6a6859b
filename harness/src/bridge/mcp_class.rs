//! The class an MCP tool's error text names: what a host can act on when all it has is
//! `isError` and the text (docs/driver-protocol.md, "mcp"). The words are agy's own
//! (docs/agy-reference.md §2.2) and the plain ones an adapter would use for them.

use agy_protocol::driver::Outcome;

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

/// Words that name each class, checked in this order: agy's own auth error says
/// `authentication failed or timed out`, so auth comes before timeout.
const WORDS: &[(ToolClass, &[&str])] = &[
    (
        ToolClass::Auth,
        &[
            "authentication",
            "unauthenticated",
            "not authenticated",
            "sign in",
            "signed out",
            "log in",
            "login",
            "auth",
        ],
    ),
    (
        ToolClass::Quota,
        &[
            "quota",
            "resource_exhausted",
            "rate limit",
            "429",
            "credits balance",
        ],
    ),
    (
        ToolClass::RejectedModel,
        &[
            "invalid model",
            "unknown model",
            "model not found",
            "rejected model",
            "model is not recognized",
            "not recognized as a known model",
            "unsupported model",
        ],
    ),
    (ToolClass::Timeout, &["timed out", "timeout", "time out"]),
];

impl ToolClass {
    /// The class `text` names.
    pub fn of(text: &str) -> ToolClass {
        let lower = text.to_lowercase();
        WORDS
            .iter()
            .find(|(_, words)| words.iter().any(|w| lower.contains(w)))
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
