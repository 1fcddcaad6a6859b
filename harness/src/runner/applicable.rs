//! Whether a scenario applies to the adapter (docs/contract.md, "Premises and
//! capabilities"): before the run, its `requires` against the adapter's `offers`; after
//! it, whether the adapter ran agy in a way the scenario does not model (an op's
//! `only_if` that does not hold). A scenario that does not apply is *not applicable*:
//! never failed, never counted as passed.

use crate::adapter_config::AdapterSection;
use crate::report::{ScenarioResult, Status};
use crate::scenario::Scenario;
use agy_protocol::premise::unmet_premises;

/// The start of the note of a scenario that is not applicable.
pub const NOT_APPLICABLE: &str = "not applicable:";

/// Why `s` does not apply to `adapter`, when it requires what the adapter does not
/// offer.
pub(super) fn unoffered(s: &Scenario, adapter: &AdapterSection) -> Option<String> {
    let missing = unmet_premises(&s.meta.requires, adapter.offers.as_deref());
    if missing.is_empty() {
        return None;
    }
    let words: Vec<String> = missing
        .iter()
        .map(|p| format!("`{p}` ({})", p.meaning()))
        .collect();
    Some(format!(
        "{NOT_APPLICABLE} the scenario requires {}, which the adapter config's `offers` does not list",
        words.join(", ")
    ))
}

/// A passing result whose ops were not judged because the adapter ran agy in a way the
/// scenario does not model (`unmodelled`: why, per op) becomes not applicable: nothing
/// the scenario is about was seen. A failing result stays as it is.
pub(super) fn not_applicable_when_unjudged(result: &mut ScenarioResult, unmodelled: &[String]) {
    if result.status != Status::Passed || unmodelled.is_empty() {
        return;
    }
    result.status = Status::NotApplicable;
    result.note = Some(format!("{NOT_APPLICABLE} {}", unmodelled.join("; ")));
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::Premise;

    fn scenario(requires: Vec<Premise>) -> Scenario {
        let src = agy_protocol::diag::SourceFile::new(
            "t.toml",
            "[scenario]\nname = \"text/t\"\nprofile = \"text\"\n[[op]]\nask = { prompt = \"x\", timeout_s = 1 }\n",
        );
        let mut s =
            crate::scenario::parse_scenario(&src, std::path::Path::new("t.toml")).expect("valid");
        s.meta.requires = requires;
        s
    }

    fn adapter(offers: Option<Vec<Premise>>) -> AdapterSection {
        let mut a =
            crate::adapter_config::AdapterConfig::reference(std::path::Path::new("adapter"), &[])
                .adapter;
        a.offers = offers;
        a
    }

    #[test]
    fn a_premise_the_adapter_does_not_offer_makes_the_scenario_not_applicable() {
        let s = scenario(vec![Premise::ModelChoice]);
        let why = unoffered(&s, &adapter(Some(vec![Premise::OutputJson]))).expect("n/a");
        assert!(why.starts_with(NOT_APPLICABLE), "{why}");
        assert!(why.contains("`model-choice`"), "{why}");
        assert_eq!(
            unoffered(&s, &adapter(Some(vec![Premise::ModelChoice]))),
            None
        );
        assert_eq!(unoffered(&s, &adapter(None)), None, "undeclared offers all");
    }

    #[test]
    fn a_pass_with_unjudged_ops_is_not_applicable_and_a_failure_stays_failed() {
        let mut passed = ScenarioResult::bare("t", "t.toml", "text", Status::Passed);
        not_applicable_when_unjudged(&mut passed, &["op 1 ask not judged".into()]);
        assert_eq!(passed.status, Status::NotApplicable);
        assert!(passed.note.as_deref().unwrap_or("").contains("op 1 ask"));
        let mut failed = ScenarioResult::bare("t", "t.toml", "text", Status::Failed);
        not_applicable_when_unjudged(&mut failed, &["op 1 ask not judged".into()]);
        assert_eq!(failed.status, Status::Failed);
        let mut clean = ScenarioResult::bare("t", "t.toml", "text", Status::Passed);
        not_applicable_when_unjudged(&mut clean, &[]);
        assert_eq!(clean.status, Status::Passed);
    }
}
