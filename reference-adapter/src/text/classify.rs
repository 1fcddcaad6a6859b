//! What one finished run of a text client came to: the answer, or a failure in the
//! text contract's classes (docs/contract.md, `text`). Pure: the run's exit, stdout
//! (read) and stderr go in, the verdict comes out. Rows, in order: agy's print-timeout
//! notice; death by a signal; the result's status and error; the exit code; the answer.

use super::argv::OutputMode;
use super::output::RunOutput;
use crate::agy_text::mentions_auth;
use crate::failure::{
    head, Failure, ASK_AGY_FAILED, ASK_AUTH, ASK_CANCELED, ASK_MODEL_REJECTED, ASK_OUTPUT_MISSING,
    ASK_QUOTA, ASK_TIMEOUT,
};
use crate::faults::{Fault, FaultSet};
use agy_protocol::driver::Outcome;
use agy_protocol::{Envelope, Status, Usage};

/// agy's stderr line when `--print-timeout` expires (1.2.6 on, docs/agy-reference.md §2.4).
const PRINT_TIMEOUT_NOTICE: &str = "[agy] print timeout";
/// The envelope error of a print timeout on 1.1.24 and earlier (§2.4).
const TIMEOUT_WAITING: &str = "timeout waiting for response";
/// How much of agy's text a message quotes.
const QUOTE: usize = 400;

/// One finished run.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    /// The output format it was asked for.
    pub mode: OutputMode,
    /// Exit code; `None` when a signal ended it.
    pub exit_code: Option<i32>,
    /// stdout, read.
    pub output: RunOutput,
    /// stderr as text.
    pub stderr: String,
}

/// A run's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The answer text.
    pub text: String,
    /// The result's usage, when agy gave one (cumulative over the conversation).
    pub usage: Option<Usage>,
}

fn fail(outcome: Outcome, name: &'static str, message: String) -> Failure {
    Failure::new(outcome, name, message)
}

fn exit_text(code: Option<i32>) -> String {
    code.map_or("death by a signal".into(), |c| format!("exit code {c}"))
}

/// auth, quota, a rejected model or the old print timeout, told apart by agy's words
/// (the envelope's `error`, else stderr) and its exit code; anything else `None`.
fn named_failure(error: &str, stderr: &str, exit_code: Option<i32>) -> Option<Failure> {
    let words = if error.trim().is_empty() {
        stderr
    } else {
        error
    };
    let quoted = head(words.trim(), QUOTE);
    let lower = format!("{error}\n{stderr}").to_ascii_lowercase();
    if mentions_auth(&lower) {
        return Some(fail(
            Outcome::Auth,
            ASK_AUTH,
            format!("agy is not signed in: {quoted}"),
        ));
    }
    // §2.2 item 5: exit 3 and an `AGY_ERROR:` line naming RESOURCE_EXHAUSTED.
    if exit_code == Some(3)
        || lower.contains("resource_exhausted")
        || lower.contains("quota reached")
    {
        return Some(fail(
            Outcome::Transient,
            ASK_QUOTA,
            format!("agy's quota is used up: {quoted}"),
        ));
    }
    if lower.contains("invalid model selection") {
        return Some(fail(
            Outcome::Permanent,
            ASK_MODEL_REJECTED,
            format!("agy rejected the model: {quoted}"),
        ));
    }
    if lower.contains(TIMEOUT_WAITING) {
        return Some(fail(
            Outcome::Timeout,
            ASK_TIMEOUT,
            format!("agy print timeout: {quoted}"),
        ));
    }
    None
}

/// A result whose status is not SUCCESS.
fn status_failure(env: &Envelope, stderr: &str, exit_code: Option<i32>) -> Failure {
    if let Some(f) = named_failure(&env.error, stderr, exit_code) {
        return f;
    }
    let what = format!("agy status {} ({})", env.status, exit_text(exit_code));
    match env.status {
        Status::Canceled | Status::Interrupted => fail(Outcome::Transient, ASK_CANCELED, what),
        _ => fail(
            Outcome::Permanent,
            ASK_AGY_FAILED,
            format!("{what}: {}", head(env.error.trim(), QUOTE)),
        ),
    }
}

/// The verdict on a result with status SUCCESS and exit 0.
fn success(env: &Envelope, faults: &FaultSet) -> Result<Answer, Failure> {
    if env.response.trim().is_empty() {
        if env.usage.total_tokens == 0 && !faults.has(Fault::TextPrintTimeoutAsAnswer) {
            return Err(fail(
                Outcome::Timeout,
                ASK_TIMEOUT,
                "agy print timeout: SUCCESS with an empty response and zero tokens".into(),
            ));
        }
        if !faults.has(Fault::TextPrintTimeoutAsAnswer) {
            return Err(fail(
                Outcome::OutputMissing,
                ASK_OUTPUT_MISSING,
                "agy reported SUCCESS with an empty response".into(),
            ));
        }
    }
    Ok(Answer {
        text: env.response.clone(),
        usage: Some(env.usage),
    })
}

