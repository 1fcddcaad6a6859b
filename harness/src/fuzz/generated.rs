//! A generated case of any profile, its strategy and its scenario file: agy-driven
//! cases (`oneshot`, `session`) and ACP cases, chosen by the profile's oracle.

use super::acp_case::{acp_case, AcpCase};
use super::case::{oneshot_case, session_case, Case};
use super::text_case::{text_case, TextCase};
use super::tool_case::{render_tool, tool_case, ToolCase};
use crate::profile::{unit, Oracle};
use crate::scenario::Profile;
use proptest::strategy::{BoxedStrategy, Strategy};

/// A case of one profile.
#[derive(Clone, PartialEq, Eq)]
pub struct Generated {
    /// The profile it was generated for.
    pub profile: Profile,
    /// What agy (or the ACP agent) does and the ops sent.
    pub case: GeneratedCase,
}

/// What a generated case holds, by the oracle that judges it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GeneratedCase {
    /// `oneshot` or `session`: what agy does and the ops sent.
    Agy(Case),
    /// `acp`: what the ACP agent does and the ops sent.
    Acp(AcpCase),
    /// `text`: what each print run does, one ask each.
    Text(TextCase),
    /// `mcp`: what agy does for each tool call.
    Tool(ToolCase),
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
        match &self.case {
            GeneratedCase::Agy(c) => {
                super::render::render(self.profile, c, name, description, comment)
            }
            GeneratedCase::Acp(c) => {
                super::acp_render::render_acp(self.profile, c, name, description, comment)
            }
            GeneratedCase::Text(c) => {
                super::text_case::render_text(self.profile, c, name, description, comment)
            }
            GeneratedCase::Tool(c) => render_tool(self.profile, c, name, description, comment),
        }
    }
}

/// The cases of `profile`; `None` for a contract with no generator yet (acp-agent).
pub fn strategy(profile: Profile) -> Option<BoxedStrategy<Generated>> {
    let cases = match unit(profile).oracle {
        Oracle::ImageProvider => oneshot_case().prop_map(GeneratedCase::Agy).boxed(),
        Oracle::PersistentDriver => session_case().prop_map(GeneratedCase::Agy).boxed(),
        Oracle::Restore => acp_case().prop_map(GeneratedCase::Acp).boxed(),
        Oracle::TextClient => text_case().prop_map(GeneratedCase::Text).boxed(),
        Oracle::ToolResult => tool_case().prop_map(GeneratedCase::Tool).boxed(),
        Oracle::EditorAgent => return None,
    };
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
