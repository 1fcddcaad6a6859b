//! Premises and capabilities: what a scenario needs of an adapter to apply
//! (`requires = [...]` in `[scenario]`), and what an adapter offers (`offers = [...]` in
//! an adapter config's `[adapter]`, or what `agy-harness check` observes). One closed
//! vocabulary, spelled once here (docs/contract.md, "Premises and capabilities").
//!
//! A scenario whose premise the adapter does not offer is *not applicable*: never failed,
//! never counted as passed.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One thing an adapter may offer its caller, and a scenario may need to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Premise {
    /// The caller gives each request a timeout (`timeout_s`) that the adapter honours.
    CallerTimeout,
    /// The caller picks the model, and the adapter passes it to agy (`--model`).
    ModelChoice,
    /// The caller picks the reasoning effort, and the adapter passes it (`--effort`).
    EffortChoice,
    /// The adapter continues an agy conversation (`--conversation`, `--continue`).
    Continuation,
    /// The caller may skip agy's permission prompts (`--dangerously-skip-permissions`).
    SkipPermissions,
    /// The adapter runs agy with `--output-format text` (or none).
    OutputText,
    /// The adapter runs agy with `--output-format json`.
    OutputJson,
    /// The adapter runs agy with `--output-format stream-json`.
    OutputStreamJson,
    /// The adapter serves two requests at once.
    Concurrency,
    /// The caller can cancel a running request.
    Cancel,
    /// The adapter tells a sign-in failure apart from other failures.
    ErrorClassAuth,
    /// The adapter tells an exhausted quota apart from other failures.
    ErrorClassQuota,
    /// The adapter tells a rejected model apart from other failures.
    ErrorClassRejectedModel,
    /// The adapter tells a timeout (agy's print timeout, or its own) apart from other
    /// failures.
    ErrorClassTimeout,
}

/// Each premise: its spelling, and what it means (for reports and `check`).
const TABLE: &[(Premise, &str, &str)] = &[
    (
        Premise::CallerTimeout,
        "caller-timeout",
        "the caller gives each request a timeout the adapter honours",
    ),
    (
        Premise::ModelChoice,
        "model-choice",
        "the caller picks the model (`--model`)",
    ),
    (
        Premise::EffortChoice,
        "effort-choice",
        "the caller picks the reasoning effort (`--effort`)",
    ),
    (
        Premise::Continuation,
        "continuation",
        "the adapter continues an agy conversation (`--conversation` or `--continue`)",
    ),
    (
        Premise::SkipPermissions,
        "skip-permissions",
        "the caller may skip agy's permission prompts (`--dangerously-skip-permissions`)",
    ),
    (
        Premise::OutputText,
        "output-mode:text",
        "the adapter reads agy's plain text output",
    ),
    (
        Premise::OutputJson,
        "output-mode:json",
        "the adapter reads agy's JSON envelope (`--output-format json`)",
    ),
    (
        Premise::OutputStreamJson,
        "output-mode:stream-json",
        "the adapter reads agy's event stream (`--output-format stream-json`)",
    ),
    (
        Premise::Concurrency,
        "concurrency",
        "the adapter serves two requests at once",
    ),
    (
        Premise::Cancel,
        "cancel",
        "the caller can cancel a running request",
    ),
    (
        Premise::ErrorClassAuth,
        "error-class:auth",
        "the adapter tells a sign-in failure apart",
    ),
    (
        Premise::ErrorClassQuota,
        "error-class:quota",
        "the adapter tells an exhausted quota apart",
    ),
    (
        Premise::ErrorClassRejectedModel,
        "error-class:rejected-model",
        "the adapter tells a rejected model apart",
    ),
    (
        Premise::ErrorClassTimeout,
        "error-class:timeout",
        "the adapter tells a timeout apart",
    ),
];

/// Every spelling, in [`Premise::ALL`] order.
pub const PREMISE_NAMES: &[&str] = &[
    "caller-timeout",
    "model-choice",
    "effort-choice",
    "continuation",
    "skip-permissions",
    "output-mode:text",
    "output-mode:json",
    "output-mode:stream-json",
    "concurrency",
    "cancel",
    "error-class:auth",
    "error-class:quota",
    "error-class:rejected-model",
    "error-class:timeout",
];

