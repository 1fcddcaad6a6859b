//! A name from a closed set, misspelt in a scenario, fails at load: located at the
//! value (file:line:col) with a hint naming the values accepted. One test per set
//! (ACP methods, client methods, permission outcomes, signals, the ops' `permission`),
//! and a proptest that no value of those keys makes the parser panic.

use super::parse::parse_scenario;
use agy_protocol::diag::{Diagnostic, SourceFile};
use proptest::prelude::*;
use std::path::Path;

/// An acp scenario whose op 2 waits with `wait`, ending in `[expect.acp]` `expect`.
fn acp_scenario(wait: &str, expect: &str) -> String {
    format!(
        "[scenario]\nname = \"acp/x\"\nprofile = \"acp\"\n\n[[op]]\nacp_new = {{}}\n\n\
         [[op]]\nacp_prompt = {{ text = \"hi\" }}\nwait_for_acp = {{ method = {wait} }}\n\n\
         [expect.acp]\n{expect}\n"
    )
}

/// The one problem of `text`, which must not load.
fn only_problem(text: &str) -> Diagnostic {
    let err = parse_scenario(&SourceFile::new("s.toml", text), Path::new("s.toml"))
        .expect_err("refused at load");
    assert_eq!(err.0.len(), 1, "{err}");
    err.0[0].clone()
}

/// The 1-based line and column of the first `needle` in `text`.
fn at(text: &str, needle: &str) -> (usize, usize) {
    let offset = text.find(needle).expect("in the text");
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    (
        text[..offset].matches('\n').count() + 1,
        text[line_start..offset].chars().count() + 1,
    )
}

#[test]
fn a_misspelt_acp_method_to_wait_for_is_located_with_the_methods_accepted() {
    let text = acp_scenario("\"session/promt\"", "prompts_sent_once = true");
    let d = only_problem(&text);
    assert_eq!((d.line, d.column), at(&text, "\"session/promt\""), "{d}");
    assert!(
        d.message.contains("unknown ACP method `session/promt`"),
        "{d}"
    );
    let hint = d.hint.unwrap_or_default();
    assert!(hint.contains("did you mean `session/prompt`?"), "{hint}");
    assert!(hint.contains("`session/request_permission`"), "{hint}");
}

#[test]
fn an_ops_permission_is_one_its_family_takes() {
    let text = "[scenario]\nname = \"acp/x\"\nprofile = \"acp\"\n\n[[op]]\nacp_new = { permission = \"alow\" }\n";
    let d = only_problem(text);
    assert_eq!((d.line, d.column), at(text, "\"alow\""), "{d}");
    assert!(d.message.contains("unknown variant `alow`"), "{d}");
    let hint = d.hint.unwrap_or_default();
    assert!(hint.contains("did you mean `allow`?"), "{hint}");
    assert!(hint.contains("`ask`"), "{hint}");
    // `cancel` is the editor's answer (`agent_new`), not an ACP client's.
    let text = text.replace("alow", "cancel");
    assert!(only_problem(&text)
        .message
        .contains("unknown variant `cancel`"));
    let session = "[scenario]\nname = \"session/x\"\nprofile = \"session\"\n\n[[op]]\nopen = { permission = \"skip\" }\n\n[[op]]\nselect = { permission = \"always\" }\n";
    let d = only_problem(session);
    assert_eq!((d.line, d.column), at(session, "\"always\""), "{d}");
    assert!(d.hint.unwrap_or_default().contains("`skip`"));
}

#[test]
fn an_extension_method_is_taken_as_itself() {
    let text = acp_scenario(
        "\"_agy/status\"",
        "methods_never = [\"_agy/reset\"]\nmethod_counts = { \"_agy/ping\" = 0 }",
    );
    let s = parse_scenario(
        &SourceFile::new("s.toml", text.as_str()),
        Path::new("s.toml"),
    )
    .expect("loads");
    let wait = s.ops[1].wait_for_acp.as_ref().expect("a wait");
    assert_eq!(wait.method.as_str(), "_agy/status");
    let acp = s.expect.acp.expect("[expect.acp]");
    assert_eq!(acp.methods_never[0].as_str(), "_agy/reset");
}

