//! Persistent mode (`--input-format stream-json --output-format stream-json`, no `-p`):
//! one full turn per stdin line, strictly in order; `init` after the first line (or at
//! start, `FAKE_AGY_INIT_AT`), and at stdin EOF when no turn wrote it; the
//! recorded reactions to malformed lines (docs/agy-reference.md §4).

use crate::error::FakeError;
use crate::exit_code;
use crate::io::ending::exit_with;
use crate::io::stdin_reader::StdinEvent;
use crate::run::actor::{run_steps, Place};
use crate::script::rules::{turn_label, TurnContext};
use crate::session::{Session, UsageUpdate};
use crate::turn::default_turn::default_turn;
use crate::turn::situations::answer_question;
use agy_protocol::calibration::SlashOnStdin;
use agy_protocol::script::InitAt;
use agy_protocol::stream::{parse_input_line, InputLineError};
use agy_protocol::{Envelope, Status};

/// Serves stdin lines until EOF. Returns at EOF (the caller decides how the process
/// ends); fatal lines end the process here.
pub fn serve_lines(s: &mut Session, ctx: &mut TurnContext) -> Result<(), FakeError> {
    if ctx.done {
        return Ok(());
    }
    if s.setup().init_at() == InitAt::Start {
        // The record is split on this (docs/agy-reference.md, "When `init` is
        // written"): here `init` comes before stdin is read.
        s.ensure_init()?;
    }
    loop {
        let (text, index) = match s.stdin().next() {
            StdinEvent::Eof => {
                ctx.done = true;
                if s.stdin().lines_taken() == 0 {
                    s.mark_idle_start();
                }
                if !s.out().wrote_stdout() {
                    // KA (agy 1.2.14): EOF with no line, or after an unknown-event
                    // line only, still gets `init` (docs/agy-reference.md, "When
                    // `init` is written"). A script that wrote stdout decided itself.
                    s.ensure_init()?;
                }
                return Ok(());
            }
            StdinEvent::Line { text, index } => (text, index),
        };
        let line = match parse_input_line(&text) {
            Ok(l) => l,
            Err(e)
                if e.is_warning() || (ctx.skip_malformed && e != InputLineError::MissingEvent) =>
            {
                // BB, FM: unknown events are skipped with a warning.
                s.out().stderr_line(&format!("warning: {e}"));
                continue;
            }
            Err(e) => fatal_line(s, &e)?,
        };
        let prompt = line.message.content.text();
        s.begin_turn(prompt.clone());
        s.ensure_init()?;
        answer_question(s, &prompt)?;
        let pick = ctx.chooser.choose(&ctx.rules, index as u32, &prompt);
        let steps = match pick {
            Some(i) => {
                s.recorder().stdin_line_rule(index, turn_label(&ctx.rules[i], i));
                ctx.rules[i].steps.clone()
            }
            None if ctx.fail_when_exhausted && !ctx.rules.is_empty() => {
                return Err(FakeError::Step(format!(
                    "stdin line {index} matches no turn rule of the script (`when_exhausted = \"fail\"`)"
                )))
            }
            None => {
                s.recorder().stdin_line_rule(index, "default".into());
                if let Some(cmd) = cli_slash_command(s, &prompt) {
                    slash_line_fatal(s, &cmd)?;
                }
                Vec::new()
            }
        };
        if steps.is_empty() {
            default_turn(s, &ctx.line_default)?;
        } else {
            run_steps(s, &steps, Place::Turn, ctx)?;
        }
        crate::io::children::end_turn_children();
        if let Some(code) = s.ending() {
            exit_with(s.recorder(), code);
        }
    }
}

/// The slash command the CLI answers itself (`/model`, `/effort`, `/usage`, `/quota`)
/// that a stdin line starts with, when the modelled agy refuses it in persistent mode.
fn cli_slash_command(s: &Session, prompt: &str) -> Option<String> {
    if s.setup().args().disable_slash_commands
        || s.setup().calibration().persistent.slash_command != SlashOnStdin::Fatal
    {
        return None;
    }
    let cmd = prompt.split_whitespace().next()?;
    ["/model", "/effort", "/usage", "/quota"]
        .contains(&cmd)
        .then(|| cmd.to_string())
}

/// agy 1.3.1 (`ut-1.3.1-stream-slash-fatal`): a CLI slash command on a persistent stdin
/// line ends the session: an ERROR result naming it (after `init`), the same text on
/// stderr after `error: `, exit 2.
fn slash_line_fatal(s: &mut Session, cmd: &str) -> Result<(), FakeError> {
    let text = format!("{cmd} is answered by the CLI itself and is unavailable with --input-format stream-json; run it as its own --print {cmd} invocation");
    s.out().stderr_line(&format!("error: {text}"));
    let id = s.conversation_id()?;
    let env = Envelope {
        error: text,
        num_turns: s.turns_after_this(false),
        ..Envelope::empty(id, Status::Error)
    };
    s.emit_result(env, UsageUpdate::AddSpent)?;
    let code = s.setup().calibration().persistent.slash_exit_code;
    exit_with(s.recorder(), code)
}

/// A malformed line agy does not run. The missing-`event` case is recorded (PB
/// `error-missing-event`: `init`, then an ERROR result with `num_turns` 0 and zero
/// usage, exit 1); the fake treats the other malformed forms the same way (§4.2 marks
/// fatal-or-not unrecorded for them).
fn fatal_line(
    s: &mut Session,
    e: &InputLineError,
) -> Result<agy_protocol::stream::UserLine, FakeError> {
    s.ensure_init()?;
    let id = s.conversation_id()?;
    let env = Envelope {
        error: e.to_string(),
        num_turns: s.turns_after_this(false),
        ..Envelope::empty(id, Status::Error)
    };
    s.emit_result(env, UsageUpdate::AddSpent)?;
    exit_with(s.recorder(), exit_code::TURN_FAILED)
}