/// The answer with agy's stderr lines before it, under the fault that reads stdout and
/// stderr of a json or stream-json run as one stream.
fn with_merged_stderr(answer: Answer, run: &Finished, faults: &FaultSet) -> Answer {
    if !faults.has(Fault::TextJsonMergesStderr)
        || run.mode == OutputMode::Text
        || run.stderr.trim().is_empty()
    {
        return answer;
    }
    Answer {
        text: format!("{}\n{}", run.stderr.trim_end(), answer.text),
        ..answer
    }
}

/// A run whose stdout holds no result (text mode, or a cut stream).
fn without_result(run: &Finished, faults: &FaultSet) -> Result<Answer, Failure> {
    let text = if faults.has(Fault::TextMergesStderr) && run.mode == OutputMode::Text {
        format!("{}{}", run.output.streamed, run.stderr)
    } else {
        run.output.streamed.clone()
    };
    let answered = !text.trim().is_empty();
    if run.exit_code != Some(0) && !(faults.has(Fault::TextExitCodeIgnored) && answered) {
        if let Some(f) = named_failure("", &run.stderr, run.exit_code) {
            return Err(f);
        }
        let why = run.output.unreadable.as_deref().unwrap_or("no result");
        return Err(fail(
            Outcome::Permanent,
            ASK_AGY_FAILED,
            format!(
                "agy ended with {} ({why}); stderr: {}",
                exit_text(run.exit_code),
                head(run.stderr.trim(), QUOTE)
            ),
        ));
    }
    match (run.mode, answered) {
        (OutputMode::Text, true) => Ok(Answer { text, usage: None }),
        (OutputMode::Text, false) => Err(fail(
            Outcome::OutputMissing,
            ASK_OUTPUT_MISSING,
            "agy ended with exit code 0 and printed no answer".into(),
        )),
        _ if faults.has(Fault::TextExitCodeIgnored) && answered => Ok(Answer { text, usage: None }),
        _ => Err(fail(
            Outcome::Permanent,
            ASK_AGY_FAILED,
            format!(
                "agy ended with {} and {}",
                exit_text(run.exit_code),
                run.output.unreadable.as_deref().unwrap_or("no result")
            ),
        )),
    }
}

/// What the user can do about a failure named `name`, when there is something.
pub fn hint(name: &str) -> Option<&'static str> {
    match name {
        ASK_AUTH => Some("sign in to agy (run `agy` once in a terminal), then ask again"),
        ASK_QUOTA => Some("wait for the quota to reset, then ask again"),
        ASK_MODEL_REJECTED => Some("pick a model that `agy models` lists"),
        ASK_TIMEOUT => Some("ask again, or allow a longer timeout_s"),
        _ => None,
    }
}

/// Applies the text contract's rows to a finished run.
pub fn classify_text(run: &Finished, faults: &FaultSet) -> Result<Answer, Failure> {
    let merged = faults.has(Fault::TextMergesStderr) && run.mode == OutputMode::Text;
    if run.stderr.contains(PRINT_TIMEOUT_NOTICE)
        && !merged
        && !faults.has(Fault::TextPrintTimeoutAsAnswer)
        && !faults.has(Fault::TextDefaultPrintTimeoutAsAnswer)
    {
        return Err(fail(
            Outcome::Timeout,
            ASK_TIMEOUT,
            format!(
                "agy print timeout, partial output not an answer: {}",
                head(run.stderr.trim(), QUOTE)
            ),
        ));
    }
    let Some(env) = &run.output.envelope else {
        return without_result(run, faults);
    };
    if faults.has(Fault::TextOneErrorClass)
        && (env.status != Status::Success || run.exit_code != Some(0))
    {
        return Err(fail(
            Outcome::Permanent,
            "AskError",
            format!("agy failed: {}", head(env.error.trim(), QUOTE)),
        ));
    }
    match (&env.status, run.exit_code) {
        (Status::Success, Some(0)) => {
            success(env, faults).map(|a| with_merged_stderr(a, run, faults))
        }
        (Status::Success, _) if faults.has(Fault::TextExitCodeIgnored) => success(env, faults),
        (Status::Success, code) => Err(fail(
            Outcome::Permanent,
            ASK_AGY_FAILED,
            format!(
                "agy reported SUCCESS but ended with {}; stderr: {}",
                exit_text(code),
                head(run.stderr.trim(), QUOTE)
            ),
        )),
        (_, Some(0)) if faults.has(Fault::TextStatusIgnored) => Ok(Answer {
            text: env.response.clone(),
            usage: Some(env.usage),
        }),
        _ => Err(status_failure(env, &run.stderr, run.exit_code)),
    }
}

#[cfg(test)]
mod tests;