#[test]
fn a_misspelt_client_method_is_located_in_each_key_that_takes_one() {
    for (expect, bad) in [
        (
            "methods_in_order = [\"initialize\", \"sesion/load\"]",
            "\"sesion/load\"",
        ),
        (
            "methods_never = [\"session/new\", \"sesion/load\"]",
            "\"sesion/load\"",
        ),
        ("method_counts = { \"sesion/load\" = 1 }", "\"sesion/load\""),
    ] {
        let text = acp_scenario("\"session/prompt\"", expect);
        let d = only_problem(&text);
        assert_eq!(d.line, at(&text, bad).0, "{expect}: {d}");
        assert!(
            d.message.contains("unknown ACP method `sesion/load`"),
            "{d}"
        );
        let hint = d.hint.unwrap_or_default();
        assert!(
            hint.contains("did you mean `session/load`?"),
            "{expect}: {hint}"
        );
    }
}

#[test]
fn a_method_only_the_agent_sends_is_refused_where_the_client_calls_are_counted() {
    let text = acp_scenario("\"session/update\"", "methods_never = [\"session/update\"]");
    let d = only_problem(&text);
    assert_eq!(d.line, at(&text, "methods_never").0, "{d}");
    assert!(
        d.message.contains("`session/update` is sent by the agent"),
        "{d}"
    );
    assert!(d.hint.unwrap_or_default().contains("`session/prompt`"));
}

#[test]
fn a_misspelt_permission_outcome_is_located_with_the_outcomes_accepted() {
    let text = acp_scenario(
        "\"session/prompt\"",
        "permission_outcomes = [\"allow\", \"canceled\"]",
    );
    let d = only_problem(&text);
    assert_eq!(d.line, at(&text, "\"canceled\"").0, "{d}");
    assert!(
        d.message.contains("unknown permission outcome `canceled`"),
        "{d}"
    );
    let hint = d.hint.unwrap_or_default();
    assert!(hint.contains("did you mean `cancelled`?"), "{hint}");
    assert!(
        hint.contains("`opt_0`") && hint.contains("`unanswered`"),
        "{hint}"
    );
}

#[test]
fn a_signal_no_process_can_see_is_located_with_the_signals_accepted() {
    let text = "[scenario]\nname = \"session/x\"\nprofile = \"session\"\n\n[[op]]\nopen = {}\n\n\
                [[expect.invocation]]\nnth = 1\nsignals = [\"SIGTERM\", \"SIGKILL\"]\n";
    let d = only_problem(text);
    assert_eq!(d.line, at(text, "\"SIGKILL\"").0, "{d}");
    assert!(d.message.contains("`SIGKILL`"), "{d}");
    let hint = d.hint.unwrap_or_default();
    assert!(
        hint.contains("`SIGTERM`") && hint.contains("`SIGINT`") && hint.contains("`SIGHUP`"),
        "{hint}"
    );
}

proptest! {
    #[test]
    fn no_value_of_a_named_key_makes_the_parser_panic(
        value in prop_oneof![
            "\\PC{0,24}",
            "(session|_|fs|terminal)/[a-z_]{0,12}",
            "(opt_|SIG)[A-Z0-9+-]{0,4}",
        ],
        key in 0usize..6,
    ) {
        let quoted = format!("{value:?}");
        let text = match key {
            0 => acp_scenario(&quoted, "agents = 1"),
            1 => acp_scenario("\"session/prompt\"", &format!("methods_in_order = [{quoted}]")),
            2 => acp_scenario("\"session/prompt\"", &format!("methods_never = [{quoted}]")),
            3 => acp_scenario("\"session/prompt\"", &format!("method_counts = {{ {quoted} = 1 }}")),
            4 => acp_scenario("\"session/prompt\"", &format!("permission_outcomes = [{quoted}]")),
            _ => format!(
                "[scenario]\nname = \"session/x\"\nprofile = \"session\"\n[[op]]\nopen = {{}}\n\
                 [[expect.invocation]]\nnth = 1\nsignals = [{quoted}]\n"
            ),
        };
        let loaded = parse_scenario(&SourceFile::new("s.toml", text.as_str()), Path::new("s.toml"));
        if let Err(err) = loaded {
            // A refused value is located on a line of the file, with a hint.
            prop_assert!(err.0.iter().all(|d| d.line >= 1 && d.hint.is_some()), "{}", err);
        }
    }
}
