//! What one agy run comes to as an MCP tool result: agy's answer, or `isError` with a
//! text that names the failure's class in the words a host (and the harness's bridge)
//! can act on: `authentication required`, `quota exhausted`, `timeout`, `rejected
//! model` (docs/contract.md, "mcp"). Pure: the run goes in, the text comes out.

use super::run::AgyRun;
use crate::agy_text::mentions_auth;
use crate::faults::{Fault, FaultSet};
use crate::oneshot::parse_envelope;
use agy_protocol::{Envelope, Status};

/// agy's exit code for an exhausted quota (docs/agy-reference.md §2.3).
const QUOTA_EXIT: i32 = 3;
/// agy's stderr line when its print timeout expires, whatever the response holds (1.2.6
/// on, docs/agy-reference.md §2.4).
const PRINT_TIMEOUT_NOTICE: &str = "[agy] print timeout";

/// A tool result's text, and whether it is an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolText {
    /// `isError`.
    pub is_error: bool,
    /// The text.
    pub text: String,
}

impl ToolText {
    fn ok(text: String) -> ToolText {
        ToolText {
            is_error: false,
            text,
        }
    }

    fn error(text: String) -> ToolText {
        ToolText {
            is_error: true,
            text,
        }
    }
}

/// The tool result of `run`, made with `timeout_s` as the call's timeout.
pub fn verdict(run: &AgyRun, timeout_s: f64, faults: &FaultSet) -> ToolText {
    let reads_notice = !faults.has(Fault::McpPartialTimeoutAsAnswer);
    let correct = correct_verdict(run, timeout_s, reads_notice);
    if !correct.is_error {
        return correct;
    }
    if faults.has(Fault::McpEmptySuccess) && correct.text.starts_with(PRINT_TIMEOUT) {
        return ToolText::ok(String::new());
    }
    if faults.has(Fault::McpFailureAsSuccess) {
        return ToolText::ok(correct.text);
    }
    if faults.has(Fault::McpGenericFailureText) {
        let exit = run
            .exit_code
            .map(|c| format!("exit code {c}"))
            .unwrap_or_else(|| "no exit code".into());
        return ToolText::error(format!("agy failed ({exit})"));
    }
    correct
}

const PRINT_TIMEOUT: &str = "timeout: agy's print timeout expired";

fn correct_verdict(run: &AgyRun, timeout_s: f64, reads_notice: bool) -> ToolText {
    if let Some(why) = &run.not_started {
        return ToolText::error(format!("agy could not be started: {why}"));
    }
    if run.killed {
        return ToolText::error(format!(
            "timeout: agy did not finish within {timeout_s} s and was stopped"
        ));
    }
    match parse_envelope(&run.stdout) {
        Ok(env) => envelope_verdict(&env, run, reads_notice),
        Err(why) if mentions_auth(&run.stderr) => ToolText::error(format!(
            "authentication required: agy is signed out ({why}; stderr: {})",
            run.stderr.trim()
        )),
        Err(why) => ToolText::error(format!(
            "agy failed: no result ({why}; exit {:?}; stderr: {})",
            run.exit_code,
            run.stderr.trim()
        )),
    }
}

fn envelope_verdict(env: &Envelope, run: &AgyRun, reads_notice: bool) -> ToolText {
    let exit = run.exit_code;
    match &env.status {
        Status::Success if exit != Some(0) => {
            ToolText::error(format!("agy failed: a SUCCESS result with exit {exit:?}"))
        }
        // §2.4: the notice marks the timeout; the response is what had been produced.
        Status::Success if reads_notice && run.stderr.contains(PRINT_TIMEOUT_NOTICE) => {
            ToolText::error(format!(
                "{PRINT_TIMEOUT} (agy's notice on stderr; a partial answer is not the answer)"
            ))
        }
        // S6c: SUCCESS, an empty response, zero tokens (before 1.1.8 `usage` has no
        // `cache_read_tokens`: the total is what is compared).
        Status::Success if env.response.trim().is_empty() && env.usage.total_tokens == 0 => {
            ToolText::error(format!(
                "{PRINT_TIMEOUT} (SUCCESS with an empty response and zero usage)"
            ))
        }
        Status::Success if env.response.trim().is_empty() => {
            ToolText::error("agy failed: SUCCESS with an empty answer".to_string())
        }
        Status::Success => ToolText::ok(env.response.clone()),
        Status::Error => error_verdict(&env.error, run),
        other => ToolText::error(format!("agy failed: status {other:?}: {}", env.error)),
    }
}