impl Premise {
    /// Every premise, in the order reports and `check` list them.
    pub const ALL: [Premise; 14] = [
        Premise::CallerTimeout,
        Premise::ModelChoice,
        Premise::EffortChoice,
        Premise::Continuation,
        Premise::SkipPermissions,
        Premise::OutputText,
        Premise::OutputJson,
        Premise::OutputStreamJson,
        Premise::Concurrency,
        Premise::Cancel,
        Premise::ErrorClassAuth,
        Premise::ErrorClassQuota,
        Premise::ErrorClassRejectedModel,
        Premise::ErrorClassTimeout,
    ];

    fn row(self) -> &'static (Premise, &'static str, &'static str) {
        TABLE
            .iter()
            .find(|(p, _, _)| *p == self)
            .unwrap_or(&TABLE[0])
    }

    /// The spelling in scenario files and adapter configs.
    pub fn as_str(self) -> &'static str {
        self.row().1
    }

    /// What the premise means, in a sentence fragment.
    pub fn meaning(self) -> &'static str {
        self.row().2
    }

    /// The premise spelt `word`, if any.
    pub fn parse(word: &str) -> Option<Premise> {
        TABLE
            .iter()
            .find(|(_, w, _)| *w == word)
            .map(|(p, _, _)| *p)
    }

    /// The output modes among the premises.
    pub fn is_output_mode(self) -> bool {
        matches!(
            self,
            Premise::OutputText | Premise::OutputJson | Premise::OutputStreamJson
        )
    }
}

crate::spelling::display_as_str!(Premise);

impl Serialize for Premise {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Premise {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Premise, D::Error> {
        let word = String::deserialize(d)?;
        Premise::parse(&word).ok_or_else(|| serde::de::Error::unknown_variant(&word, PREMISE_NAMES))
    }
}

/// The premises of `requires` that `offers` lacks (`offers` of `None`: the adapter
/// declares nothing and is taken to offer everything).
pub fn unmet_premises(requires: &[Premise], offers: Option<&[Premise]>) -> Vec<Premise> {
    match offers {
        None => Vec::new(),
        Some(offers) => requires
            .iter()
            .copied()
            .filter(|p| !offers.contains(p))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_premise_has_one_row_and_one_name_in_order() {
        assert_eq!(TABLE.len(), Premise::ALL.len());
        assert_eq!(PREMISE_NAMES.len(), Premise::ALL.len());
        for (p, name) in Premise::ALL.iter().zip(PREMISE_NAMES) {
            assert_eq!(p.as_str(), *name);
            assert_eq!(Premise::parse(name), Some(*p));
        }
    }

    #[test]
    fn a_misspelt_premise_is_refused_with_the_words_accepted() {
        let e = serde_json::from_str::<Premise>("\"model-choise\"").expect_err("unknown");
        let message = e.to_string();
        assert!(
            message.contains("unknown variant `model-choise`"),
            "{message}"
        );
        assert!(message.contains("`model-choice`"), "{message}");
        assert_eq!(
            serde_json::from_str::<Premise>("\"output-mode:json\"").expect("known"),
            Premise::OutputJson
        );
    }

    #[test]
    fn a_timeout_class_is_a_premise_of_its_own() {
        assert_eq!(
            serde_json::from_str::<Premise>("\"error-class:timeout\"").expect("known"),
            Premise::ErrorClassTimeout
        );
        assert_eq!(Premise::ErrorClassTimeout.as_str(), "error-class:timeout");
        assert_eq!(
            Premise::ErrorClassTimeout.meaning(),
            "the adapter tells a timeout apart"
        );
        assert!(!Premise::ErrorClassTimeout.is_output_mode());
        assert_eq!(
            unmet_premises(
                &[Premise::ErrorClassTimeout],
                Some(&[Premise::ErrorClassAuth])
            ),
            vec![Premise::ErrorClassTimeout]
        );
    }

    #[test]
    fn an_adapter_that_declares_nothing_offers_everything() {
        let requires = [Premise::ModelChoice, Premise::Continuation];
        assert_eq!(unmet_premises(&requires, None), Vec::new());
        assert_eq!(
            unmet_premises(&requires, Some(&[Premise::Continuation])),
            vec![Premise::ModelChoice]
        );
        assert_eq!(
            unmet_premises(&requires, Some(&[])),
            vec![Premise::ModelChoice, Premise::Continuation]
        );
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_word_parses_or_is_refused_without_panicking(word in ".{0,40}") {
            let parsed = Premise::parse(&word);
            prop_assert_eq!(parsed.is_some(), PREMISE_NAMES.contains(&word.as_str()));
            if let Some(p) = parsed {
                prop_assert_eq!(p.as_str(), word.as_str());
            }
        }
    }
}
