//! The agy command line of one question.

use crate::faults::{Fault, FaultSet};
use agy_protocol::driver::AgyPermission;
use std::ffi::OsString;

/// How agy is asked to print its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// `--output-format json`: one envelope.
    Json,
    /// `--output-format stream-json`: `init`, steps, `result`.
    StreamJson,
    /// No `--output-format`: the answer as plain text, diagnostics on stderr.
    Text,
}

impl OutputMode {
    /// The mode an ask names (`json` when it names none); `Err` for an unknown name.
    pub fn parse(name: Option<&str>) -> Result<OutputMode, String> {
        match name {
            None | Some("json") => Ok(OutputMode::Json),
            Some("stream-json") => Ok(OutputMode::StreamJson),
            Some("text") => Ok(OutputMode::Text),
            Some(other) => Err(format!(
                "unknown output `{other}`; expected `json`, `stream-json` or `text`"
            )),
        }
    }
}

/// How the run continues a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Continuation {
    /// A new conversation.
    New,
    /// `--conversation <id>`: the id agy returned for it.
    Id(String),
    /// `--continue`: the workspace's latest conversation (text mode shows no id).
    Latest,
}

/// Model, effort and permission of one ask.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// `--model`.
    pub model: Option<String>,
    /// `--effort`.
    pub effort: Option<String>,
    /// `skip` for `--dangerously-skip-permissions`.
    pub permission: Option<AgyPermission>,
}

/// `agy -p <prompt> [--output-format json|stream-json] --print-timeout <t>s
/// [--conversation <id> | --continue] [--dangerously-skip-permissions] [--model m]
/// [--effort e]`. `--print-timeout` carries the unscaled timeout: it is agy's clock.
pub fn build_argv(
    prompt: &str,
    mode: OutputMode,
    timeout_s: f64,
    continuation: &Continuation,
    selection: &Selection,
    faults: &FaultSet,
) -> Vec<OsString> {
    let mut argv: Vec<OsString> = vec!["-p".into(), prompt.into()];
    match mode {
        OutputMode::Json => argv.extend(["--output-format".into(), "json".into()]),
        OutputMode::StreamJson => argv.extend(["--output-format".into(), "stream-json".into()]),
        OutputMode::Text => {}
    }
    if !faults.has(Fault::TextDefaultPrintTimeoutAsAnswer)
        && !faults.has(Fault::TextNoBoundOfItsOwn)
    {
        argv.push("--print-timeout".into());
        argv.push(crate::oneshot::print_timeout(timeout_s).into());
    }
    match continuation {
        Continuation::New => {}
        Continuation::Id(id) => argv.extend(["--conversation".into(), id.into()]),
        Continuation::Latest => argv.push("--continue".into()),
    }
    if selection.permission == Some(AgyPermission::Skip)
        || faults.has(Fault::TextSkipPermissionsAlways)
    {
        argv.push("--dangerously-skip-permissions".into());
    }
    if let Some(model) = selection.model.as_deref().filter(|m| !m.is_empty()) {
        argv.extend(["--model".into(), model.into()]);
    }
    if let Some(effort) = selection.effort.as_deref().filter(|e| !e.is_empty()) {
        argv.extend(["--effort".into(), effort.into()]);
    }
    argv
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(argv: &[OsString]) -> Vec<String> {
        argv.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn skip_permissions_only_when_asked() {
        let plain = build_argv(
            "q",
            OutputMode::Json,
            60.0,
            &Continuation::New,
            &Selection::default(),
            &FaultSet::none(),
        );
        assert!(!words(&plain).contains(&"--dangerously-skip-permissions".to_string()));
        let asked = Selection {
            permission: Some(AgyPermission::Skip),
            ..Selection::default()
        };
        let skip = build_argv(
            "q",
            OutputMode::Json,
            60.0,
            &Continuation::New,
            &asked,
            &FaultSet::none(),
        );
        assert!(words(&skip).contains(&"--dangerously-skip-permissions".to_string()));
    }

    #[test]
    fn each_mode_and_continuation_has_its_flags() {
        let sel = Selection::default();
        let none = FaultSet::none();
        let text = words(&build_argv(
            "q",
            OutputMode::Text,
            5.0,
            &Continuation::Latest,
            &sel,
            &none,
        ));
        assert_eq!(text, ["-p", "q", "--print-timeout", "5s", "--continue"]);
        let stream = words(&build_argv(
            "q",
            OutputMode::StreamJson,
            5.0,
            &Continuation::Id("c".into()),
            &sel,
            &none,
        ));
        assert_eq!(
            stream,
            [
                "-p",
                "q",
                "--output-format",
                "stream-json",
                "--print-timeout",
                "5s",
                "--conversation",
                "c"
            ]
        );
        assert!(OutputMode::parse(Some("yaml")).is_err());
    }

    #[test]
    fn the_faults_that_trust_agy_s_default_pass_no_print_timeout() {
        let sel = Selection::default();
        for fault in [
            Fault::TextDefaultPrintTimeoutAsAnswer,
            Fault::TextNoBoundOfItsOwn,
        ] {
            let argv = words(&build_argv(
                "q",
                OutputMode::Json,
                5.0,
                &Continuation::New,
                &sel,
                &FaultSet::of([fault]),
            ));
            assert_eq!(argv, ["-p", "q", "--output-format", "json"], "{fault:?}");
        }
    }
}