fn error_verdict(error: &str, run: &AgyRun) -> ToolText {
    let lower = error.to_ascii_lowercase();
    if mentions_auth(error) || mentions_auth(&run.stderr) {
        ToolText::error(format!("authentication required: {error}"))
    } else if run.exit_code == Some(QUOTA_EXIT) || lower.contains("quota") {
        ToolText::error(format!("quota exhausted: {error}"))
    } else if lower.contains("invalid model selection") {
        ToolText::error(format!("rejected model: {error}"))
    } else if lower.contains("timeout") || lower.contains("timed out") {
        ToolText::error(format!("timeout: {error}"))
    } else {
        ToolText::error(format!("agy failed: {error}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(exit: i32, stdout: &str, stderr: &str) -> AgyRun {
        AgyRun {
            exit_code: Some(exit),
            stdout: stdout.into(),
            stderr: stderr.into(),
            ..AgyRun::default()
        }
    }

    const ZERO: &str = r#""usage":{"input_tokens":0,"output_tokens":0,"thinking_tokens":0,"cache_read_tokens":0,"total_tokens":0}"#;

    fn envelope(status: &str, response: &str, error: &str, usage: &str) -> String {
        format!(
            r#"{{"conversation_id":"c","status":"{status}","response":"{response}","error":"{error}","duration_seconds":1,"num_turns":1,{usage}}}"#
        )
    }

    #[test]
    fn each_failure_names_its_class() {
        let none = FaultSet::none();
        let real = r#""usage":{"input_tokens":5,"output_tokens":2,"thinking_tokens":0,"cache_read_tokens":0,"total_tokens":7}"#;
        let cases = [
            (
                run(0, &envelope("SUCCESS", "PONG", "", real), ""),
                false,
                "PONG",
            ),
            (
                run(0, &envelope("SUCCESS", "", "", ZERO), ""),
                true,
                "timeout",
            ),
            (
                run(
                    1,
                    &envelope("ERROR", "", "authentication failed or timed out", ZERO),
                    "",
                ),
                true,
                "authentication required",
            ),
            (
                run(
                    3,
                    &envelope("ERROR", "", "Individual quota reached.", real),
                    "",
                ),
                true,
                "quota exhausted",
            ),
            (
                run(
                    1,
                    &envelope("ERROR", "", "invalid model selection (--model x)", ZERO),
                    "",
                ),
                true,
                "rejected model",
            ),
            (
                run(0, &envelope("CANCELED", "", "", ZERO), ""),
                true,
                "agy failed",
            ),
            (
                run(2, "", "flag provided but not defined"),
                true,
                "agy failed: no result",
            ),
        ];
        for (r, is_error, text) in cases {
            let v = verdict(&r, 5.0, &none);
            assert_eq!(v.is_error, is_error, "{v:?}");
            assert!(v.text.starts_with(text), "{v:?}");
        }
        let killed = AgyRun {
            killed: true,
            ..AgyRun::default()
        };
        assert!(verdict(&killed, 5.0, &none).text.starts_with("timeout"));
    }

    #[test]
    fn a_print_timeout_without_cache_read_tokens_is_a_timeout() {
        // agy 1.0.16's usage has no `cache_read_tokens` (docs/agy-versions.md, CacheReadTokens).
        let old =
            r#""usage":{"input_tokens":0,"output_tokens":0,"thinking_tokens":0,"total_tokens":0}"#;
        let v = verdict(
            &run(0, &envelope("SUCCESS", "", "", old), ""),
            5.0,
            &FaultSet::none(),
        );
        assert!(v.is_error && v.text.starts_with("timeout"), "{v:?}");
    }

    #[test]
    fn the_faults_ship_their_bugs() {
        let timeout = run(0, &envelope("SUCCESS", "", "", ZERO), "");
        let empty = verdict(&timeout, 5.0, &FaultSet::of([Fault::McpEmptySuccess]));
        assert_eq!(empty, ToolText::ok(String::new()));
        let auth = run(
            1,
            &envelope("ERROR", "", "authentication required", ZERO),
            "",
        );
        let as_success = verdict(&auth, 5.0, &FaultSet::of([Fault::McpFailureAsSuccess]));
        assert!(!as_success.is_error);
        let generic = verdict(&auth, 5.0, &FaultSet::of([Fault::McpGenericFailureText]));
        assert_eq!(generic, ToolText::error("agy failed (exit code 1)".into()));
    }

    #[test]
    fn a_partial_answer_with_agy_s_notice_is_a_timeout_unless_the_fault_takes_it() {
        let notice =
            "[agy] print timeout after 10s with turn in progress; returning partial output\n";
        let partial = run(0, &envelope("SUCCESS", "The ans", "", ZERO), notice);
        let v = verdict(&partial, 5.0, &FaultSet::none());
        assert!(v.is_error && v.text.starts_with("timeout"), "{v:?}");
        let taken = verdict(
            &partial,
            5.0,
            &FaultSet::of([Fault::McpPartialTimeoutAsAnswer]),
        );
        assert_eq!(taken, ToolText::ok("The ans".into()));
    }
}
