//! `agent_new`'s `cwd` and `[expect.journal] cwd_is`: a session folder is read as the
//! driver protocol spells it, one outside the work directory fails at load located at
//! its value, and no value of either key makes the parser panic.

use super::model::{CwdIs, OpAction, Scenario};
use super::parse::{parse_scenario, render_scenario};
use agy_protocol::diag::{Diagnostics, SourceFile};
use agy_protocol::driver::RequestOp;
use proptest::prelude::*;
use std::path::Path;

fn parse(text: &str) -> Result<Scenario, Diagnostics> {
    parse_scenario(&SourceFile::new("s.toml", text), Path::new("s.toml"))
}

/// An acp-agent scenario whose session is created with `new` and judged by `journal`.
fn scenario(new: &str, journal: &str) -> String {
    format!(
        "[scenario]\nname = \"acp-agent/x\"\nprofile = \"acp-agent\"\n\n[[op]]\nagent_new = {new}\n\n\
         [[op]]\nagent_prompt = {{ text = \"hi\" }}\n\n[expect.journal]\n{journal}\n"
    )
}

#[test]
fn a_session_folder_and_cwd_is_session_are_read() {
    let s = parse(&scenario(
        "{ cwd = \"projects/alpha\" }",
        "cwd_is = \"session\"",
    ))
    .expect("parses");
    let OpAction::Request(RequestOp::AgentNew { cwd, .. }) = &s.ops[0].action else {
        panic!("{:?}", s.ops[0].action);
    };
    assert_eq!(cwd.as_deref(), Some("projects/alpha"));
    let journal = s.expect.journal.expect("journal");
    assert_eq!(journal.cwd_is, Some(CwdIs::Session));
}

#[test]
fn a_session_folder_outside_the_work_directory_is_located_at_its_value() {
    for folder in ["/etc/project", "../elsewhere", "a/../../b"] {
        let text = scenario(&format!("{{ cwd = \"{folder}\" }}"), "invocations = 1");
        let err = parse(&text).expect_err(folder);
        assert_eq!(err.0.len(), 1, "{err}");
        let shown = err.to_string();
        assert!(shown.contains("inside the work directory"), "{shown}");
        assert!(
            shown.contains("s.toml:6:"),
            "located at the op's line: {shown}"
        );
    }
}

#[test]
fn a_misspelt_cwd_is_is_located_with_the_values_accepted() {
    let err = parse(&scenario("{}", "cwd_is = \"sesion\"")).expect_err("refused");
    let shown = err.to_string();
    assert!(shown.contains("sesion"), "{shown}");
    assert!(shown.contains("session"), "{shown}");
}

proptest! {
    #[test]
    fn any_cwd_value_never_panics(folder in "\\PC{0,16}", cwd_is in "\\PC{0,10}") {
        let new = format!("{{ cwd = {} }}", toml::Value::String(folder));
        let journal = format!("cwd_is = {}", toml::Value::String(cwd_is));
        let _ = parse(&scenario(&new, &journal));
    }

    #[test]
    fn a_rendered_session_folder_parses_back_equal(folder in "[a-z0-9]{1,6}(/[a-z0-9]{1,6}){0,2}") {
        let s = parse(&scenario(&format!("{{ cwd = \"{folder}\" }}"), "cwd_is = \"session\"")).expect("parses");
        let text = render_scenario(&s).expect("renders");
        let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&back.expect, &s.expect);
        prop_assert_eq!(&back.ops[0].action, &s.ops[0].action);
    }
}
