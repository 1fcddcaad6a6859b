//! A generated case of any profile: the case its profile's oracle generates
//! ([`crate::profile::ContractOracle::cases`]) and the profile it was generated for.

use crate::profile::{unit, SharedCase};
use crate::scenario::Profile;
use proptest::strategy::{BoxedStrategy, Strategy};

/// A case of one profile.
#[derive(Clone)]
pub struct Generated {
    /// The profile it was generated for.
    pub profile: Profile,
    /// What agy (or the ACP agent) does and the ops sent.
    pub case: SharedCase,
}

// A finding's `case:` comment shows the case alone, as it always has.
impl std::fmt::Debug for Generated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.case.fmt(f)
    }
}

impl Generated {
    /// The case's profile.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The scenario file, named `name`, with `comment` lines on top.
    pub fn render(&self, name: &str, description: &str, comment: &[String]) -> String {
        self.case.render(self.profile, name, description, comment)
    }
}

/// The cases of `profile`; `None` for a contract with no generator yet (acp-agent).
pub fn strategy(profile: Profile) -> Option<BoxedStrategy<Generated>> {
    let cases = unit(profile).oracle.cases()?;
    Some(
        cases
            .prop_map(move |case| Generated { profile, case })
            .boxed(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse_scenario;
    use agy_protocol::diag::SourceFile;
    use proptest::prelude::*;
    use std::path::Path;

    fn parses(c: &Generated) -> Result<(), String> {
        let text = c.render(&format!("{}/fuzz-test", c.profile()), "generated", &[]);
        let path = Path::new("generated.toml");
        parse_scenario(&SourceFile::new("generated.toml", text.clone()), path)
            .map(|_| ())
            .map_err(|d| format!("{d}\n{text}"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn every_generated_oneshot_case_is_a_valid_scenario(c in strategy(Profile::Oneshot).expect("generated")) {
            let parsed = parses(&c);
            prop_assert!(parsed.is_ok(), "{}", parsed.err().unwrap_or_default());
        }

        #[test]
        fn every_generated_text_case_is_a_valid_scenario(c in strategy(Profile::Text).expect("generated")) {
            let parsed = parses(&c);
            prop_assert!(parsed.is_ok(), "{}", parsed.err().unwrap_or_default());
        }

        #[test]
        fn every_generated_session_case_is_a_valid_scenario(c in strategy(Profile::Session).expect("generated")) {
            let parsed = parses(&c);
            prop_assert!(parsed.is_ok(), "{}", parsed.err().unwrap_or_default());
        }

        #[test]
        fn every_generated_acp_case_is_a_valid_scenario(c in strategy(Profile::Acp).expect("generated")) {
            let parsed = parses(&c);
            prop_assert!(parsed.is_ok(), "{}", parsed.err().unwrap_or_default());
        }
    }
}
