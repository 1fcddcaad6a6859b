//! A generated case of any profile, its strategy and its scenario file: agy-driven
//! cases (`oneshot`, `session`) and ACP cases.

use super::acp_case::{acp_case, AcpCase};
use super::case::{oneshot_case, session_case, Case};
use crate::scenario::Profile;
use proptest::strategy::{BoxedStrategy, Strategy};

/// A case of any profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Generated {
    /// `oneshot` or `session`: what agy does and the ops sent.
    Agy(Case),
    /// `acp`: what the ACP agent does and the ops sent.
    Acp(AcpCase),
}

impl Generated {
    /// The case's profile.
    pub fn profile(&self) -> Profile {
        match self {
            Generated::Agy(c) => c.profile(),
            Generated::Acp(_) => Profile::Acp,
        }
    }

    /// The scenario file, named `name`, with `comment` lines on top.
    pub fn render(&self, name: &str, description: &str, comment: &[String]) -> String {
        match self {
            Generated::Agy(c) => super::render::render(c, name, description, comment),
            Generated::Acp(c) => super::acp_render::render_acp(c, name, description, comment),
        }
    }
}

/// The cases of `profile`.
pub fn strategy(profile: Profile) -> BoxedStrategy<Generated> {
    match profile {
        Profile::Oneshot => oneshot_case().prop_map(Generated::Agy).boxed(),
        Profile::Session => session_case().prop_map(Generated::Agy).boxed(),
        Profile::Acp => acp_case().prop_map(Generated::Acp).boxed(),
    }
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
        fn every_generated_oneshot_case_is_a_valid_scenario(c in strategy(Profile::Oneshot)) {
            let parsed = parses(&c);
            prop_assert!(parsed.is_ok(), "{}", parsed.err().unwrap_or_default());
        }

        #[test]
        fn every_generated_session_case_is_a_valid_scenario(c in strategy(Profile::Session)) {
            let parsed = parses(&c);
            prop_assert!(parsed.is_ok(), "{}", parsed.err().unwrap_or_default());
        }

        #[test]
        fn every_generated_acp_case_is_a_valid_scenario(c in strategy(Profile::Acp)) {
            let parsed = parses(&c);
            prop_assert!(parsed.is_ok(), "{}", parsed.err().unwrap_or_default());
        }
    }
}
